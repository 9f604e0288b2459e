// Runs a test scenario script in a child process, for the suites whose
// behaviour ends or outlives a process (test/host-node-process.test.js,
// test/faults.test.js, the lifecycle soak of test/soak.test.js).
//
// The scenario is chosen by WTP_SCENARIO and the pool implementation by
// WTP_IMPL; the script prints one `RESULT <json>` line. Resolves
// {code, signal, stdout, stderr, result, exitedAt}; a child that does not end
// by itself within timeoutMs is killed and the promise rejects.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";

export function runScenarioChild(command, args, { name, implementation, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, WTP_SCENARIO: name, WTP_IMPL: implementation },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`scenario ${name} did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const exitedAt = performance.timeOrigin + performance.now();
      const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
      resolve({ code, signal, stdout, stderr, exitedAt, result: line ? JSON.parse(line.slice(7)) : null });
    });
  });
}

// The child exited 0 and printed its RESULT line.
export function assertClean(run) {
  assert.equal(run.code, 0, `exit code ${run.code} (${run.signal})\nstderr:\n${run.stderr}`);
  assert.ok(run.result, `no RESULT line\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
}
