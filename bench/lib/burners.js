// CPU-burning child processes of the bench's own making: the "machine loaded
// by N busy processes" of the wave-call-under-load rows (bench/lib/plan.js
// "load-*"). Each burner is a plain node process that spins until its own
// deadline (so that none outlives a crashed scenario for long) and is killed
// by stop(), by the scenario's exit, or by a signal that ends the scenario.
// They hold the scenario's event loop (not unref'd) so that `ended` can be
// awaited; a scenario that never stops them ends at their deadline.

import { spawn } from "node:child_process";

const BURN = `
const until = Date.now() + Number(process.argv[1]);
let x = 0;
while (Date.now() < until) for (let i = 0; i < 1e5; i++) x = (x * 1103515245 + 12345) | 0;
`;

// Starts `count` burners that end by themselves after maxMs at the latest;
// resolves once each has started running (its first output byte). Returns
// {pids, stop(), ended}; stop() kills them (SIGKILL) and is idempotent;
// ended resolves once every burner has exited (and been reaped).
export async function startBurners(count, { maxMs = 120000 } = {}) {
  if (!Number.isInteger(count) || count < 0 || count > 64) throw new RangeError("count must be an integer in 0..64");
  if (!Number.isFinite(maxMs) || maxMs <= 0) throw new RangeError("maxMs must be a positive number of milliseconds");
  const children = [];
  const exits = [];
  const stop = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", stop);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  }
  const started = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ["-e", `process.stdout.write("go");${BURN}`, String(maxMs)], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    children.push(child);
    exits.push(new Promise((resolve) => child.once("exit", () => resolve())));
    started.push(
      new Promise((resolve, reject) => {
        child.stdout.once("data", () => resolve());
        child.once("error", reject);
        child.once("exit", (code, signal) => reject(new Error(`burner ended before it started (${code ?? signal})`)));
      }),
    );
  }
  try {
    await Promise.all(started);
  } catch (error) {
    stop();
    throw error;
  }
  for (const child of children) child.stdout.destroy();
  return { pids: children.map((c) => c.pid), stop, ended: Promise.all(exits) };
}
