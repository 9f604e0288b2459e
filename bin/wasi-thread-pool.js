#!/usr/bin/env node
// wasi-thread-pool run app.wasm [options] [-- args...]: runs a wasi-threads
// program with runWasiThreadsProgram and exits with its exit code.

import { readFileSync } from "node:fs";
import { basename } from "node:path";

const HELP = `Usage: wasi-thread-pool run <app.wasm> [options] [--] [args...]

Runs a wasi-threads command program (a module that exports _start, imports
one shared memory and wasi.thread-spawn) with WASI preview1, and exits with
the program's exit code.

The program's stdin, stdout and stderr are this process's. proc_exit(n) on
any thread ends every thread and exits with n; _start returning exits with 0;
a trap on any thread ends every thread, prints which thread trapped and why on
stderr, and exits with 134.

Options:
  --env NAME=VALUE        set an environment variable of the program (repeatable;
                          the program sees no other variable)
  --dir GUEST::HOST       preopen host directory HOST as GUEST (repeatable);
                          --dir DIR is --dir DIR::DIR
  --max-threads N         at most N threads alive at once besides the main
                          thread; pthread_create fails with EAGAIN beyond
                          (default 16384)
  --pool N                at most N pool workers alive at once (default 1024);
                          threads beyond wait for a free worker
  --implementation IMPL   the pool's waits: native (the addon; default when it
                          loads) or js
  -h, --help              show this help

Options may come before or after the program file. The program's arguments
come after --; without --, they start at the first argument after the file
that is not an option above. The program's args[0] is the file's base name.

Example:
  npx wasi-thread-pool run app.wasm --env LANES=8 --dir /data::./data -- input.txt
`;

function usage(message) {
  process.stderr.write(`wasi-thread-pool: ${message}\n\nRun wasi-thread-pool --help for usage.\n`);
  process.exit(2);
}

function parse(argv) {
  if (argv.length === 0 || argv[0] === "-h" || argv[0] === "--help") {
    process.stdout.write(HELP);
    process.exit(argv.length === 0 ? 2 : 0);
  }
  if (argv[0] !== "run") usage(`unknown command ${JSON.stringify(argv[0])} (the only command is "run").`);
  const opts = {
    env: {},
    preopens: {},
    poolSize: undefined,
    maxThreads: undefined,
    implementation: undefined,
    file: null,
    args: [],
  };
  let i = 1;
  const value = (flag) => {
    if (i + 1 >= argv.length) usage(`${flag} needs a value.`);
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-h" || arg === "--help") {
      process.stdout.write(HELP);
      process.exit(0);
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const take = () => inline ?? value(flag);
    if (flag === "--env") {
      const pair = take();
      const eq = pair.indexOf("=");
      if (eq <= 0) usage(`--env needs NAME=VALUE (got ${JSON.stringify(pair)}).`);
      opts.env[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (flag === "--dir") {
      const spec = take();
      const sep = spec.indexOf("::");
      const [guest, host] = sep >= 0 ? [spec.slice(0, sep), spec.slice(sep + 2)] : [spec, spec];
      if (!guest || !host) usage(`--dir needs GUEST::HOST (got ${JSON.stringify(spec)}).`);
      opts.preopens[guest] = host;
    } else if (flag === "--pool") {
      const n = Number(take());
      if (!Number.isInteger(n) || n < 1) usage("--pool needs a positive integer.");
      opts.poolSize = n;
    } else if (flag === "--max-threads") {
      const n = Number(take());
      if (!Number.isInteger(n) || n < 0) usage("--max-threads needs a non-negative integer.");
      opts.maxThreads = n;
    } else if (flag === "--implementation") {
      const impl = take();
      if (impl !== "native" && impl !== "js") usage('--implementation is "native" or "js".');
      opts.implementation = impl;
    } else if (arg.startsWith("-") && opts.file === null) {
      usage(`unknown option ${arg}.`);
    } else if (opts.file === null) {
      opts.file = arg;
    } else {
      break; // the program's arguments start here
    }
  }
  if (opts.file === null) {
    if (i < argv.length) opts.file = argv[i++];
    else usage("no program given.");
  }
  opts.args = argv.slice(i);
  return opts;
}

const opts = parse(process.argv.slice(2));
let bytes;
try {
  bytes = readFileSync(opts.file);
} catch (error) {
  usage(`cannot read ${opts.file}: ${error.message}`);
}

// The runner alone, not the whole package (start-up time).
const { runWasiThreadsProgram } = await import("../lib/program.js");
try {
  const { exitCode } = await runWasiThreadsProgram(bytes, {
    args: [basename(opts.file), ...opts.args],
    env: opts.env,
    preopens: opts.preopens,
    poolSize: opts.poolSize,
    maxThreads: opts.maxThreads,
    implementation: opts.implementation,
  });
  process.exitCode = exitCode & 0xff;
} catch (error) {
  process.stderr.write(`wasi-thread-pool: ${error.message}\n`);
  process.exitCode = 1;
}
// stdin may still be open (a program that never read it to its end): it must
// not keep this process alive.
process.stdin.unref?.();
process.stdin.destroy?.();
