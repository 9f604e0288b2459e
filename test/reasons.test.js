// The decline reasons are listed once (lib/pool/reasons.js): the JS twin, the
// hosts and the type declarations agree with that list. (The native core's
// numbering is held to it by test/layout.test.js.)

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { DECLINE, HOST_DECLINE_REASONS, POOL_DECLINE_REASONS } from "../lib/pool/reasons.js";

// The string literals of `export type NAME = | "a" | "b";` in a .d.ts.
function declaredUnion(file, name) {
  const text = readFileSync(new URL(`../types/${file}`, import.meta.url), "utf8");
  const match = text.match(new RegExp(`export type ${name} =([^;]*);`));
  assert.ok(match, `${file} declares ${name}`);
  return [...match[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

it("types/reasons.d.ts spells exactly lib/pool/reasons.js's lists, in order", () => {
  assert.deepEqual(declaredUnion("reasons.d.ts", "WasiThreadPoolDeclineReason"), POOL_DECLINE_REASONS.slice(1));
  assert.deepEqual(declaredUnion("reasons.d.ts", "WasiThreadHostDeclineReason"), HOST_DECLINE_REASONS);
});

it("DECLINE names every reason once, and nothing else", () => {
  const all = [...POOL_DECLINE_REASONS.slice(1), ...HOST_DECLINE_REASONS];
  assert.equal(new Set(all).size, all.length);
  assert.deepEqual(Object.values(DECLINE).sort(), [...all].sort());
  for (const [key, value] of Object.entries(DECLINE)) assert.equal(key, value.toUpperCase().replaceAll("-", "_"));
});

it("no file under lib/ spells a decline reason as a string outside lib/pool/reasons.js", () => {
  const all = [...POOL_DECLINE_REASONS.slice(1), ...HOST_DECLINE_REASONS];
  const dir = new URL("../lib/", import.meta.url);
  for (const name of ["pool/twin.js", "pool/api.js", "host/host.js", "host/browser.js", "host/node.js", "host/ledger.js"]) {
    // Code only: comments may name a reason.
    const code = readFileSync(new URL(name, dir), "utf8")
      .split("\n")
      .filter((line) => !line.trim().startsWith("//"))
      .join("\n");
    for (const reason of all) assert.ok(!code.includes(`"${reason}"`), `lib/${name} spells "${reason}"`);
  }
});

it("the pool types and the host types take their reasons from types/reasons.d.ts", () => {
  const pool = readFileSync(new URL("../types/pool.d.ts", import.meta.url), "utf8");
  const host = readFileSync(new URL("../types/host.d.ts", import.meta.url), "utf8");
  assert.match(pool, /export type \{ WasiThreadPoolDeclineReason \} from "\.\/reasons\.js";/);
  assert.match(host, /export type WasiThreadSpawnDeclineReason = WasiThreadPoolDeclineReason \| WasiThreadHostDeclineReason;/);
});
