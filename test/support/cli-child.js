// A command in a child process, its output collected: the package's CLI as a
// user runs it (runCli), and the other commands the suites run the same way
// (cargo: test/support/cargo-crate.js). Resolves {code, stdout, stderr}; a
// child that does not end within timeoutMs is killed and the promise rejects
// with what it printed.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../bin/wasi-thread-pool.js", import.meta.url));

// input: the bytes of the child's stdin, then its end (undefined: no stdin at
// all); env: the child's whole environment (undefined: this process's).
export function runChild(command, args, { input, env, cwd, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    if (input !== undefined) {
      child.stdin.on("error", () => {}); // a program that never reads its stdin
      child.stdin.end(input);
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not end within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The CLI: env is added to this process's environment.
export function runCli(args, { env = {}, ...options } = {}) {
  return runChild(process.execPath, [CLI, ...args], { ...options, env: { ...process.env, ...env } });
}
