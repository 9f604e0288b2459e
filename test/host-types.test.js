// The declarations in types/ name exactly the runtime exports of each entry
// point (values only; the type-level checks are `npx tsc -p types/test`).

import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

function declaredValues(file, seen = new Set()) {
  const text = readFileSync(new URL(`../types/${file}`, import.meta.url), "utf8");
  const names = new Set();
  for (const match of text.matchAll(/^export declare (?:const|function|class) (\w+)/gm)) names.add(match[1]);
  // export { a, b } from "./x.js"  (value re-exports; `export type {}` is skipped)
  for (const match of text.matchAll(/^export \{([^}]*)\} from "\.\/(\w+)\.js";/gm)) {
    for (const name of match[1]
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean))
      names.add(name);
  }
  // export * from "./x.js"
  for (const match of text.matchAll(/^export \* from "\.\/(\w+)\.js";/gm)) {
    if (seen.has(match[1])) continue;
    seen.add(match[1]);
    for (const name of declaredValues(`${match[1]}.d.ts`, seen)) names.add(name);
  }
  return names;
}

const sorted = (names) => [...names].sort();

for (const [entry, types] of [
  ["../lib/index.js", "index.d.ts"],
  ["../lib/index.browser.js", "index.d.ts"],
  ["../lib/pool.js", "pool.d.ts"],
  ["../lib/pool.browser.js", "pool.d.ts"],
  ["../lib/host/host.js", "host.d.ts"],
]) {
  test(`types/${types} declares every value export of ${entry.slice(3)}`, async () => {
    const mod = await import(entry);
    assert.deepEqual(sorted(declaredValues(types)), sorted(Object.keys(mod)));
  });
}
