// The CLI's main thread (bin/wasi-thread-pool.js runs it): wasi-thread-pool
// [run] [OPTIONS] <WASM> [ARGS]...: runs a WASI command program and exits
// with its exit code. The command line is wasmtime's (lib/program/cli.js).
// Started as its one-file build, dist/cli-main.cjs (scripts/bundle-workers.js,
// lib/worker/entries.js), where there is one: one CommonJS file loads in a
// fraction of the time of this module graph (docs/runner.md, "What a run
// costs"). Importing it runs nothing: runCli() does.
//
// runCli({codeFile, keepCode}): codeFile is the built file the CLI runs from
// (the bin says which), the code whose rewrites the module cache keeps
// (lib/program/module-cache.js); without it (the CLI run from its sources)
// no cache is kept. keepCode() asks for the runner's code cache to be
// written at the exit (lib/program/code-cache.cjs): called once the program
// is about to run, so that the entry holds what a run compiles.

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { HELP, NotUtf8Error, UsageError, parseCommandLine } from "./cli.js";
import { hostArgvBytes, hostEnvBytes } from "./host-bytes.js";
import { cacheWanted, readModuleFile } from "./module-cache.js";
import { runProgramAsProcess } from "./process.js";
import { isModuleFault } from "./setup.js";
import { spareCount, startSpareWorkers } from "./spare-worker.js";

// The API's error as the CLI says it: in the CLI's words (without
// runWasiThreadsProgram's prefix), naming the module's file when the module
// is at fault.
function failureText(error, file) {
  const text = String(error?.message ?? error).replace(/^runWasiThreadsProgram: /, "");
  return isModuleFault(error) ? `${file}: ${text}` : text;
}

function usage(message) {
  process.stderr.write(`wasi-thread-pool: ${message}\n\nRun wasi-thread-pool --help for usage.\n`);
  process.exit(2);
}

// Node decoded the arguments and the environment as UTF-8, with U+FFFD for
// bytes that are not: where one has a U+FFFD, the exact bytes are read from
// the host (Linux) so that the program gets them (lib/program/host-bytes.js).
function commandLine() {
  const argv = process.argv.slice(2);
  const mayBeAltered = (texts) => texts.some((text) => typeof text === "string" && text.includes("\uFFFD"));
  const hostBytes =
    mayBeAltered(argv) || mayBeAltered(Object.values(process.env))
      ? { argvBytes: hostArgvBytes(argv), envBytes: hostEnvBytes() }
      : {};
  try {
    return parseCommandLine(argv, process.env, hostBytes);
  } catch (error) {
    if (error instanceof NotUtf8Error) {
      process.stderr.write(`wasi-thread-pool: ${error.message}\n`);
      process.exit(1);
    }
    if (!(error instanceof UsageError)) throw error;
    usage(error.message);
  }
}

export async function runCli({ codeFile = null, keepCode = () => {} } = {}) {
  if (process.argv.length === 2) {
    process.stderr.write(HELP);
    process.exit(2);
  }
  const opts = commandLine();
  if (opts.action === "help") {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (opts.action === "version") {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    process.stdout.write(`wasi-thread-pool ${version}\n`);
    process.exit(0);
  }

  let cache;
  let spareWorkers;
  try {
    cache = opts.cache && cacheWanted();
    spareWorkers = spareCount();
  } catch (error) {
    // An environment variable, not the command line: exit 1, as a bad
    // WASI_THREAD_POOL_RESERVE_MEMORY or WASI_THREAD_POOL_HUGE_PAGES does.
    process.stderr.write(`wasi-thread-pool: ${error.message}\n`);
    process.exit(1);
  }
  let bytes;
  let moduleStore;
  try {
    ({ bytes, store: moduleStore } = readModuleFile(opts.file, { codeFile, enabled: cache }));
  } catch (error) {
    process.stderr.write(`wasi-thread-pool: cannot read the module ${opts.file}: ${error.message}\n`);
    process.exit(1);
  }

  // The module cache's entry compiles from now on, on V8's threads; its
  // failure is the compile's to report later (the passes run then).
  moduleStore?.compile()?.catch(() => {});
  // A program that imports thread-spawn gets its first thread's worker started
  // now, while the runner compiles (lib/program/spare-worker.js).
  const spares = startSpareWorkers(bytes, spareWorkers);

  // The runner's code cache is written whatever -C cache says: only
  // WASI_THREAD_POOL_CACHE=0, read by the bin before this code loads, turns
  // it off (docs/cli.md).
  keepCode();
  // The process is the program's: where the C WASI serves, runProgramAsProcess
  // runs the guest's main thread right here and the process ends when the
  // program does; with node:wasi it resolves the program's {exitCode}
  // (lib/program/process.js).
  try {
    const { exitCode } = await runProgramAsProcess(
      bytes,
      {
        args: [opts.argv0 ?? basename(opts.file), ...opts.args],
        env: opts.env,
        preopens: opts.preopens,
        poolSize: opts.poolSize,
        maxThreads: opts.maxThreads,
        implementation: opts.implementation,
      },
      spares,
      moduleStore,
    );
    process.exitCode = exitCode;
  } catch (error) {
    process.stderr.write(`wasi-thread-pool: ${failureText(error, opts.file)}\n`);
    process.exitCode = 1;
  }
  // stdin may still be open (a program that never read it to its end): it must
  // not keep this process alive.
  process.stdin.unref?.();
  process.stdin.destroy?.();
}
