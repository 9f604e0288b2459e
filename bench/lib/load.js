// What the machine was doing while the bench ran (issue 28): for each row,
// the CPUs that other work (anything but the bench and the processes it
// waited for) kept busy, from /proc/stat and /proc/self/stat; and the load
// average at the row's start and end. A row whose free CPUs (the machine's
// CPUs minus the others' busy ones) were fewer than the CPUs it needs is
// "loaded": its figures say more about the machine than about the package.
//
// Linux only for the CPU figures; elsewhere only the load average is shown
// and no row is marked.

import { readFileSync } from "node:fs";
import os from "node:os";

// A row counts as loaded when the others' CPUs left it this much less than
// it needs (the bench's own parent process and the kernel's bookkeeping
// stay well under it on a quiet machine).
export const LOADED_MARGIN_CPUS = 0.25;

// {busy, total} ticks of every CPU from /proc/stat's "cpu" line; busy counts
// steal (a VM's CPU taken by its host is not free either).
function machineTicks() {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const busy = user + nice + system + irq + softirq + (steal || 0);
  return { busy, total: busy + idle + (iowait || 0) };
}

// This process's CPU ticks plus those of the children it has reaped (the
// rows' child processes, and what they reaped: the load rows' burners).
function ownTicks() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime, cstime: fields 14-17, i.e. 11-14 after the state.
  return fields.slice(11, 15).reduce((sum, v) => sum + Number(v), 0);
}

export function loadSample() {
  const sample = { loadAverage1: Math.round(os.loadavg()[0] * 100) / 100 };
  try {
    Object.assign(sample, machineTicks(), { own: ownTicks() });
  } catch {
    // no /proc: the load average only
  }
  return sample;
}

// The CPUs a row needs busy at once: a plan entry's needCpus, else the CPUs
// it is pinned to, else 1 for the single-threaded C scan, else 2 (every other
// row hands work between two threads at least); never more than the machine has.
export function cpusNeeded(scenario, cores) {
  let needs = scenario.needCpus;
  if (needs === undefined && scenario.cpus) needs = scenario.cpus.split(",").length;
  if (needs === undefined) needs = scenario.kind === "c" && scenario.program === "scan" ? 1 : 2;
  return Math.min(needs, cores);
}

// The machine between two samples, for a row that needs `needs` CPUs:
// {othersCpus, freeCpus, needs, loaded, loadAverage: [start, end]}.
export function loadBetween(a, b, { cores, needs }) {
  const out = { othersCpus: null, freeCpus: null, needs, loaded: null, loadAverage: [a.loadAverage1, b.loadAverage1] };
  if (a.total === undefined || b.total === undefined || b.total <= a.total) return out;
  const others = Math.max(0, b.busy - a.busy - (b.own - a.own));
  out.othersCpus = Math.round((others / (b.total - a.total)) * cores * 100) / 100;
  out.freeCpus = Math.round((cores - out.othersCpus) * 100) / 100;
  out.loaded = out.freeCpus < needs - LOADED_MARGIN_CPUS;
  return out;
}

// One group's rows: {othersCpus (mean weighted by time), othersMax,
// loadAverage: [first start, last end], loadedRows: [ids], rows}.
export function groupLoad(rows) {
  const measured = rows.filter((r) => r.load && r.load.othersCpus !== null);
  const seconds = measured.reduce((s, r) => s + Math.max(r.seconds, 0.1), 0);
  const mean = measured.length ? measured.reduce((s, r) => s + r.load.othersCpus * Math.max(r.seconds, 0.1), 0) / seconds : null;
  const withLoad = rows.filter((r) => r.load);
  return {
    othersCpus: mean === null ? null : Math.round(mean * 100) / 100,
    othersMax: measured.length ? Math.max(...measured.map((r) => r.load.othersCpus)) : null,
    loadAverage: withLoad.length ? [withLoad[0].load.loadAverage[0], withLoad.at(-1).load.loadAverage[1]] : null,
    loadedRows: rows.filter((r) => r.load?.loaded).map((r) => r.id),
    rows: rows.length,
  };
}

// "others 0.31 of 2 CPUs (max 0.52), load average 1.2 -> 1.9; 1 of 3 rows LOADED".
export function groupLoadText(g, cores) {
  const parts = [];
  if (g.othersCpus !== null) parts.push(`other work used ${g.othersCpus} of ${cores} CPUs (max ${g.othersMax} in a row)`);
  if (g.loadAverage) parts.push(`load average ${g.loadAverage[0]} -> ${g.loadAverage[1]}`);
  const text = parts.join(", ") || "load not sampled";
  return g.loadedRows.length
    ? `${text}; LOADED: ${g.loadedRows.length} of ${g.rows} rows taken with fewer free CPUs than they need (${g.loadedRows.join(", ")})`
    : `${text}; quiet: every row had the CPUs it needs`;
}
