// The bench's record of what the machine was doing (bench/lib/load.js,
// issue 28): the CPUs other work kept busy during a row, the rows marked
// loaded, and the per-group summary the table and the report print.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { LOADED_MARGIN_CPUS, cpusNeeded, groupLoad, groupLoadText, loadBetween, loadSample } from "../bench/lib/load.js";

test("the CPUs a row needs: its own figure, its pinning, 1 for the C scan, else 2; never more than the machine's", () => {
  assert.equal(cpusNeeded({ kind: "pool", needCpus: 3 }, 8), 3);
  assert.equal(cpusNeeded({ kind: "pool", cpus: "0" }, 8), 1);
  assert.equal(cpusNeeded({ kind: "pool", cpus: "0,1" }, 8), 2);
  assert.equal(cpusNeeded({ kind: "c", program: "scan" }, 8), 1);
  assert.equal(cpusNeeded({ kind: "c" }, 8), 2);
  assert.equal(cpusNeeded({ kind: "pool" }, 1), 1);
});

test("other work is the machine's busy time minus the bench's own (its children included)", () => {
  const a = { loadAverage1: 1, busy: 1000, total: 2000, own: 100 };
  // 2 CPUs, 200 ticks of each: 300 busy ticks, 100 of them ours -> others 200/400 of 2 CPUs = 1 CPU.
  const b = { loadAverage1: 3, busy: 1300, total: 2400, own: 200 };
  assert.deepEqual(loadBetween(a, b, { cores: 2, needs: 2 }), {
    othersCpus: 1,
    freeCpus: 1,
    needs: 2,
    loaded: true,
    loadAverage: [1, 3],
  });
  // The same row needing 1 CPU had it.
  assert.equal(loadBetween(a, b, { cores: 2, needs: 1 }).loaded, false);
  // Within the margin: not loaded.
  const quiet = { ...b, busy: 1100 + Math.floor((LOADED_MARGIN_CPUS / 2) * 400) - 1 };
  assert.equal(loadBetween(a, quiet, { cores: 2, needs: 2 }).loaded, false);
  // No /proc figures: the load average only, nothing marked.
  assert.deepEqual(loadBetween({ loadAverage1: 1 }, { loadAverage1: 2 }, { cores: 2, needs: 2 }), {
    othersCpus: null,
    freeCpus: null,
    needs: 2,
    loaded: null,
    loadAverage: [1, 2],
  });
});

test(
  "a child process the bench waited for counts as the bench's own CPU",
  { skip: !existsSync("/proc/self/stat") && "no /proc" },
  () => {
    const a = loadSample();
    // The child burns 300 ms of its own CPU, however long a loaded machine makes that take.
    const burn = "const t=process.cpuUsage();let x=0;while(process.cpuUsage(t).user<300000)x++;";
    const r = spawnSync(process.execPath, ["-e", burn], { timeout: 120_000 });
    assert.equal(r.status, 0);
    const b = loadSample();
    // 300 ms is 30 ticks of USER_HZ 100; allow the tick rounding.
    assert.ok(b.own - a.own >= 25, `own ticks grew by ${b.own - a.own}`);
  },
);

test("a group's summary names its loaded rows", () => {
  const row = (id, othersCpus, loaded, seconds = 1) => ({ id, seconds, load: { othersCpus, loaded, loadAverage: [1, 2] } });
  const g = groupLoad([row("a", 0.1, false), row("b", 1.5, true, 3), { id: "c", seconds: 0, load: undefined }]);
  assert.deepEqual(g.loadedRows, ["b"]);
  assert.equal(g.othersCpus, 1.15);
  assert.equal(g.othersMax, 1.5);
  assert.match(groupLoadText(g, 2), /other work used 1\.15 of 2 CPUs .*LOADED: 1 of 3 rows .*\(b\)/);
  assert.match(groupLoadText(groupLoad([row("a", 0.1, false)]), 2), /quiet: every row had the CPUs it needs/);
});
