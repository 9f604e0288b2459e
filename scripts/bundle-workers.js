// Builds the one-file workers that the package starts, and checks them:
//
//   node scripts/bundle-workers.js           write them
//   node scripts/bundle-workers.js --check   exit 1, naming them, when one is stale
//
// A Node worker that loads a graph of ES modules pays for each module (about
// 0.5-1 ms each on the 2-CPU machine, and 4 ms for the ES module loader
// itself); one CommonJS file costs it about what an empty worker costs
// (docs/runner.md, "What a thread costs"). The built files are committed, so
// that the package needs no build step; test/worker-bundle.test.js fails when
// one no longer matches its sources. Built with esbuild (a devDependency),
// its output is the same on every machine for a given esbuild version.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

// source -> built file. The built file sits next to its source, so that the
// paths the sources make from import.meta.url (the addon's root, sibling
// files) mean the same in both.
// dynamicImports: the worker imports modules named at run time (the SDK host's
// runtimeModule and { moduleUrl } extraImports), so the built file keeps an
// import().
export const WORKER_BUNDLES = [
  { entry: "lib/program/pool-worker.js", outfile: "lib/program/pool-worker.bundle.cjs", dynamicImports: false },
  { entry: "lib/worker/node.js", outfile: "lib/worker/node.bundle.cjs", dynamicImports: true },
  // Not a worker: the CLI's main thread (bin/wasi-thread-pool.js requires it), built the same way
  // for the same reason (its start-up). lib/program/process.js's dynamic import of its fallback
  // (run.js) is bundled; the fallback's import("node:net") stays one.
  { entry: "lib/program/cli-main.js", outfile: "lib/program/cli-main.bundle.cjs", dynamicImports: true },
];

const BANNER = (entry) =>
  `// Built from ${entry} by scripts/bundle-workers.js: do not edit; run\n` +
  `// \`node scripts/bundle-workers.js\` after changing any file it imports.\n` +
  `const __wtpImportMetaUrl = require("node:url").pathToFileURL(__filename).href;`;

// The text of one built file.
export async function bundleWorker({ entry }) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // import.meta.url of the built file, for the sources that use it.
    define: { "import.meta.url": "__wtpImportMetaUrl" },
    banner: { js: BANNER(entry) },
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

// The built files that differ from what their sources give now.
export async function staleWorkerBundles() {
  const stale = [];
  for (const bundle of WORKER_BUNDLES) {
    let current = null;
    try {
      current = readFileSync(new URL(bundle.outfile, `file://${root}/`), "utf8");
    } catch {
      // missing: stale
    }
    if (current !== (await bundleWorker(bundle))) stale.push(bundle.outfile);
  }
  return stale;
}

async function main() {
  if (process.argv.includes("--check")) {
    const stale = await staleWorkerBundles();
    if (stale.length > 0) {
      console.error(`stale: ${stale.join(", ")}; run node scripts/bundle-workers.js`);
      process.exit(1);
    }
    return;
  }
  for (const bundle of WORKER_BUNDLES) {
    writeFileSync(new URL(bundle.outfile, `file://${root}/`), await bundleWorker(bundle));
    console.log(`bundle-workers: ${bundle.outfile}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
