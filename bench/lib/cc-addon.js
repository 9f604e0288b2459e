// Builds the addon with the system C compiler straight from a src/ folder,
// without node-gyp: the bench's --fresh-addon (extra -D flags, such as
// -DWTP_PARK_STATS, for a counted build). The sources are binding.gyp's lists (read by the
// cross-build script, so that there is one list) plus the Linux wait and
// memory advice files:
// the core's and the program WASI's (src/node/, src/wasi/).

import { execFileSync } from "node:child_process";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { coreSources, wasiSources } from "../../scripts/cross-prebuild.js";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

// srcDir: a folder holding src/'s tree (src/ itself, or a patched copy);
// out: the .node path; defines: extra -D flags. Throws cc's error.
export function ccAddon({ srcDir = join(repoDir, "src"), out, defines = [] }) {
  // binding.gyp's paths are relative to the repository and start with src/:
  // the same path under srcDir (sub-folders kept).
  const sources = [...coreSources(repoDir), "src/os/wait_linux.c", "src/os/memory_linux.c", ...wasiSources(repoDir)].map((file) =>
    join(srcDir, relative("src", file)),
  );
  const nodeInclude = resolve(dirname(process.execPath), "..", "include", "node");
  execFileSync(
    process.env.CC || "cc",
    [
      "-shared",
      "-fPIC",
      "-pthread",
      "-std=gnu11",
      "-O2",
      "-fvisibility=hidden",
      "-DNAPI_VERSION=8",
      ...defines,
      `-I${nodeInclude}`,
      "-o",
      out,
      ...sources,
    ],
    { stdio: "pipe" },
  );
  return out;
}
