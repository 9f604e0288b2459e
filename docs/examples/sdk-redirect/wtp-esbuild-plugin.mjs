// wtp-esbuild-plugin.mjs
const HOST = /[\\/]space-data-module-sdk[\\/]src[\\/]host[\\/]wasiThread(Host|Pool)\.js$/;

export const wasiThreadPoolRedirect = {
  name: "wasi-thread-pool-redirect",
  setup(build) {
    build.onResolve({ filter: /wasiThread(Host|Pool)(\.js)?$/ }, async (args) => {
      if (args.pluginData?.wtp) return undefined; // our own nested resolve below
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { wtp: true },
      });
      const match = HOST.exec(resolved.path);
      if (!match) return undefined;
      const target = match[1] === "Host" ? "wasi-thread-pool/host" : "wasi-thread-pool/pool";
      const ours = await build.resolve(target, { kind: args.kind, resolveDir: process.cwd() });
      return { path: ours.path, errors: ours.errors, warnings: ours.warnings };
    });
  },
};
