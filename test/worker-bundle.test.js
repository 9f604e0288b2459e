// The one-file workers the package starts (scripts/bundle-workers.js): each
// built file matches what its sources give now, and loads nothing but Node's
// own modules and the addon (a worker that loaded lib/ files beside it would
// pay again for the module graph the build is there to spare it).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { WORKER_BUNDLES, staleWorkerBundles } from "../scripts/bundle-workers.js";

const root = new URL("../", import.meta.url);

test("every built worker matches its sources (else: node scripts/bundle-workers.js)", async () => {
  assert.deepEqual(await staleWorkerBundles(), []);
});

test("a built worker requires only node: modules (and the addon through createRequire)", () => {
  for (const { outfile, dynamicImports } of WORKER_BUNDLES) {
    const text = readFileSync(new URL(outfile, root), "utf8");
    const required = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.ok(required.length > 0, `${outfile}: no require() at all`);
    for (const name of required) assert.match(name, /^node:/, `${outfile} requires ${name}`);
    // Only a worker that imports modules named at run time keeps an import().
    if (!dynamicImports) assert.doesNotMatch(text, /\bimport\(/, `${outfile} imports a module at run time`);
  }
});
