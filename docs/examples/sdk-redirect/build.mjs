// A browser bundle of app.mjs, with the SDK's host and pool redirected.
import * as esbuild from "esbuild";
import { wasiThreadPoolRedirect } from "./wtp-esbuild-plugin.mjs";

await esbuild.build({
  entryPoints: ["app.mjs"],
  bundle: true,
  format: "esm",
  platform: "browser",
  plugins: [wasiThreadPoolRedirect],
  outdir: "dist",
});
