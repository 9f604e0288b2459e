// Builds the one-file workers that the package starts, and checks them:
//
//   node scripts/bundle-workers.js           write them into dist/
//   node scripts/bundle-workers.js --check   exit 1, naming them, when one is
//                                            present and stale
//
// A Node worker that loads a graph of ES modules pays for each module (about
// 0.5-1 ms each on the 2-CPU machine, and 4 ms for the ES module loader
// itself); one CommonJS file costs it about what an empty worker costs
// (the bench's group 11). The built files are build output,
// not sources: they go to dist/ (ignored), like the browser worker's bundle;
// `npm pack` (prepack), `npm test`, `npm run bench` and the install from a git
// checkout (scripts/install.js) build them, and lib/worker/entries.js starts
// the source module where they are absent. Built with esbuild (a
// devDependency), their text is the same on every machine for a given esbuild
// version.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { WORKER_ENTRIES } from "../lib/worker/entries.js";

const root = fileURLToPath(new URL("..", import.meta.url));

// entry -> built file (lib/worker/entries.js names both).
// dynamicImports: the worker imports modules named at run time (the SDK host's
// runtimeModule and { moduleUrl } extraImports), so the built file keeps an
// import().
export const WORKER_BUNDLES = [
  { entry: WORKER_ENTRIES.program.source, outfile: WORKER_ENTRIES.program.built, dynamicImports: false },
  { entry: WORKER_ENTRIES.host.source, outfile: WORKER_ENTRIES.host.built, dynamicImports: true },
  // Not a worker: the CLI's main thread (bin/wasi-thread-pool.js requires it), built the same way
  // for the same reason (its start-up). lib/program/process.js's dynamic import of its fallback
  // (run.js) is bundled; the fallback's import("node:net") stays one.
  { entry: WORKER_ENTRIES.cli.source, outfile: WORKER_ENTRIES.cli.built, dynamicImports: true },
];

// import.meta.url in the built file is its entry's source URL, so that the
// paths the sources make from it (the addon's root, sibling files such as
// lib/program/watch-worker.js) mean the same in both. The built file sits one
// folder below the root (dist/), the entry two (lib/<room>/).
const BANNER = (entry) =>
  `// Built from ${entry} by scripts/bundle-workers.js: do not edit; run\n` +
  `// \`node scripts/bundle-workers.js\` after changing any file it imports.\n` +
  `const __wtpImportMetaUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", ${JSON.stringify(entry)})).href;`;

// The text of one built file.
export async function bundleWorker({ entry }) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    define: { "import.meta.url": "__wtpImportMetaUrl" },
    banner: { js: BANNER(entry) },
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

const builtPath = (outfile) => new URL(outfile, `file://${root}/`);

// The built files present that differ from what their sources give now
// (absent ones are not stale: the source modules run instead).
export async function staleWorkerBundles() {
  const stale = [];
  for (const bundle of WORKER_BUNDLES) {
    let current;
    try {
      current = readFileSync(builtPath(bundle.outfile), "utf8");
    } catch {
      continue; // not built
    }
    if (current !== (await bundleWorker(bundle))) stale.push(bundle.outfile);
  }
  return stale;
}

// Writes every built file; returns their paths (from the root).
export async function writeWorkerBundles() {
  mkdirSync(new URL("dist/", `file://${root}/`), { recursive: true });
  for (const bundle of WORKER_BUNDLES) writeFileSync(builtPath(bundle.outfile), await bundleWorker(bundle));
  return WORKER_BUNDLES.map((b) => b.outfile);
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
  for (const file of await writeWorkerBundles()) console.log(`bundle-workers: ${file}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
