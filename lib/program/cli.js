// The command line of bin/wasi-thread-pool.js, in wasmtime's forms
// (`wasmtime run --help`, wasmtime 14 and later) for what the runner does:
//
//   wasi-thread-pool [run] [OPTIONS] [--] <WASM> [ARGS]...
//
// Options come before the module; every argument after it is the program's,
// whatever it looks like (a `--` after the module too, as wasmtime passes it).
// A `--` before the module ends the options. parseCommandLine never exits and
// never prints: it returns what to do or throws a UsageError (exit 2) or a
// NotUtf8Error (exit 1).

import { DOCS_URL, docsLink } from "./docs.js";
import { exactValue } from "./host-bytes.js";
import { MOST_THREADS } from "./threads.js";

export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
}

// An argument or environment value for the program that is not UTF-8 and
// whose bytes the runner cannot read on this platform: refused (exit 1), as
// wasmtime refuses it, rather than passed altered.
export class NotUtf8Error extends Error {
  constructor(message) {
    super(message);
    this.name = "NotUtf8Error";
  }
}

export const HELP = `Usage: wasi-thread-pool [run] [OPTIONS] <WASM> [ARGS]...

Runs a WASI preview1 command module (one that exports _start): a wasi-threads
program (one shared memory, wasi.thread-spawn) on a pool of worker threads, or
a single-threaded one on one thread, and exits with the program's exit code.
The command line follows \`wasmtime run\` for what this runner does.

Arguments:
  <WASM> [ARGS]...             the module, then the program's arguments: every
                               argument after the module is the program's, a
                               \`--\` too (a \`--\` before the module ends the
                               options); args[0] is the module's base name

Options (before the module):
  --dir <HOST_DIR[::GUEST_DIR]>
                               grant the program the host directory HOST_DIR,
                               named GUEST_DIR in the guest (default: HOST_DIR
                               as written); repeatable
  --env <NAME[=VAL]>           set the program's environment variable NAME to
                               VAL; --env NAME passes the host's value of NAME
                               (none if the host has none); repeatable. The
                               program sees no other variable
  --argv0 <NAME>               the program's args[0] (default: the module's
                               base name)
  -S, --wasi <KEY[=VAL[,..]]>  WASI options; accepted: threads[=y] (threads
                               are always on)
  -W, --wasm <KEY[=VAL[,..]]>  wasm options; accepted: threads[=y]
  -C, --codegen <KEY[=VAL[,..]]>
                               compilation options; accepted: cache[=y|n]:
                               keep the module as the runner rewrote it, to
                               compile it at once on the next run (default y;
                               also WASI_THREAD_POOL_CACHE=0, and
                               WASI_THREAD_POOL_CACHE_DIR for the directory)
  --max-threads <N>            at most N threads alive at once besides the
                               main thread; a spawn fails (pthread_create:
                               EAGAIN) only beyond (0 to 268435454; default
                               16384)
  --pool <N>                   at most N pool workers alive at once (1 to
                               268435454; default 1024); threads beyond wait
                               for a free worker
  --implementation <IMPL>      the pool's waits: native (the addon; the default
                               when it loads) or js
  -h, --help                   show this help
  -V, --version                show the version

Exit status: the program's proc_exit code (0 when _start returns);
proc_exit outside [0..126) is an error: 1. A trap on any thread: 134, with
the thread and the trap on stderr. A write into a pipe whose reader has gone
(wasi-thread-pool app.wasm | head -1): 141, as SIGPIPE ends a native
program, without a message. A module that cannot be read or linked (an
import the runner does not provide, or a WASI import of the wrong type), or
a bad WASI_THREAD_POOL_* variable: 1, before it runs, with the module's file
or the variable named. A usage error: 2.

The program's stdin, stdout and stderr are this process's. Not supported from
wasmtime's options: --invoke, --preload, other -S/-W/-C keys, and wasmtime's
other option groups (-O, -D).

Example (the program opens /data/input.txt, the host's ./data/input.txt):
  wasi-thread-pool run --dir ./data::/data --env LANES=8 --env HOME app.wasm /data/input.txt

As a cargo runner:
  CARGO_TARGET_WASM32_WASIP1_THREADS_RUNNER="wasi-thread-pool run --dir . --env RUST_BACKTRACE"

Every option, environment variable and exit status, the module cache, cargo:
  ${docsLink("cli.md")}
When something fails:
  ${docsLink("troubleshooting.md")}
The documentation:
  ${DOCS_URL}
`;

// -S / -W / -C keys this runner accepts. Every value is a wasmtime boolean
// (nothing, y, yes, true; n, no, false); turning threads off is refused: they
// are always on.
const ACCEPTED_KEYS = { "-S": ["threads"], "-W": ["threads"], "-C": ["cache"] };
const GROUP_NAMES = { "-S": "-S/--wasi", "-W": "-W/--wasm", "-C": "-C/--codegen" };
const TRUE_WORDS = [undefined, "y", "yes", "true"];
const FALSE_WORDS = ["n", "no", "false"];

// Options that take a value: the long and short spellings.
const VALUE_OPTIONS = new Map([
  ["--dir", "--dir"],
  ["--env", "--env"],
  ["--argv0", "--argv0"],
  ["--wasi", "-S"],
  ["-S", "-S"],
  ["--wasm", "-W"],
  ["-W", "-W"],
  ["--codegen", "-C"],
  ["-C", "-C"],
  ["--pool", "--pool"],
  ["--implementation", "--implementation"],
  ["--max-threads", "--max-threads"],
]);

const UNSUPPORTED = {
  "--invoke": "the runner runs a command's _start only",
  "--preload": "the runner links one module",
  "--mapdir": "wasmtime's old GUEST::HOST form is gone: use --dir HOST::GUEST",
};

function checkNoNul(what, text) {
  if (text.includes("\0")) throw new UsageError(`${what} contains a NUL character, which WASI cannot pass.`);
}

// "--dir=x" -> ["--dir", "x"]; "-Sthreads" / "-S=threads" -> ["-S", "threads"].
function splitInline(arg) {
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    return eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
  }
  if (/^-[SWC]./.test(arg)) return [arg.slice(0, 2), arg.slice(arg[2] === "=" ? 3 : 2)];
  return [arg, undefined];
}

function parseDir(spec) {
  const parts = spec.split("::");
  if (parts.length > 2) {
    throw new UsageError(`--dir takes HOST_DIR[::GUEST_DIR], one "::" (got ${JSON.stringify(spec)}).`);
  }
  const [host, guest = host] = parts;
  if (!host || !guest) throw new UsageError(`--dir needs HOST_DIR[::GUEST_DIR] (got ${JSON.stringify(spec)}).`);
  return { host, guest };
}

// The bytes after the first "=" (0x3d: never part of a longer UTF-8
// sequence, so it is the same "=" the text has), or null.
function afterEquals(bytes) {
  const at = bytes === null ? -1 : bytes.indexOf(0x3d);
  return at < 0 ? null : bytes.subarray(at + 1);
}

// What the program gets for `text` (lib/program/host-bytes.js, exactValue):
// the text, or its exact bytes when they are not UTF-8; NotUtf8Error naming
// `what` when it may be altered and its bytes are not known.
function exact(text, bytes, what) {
  const value = exactValue(text, bytes);
  if (value === null) {
    throw new NotUtf8Error(
      `${what} is not valid UTF-8 and its bytes cannot be read on this platform: it would reach the program altered.`,
    );
  }
  return value;
}

// --env NAME=VAL sets; --env NAME inherits (absent on the host: not set).
// bytes: the exact bytes of spec, or null; hostBytes: NAME -> the bytes of
// the host's value, or null.
function parseEnv(spec, hostEnv, env, bytes, hostBytes) {
  const eq = spec.indexOf("=");
  const name = eq < 0 ? spec : spec.slice(0, eq);
  if (!name) throw new UsageError(`--env needs NAME[=VAL] (got ${JSON.stringify(spec)}).`);
  checkNoNul(`--env ${name}'s value`, eq >= 0 ? spec.slice(eq + 1) : (hostEnv[name] ?? ""));
  const nameBytes = bytes === null ? null : bytes.subarray(0, eq < 0 ? bytes.length : bytes.indexOf(0x3d));
  if (typeof exact(name, nameBytes, `--env ${JSON.stringify(name)}: the name`) !== "string") {
    throw new NotUtf8Error(`--env ${JSON.stringify(name)}: the name is not valid UTF-8 (a WASI program's names are text here).`);
  }
  if (eq >= 0) env[name] = exact(spec.slice(eq + 1), afterEquals(bytes), `--env ${name}'s value`);
  else if (Object.hasOwn(hostEnv, name) && hostEnv[name] !== undefined) {
    env[name] = exact(hostEnv[name], hostBytes?.get(name) ?? null, `the host's ${name}`);
  } else delete env[name];
}

// -S threads,threads=y ... : every key must be one this runner accepts.
function parseWasmtimeKeys(group, list, opts) {
  const flag = GROUP_NAMES[group];
  for (const item of list.split(",")) {
    const eq = item.indexOf("=");
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? undefined : item.slice(eq + 1);
    if (!ACCEPTED_KEYS[group].includes(key)) {
      throw new UsageError(`${flag} key ${JSON.stringify(key)} is not supported (accepted: ${ACCEPTED_KEYS[group].join(", ")}).`);
    }
    const on = TRUE_WORDS.includes(value);
    if (!on && !FALSE_WORDS.includes(value)) {
      throw new UsageError(`${flag} ${key}: unknown boolean ${JSON.stringify(value)} (y, yes, true, nothing; n, no, false).`);
    }
    if (key === "cache") opts.cache = on;
    else if (!on) throw new UsageError(`${flag} ${key}=${value}: threads are always on in this runner.`);
  }
}

// A decimal integer from `least` to MOST_THREADS (the API's limit, checked
// here so that the message names the flag).
function integerOption(flag, text, least) {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < least || n > MOST_THREADS) {
    throw new UsageError(`${flag} must be an integer from ${least} to ${MOST_THREADS} (got ${JSON.stringify(text)}).`);
  }
  return n;
}

// bytes: the exact bytes of value, or null (not known).
function applyOption(opts, flag, value, { hostEnv, bytes, envBytes }) {
  if (flag === "--dir") {
    const { host, guest } = parseDir(value);
    opts.preopens[guest] = host;
  } else if (flag === "--env") parseEnv(value, hostEnv, opts.env, bytes, envBytes);
  else if (flag === "--argv0") opts.argv0 = exact(value, bytes, "--argv0");
  else if (Object.hasOwn(ACCEPTED_KEYS, flag)) parseWasmtimeKeys(flag, value, opts);
  else if (flag === "--pool") opts.poolSize = integerOption(flag, value, 1);
  else if (flag === "--max-threads") opts.maxThreads = integerOption(flag, value, 0);
  else if (flag === "--implementation") {
    if (value !== "native" && value !== "js") {
      throw new UsageError(`--implementation is "native" or "js" (got ${JSON.stringify(value)}).`);
    }
    opts.implementation = value;
  }
}

// argv: the arguments after the script (process.argv.slice(2)); hostEnv: the
// environment --env NAME inherits from; argvBytes (parallel to argv) and
// envBytes (NAME -> bytes): the exact bytes behind them where the platform
// lets the CLI read them (lib/program/host-bytes.js), or null. Returns
// {action: "help"}, {action: "version"} or {action: "run", file, args, env,
// preopens, argv0, poolSize, implementation, maxThreads, cache}; the program's
// arguments and environment values are strings, or Uint8Arrays of the exact
// bytes where those are not UTF-8 (NotUtf8Error, exit 1, where such bytes
// cannot be known).
export function parseCommandLine(argv, hostEnv = {}, { argvBytes = null, envBytes = null } = {}) {
  for (const arg of argv) checkNoNul("an argument", arg);
  let i = 0;
  if (argv[0] === "run") i = 1;
  else if (argv[0] === "help") return { action: "help" };
  const opts = {
    env: {},
    preopens: {},
    argv0: undefined,
    poolSize: undefined,
    maxThreads: undefined,
    implementation: undefined,
    cache: true,
  };
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break; // the module
    if (arg === "-h" || arg === "--help") return { action: "help" };
    if (arg === "-V" || arg === "--version") return { action: "version" };
    const [spelled, inline] = splitInline(arg);
    if (Object.hasOwn(UNSUPPORTED, spelled)) throw new UsageError(`${spelled} is not supported: ${UNSUPPORTED[spelled]}.`);
    const flag = VALUE_OPTIONS.get(spelled);
    if (flag === undefined) throw new UsageError(`unknown option ${arg}.`);
    let value = inline;
    let bytes = argvBytes === null ? null : afterEquals(argvBytes[i]);
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`${spelled} needs a value.`);
      value = argv[++i];
      bytes = argvBytes === null ? null : argvBytes[i];
    }
    applyOption(opts, flag, value, { hostEnv, bytes, envBytes });
  }
  if (i >= argv.length) throw new UsageError("no module given.");
  const first = i + 1;
  const args = argv.slice(first).map((arg, k) => exact(arg, argvBytes?.[first + k] ?? null, `the program's argument ${k + 1}`));
  return { action: "run", file: argv[i], args, ...opts };
}
