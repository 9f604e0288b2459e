// The link check of runWasiThreadsProgram: before anything runs, the
// supervisor compares the module's imports with what the runner provides,
// and refuses a module that cannot be linked with a WebAssembly.LinkError
// naming the import (the CLI: exit 1), as `wasmtime run` refuses it, instead
// of a trap in some thread's instantiation.
//
// The runner provides:
//   - wasi_snapshot_preview1: the functions of PREVIEW1_SIGNATURES (the C
//     WASI's import table, src/wasi/wasi_imports.c, plus proc_exit: the same
//     names and parameter kinds, test/binding-wasi.test.js);
//   - wasi "thread-spawn" (i32) -> i32, to a wasi-threads program;
//   - one memory, under whatever name the module imports it
//     (lib/worker/wasm-memory.js checks its type).

// WASI preview1's functions (the witx of wasi_snapshot_preview1) as core
// wasm types: parameters, then results.
const I = "i32";
const L = "i64";
const sig = (params, results = [I]) => ({ params, results });

export const PREVIEW1_SIGNATURES = Object.freeze({
  args_get: sig([I, I]),
  args_sizes_get: sig([I, I]),
  environ_get: sig([I, I]),
  environ_sizes_get: sig([I, I]),
  clock_res_get: sig([I, I]),
  clock_time_get: sig([I, L, I]),
  fd_advise: sig([I, L, L, I]),
  fd_allocate: sig([I, L, L]),
  fd_close: sig([I]),
  fd_datasync: sig([I]),
  fd_fdstat_get: sig([I, I]),
  fd_fdstat_set_flags: sig([I, I]),
  fd_fdstat_set_rights: sig([I, L, L]),
  fd_filestat_get: sig([I, I]),
  fd_filestat_set_size: sig([I, L]),
  fd_filestat_set_times: sig([I, L, L, I]),
  fd_pread: sig([I, I, I, L, I]),
  fd_prestat_get: sig([I, I]),
  fd_prestat_dir_name: sig([I, I, I]),
  fd_pwrite: sig([I, I, I, L, I]),
  fd_read: sig([I, I, I, I]),
  fd_readdir: sig([I, I, I, L, I]),
  fd_renumber: sig([I, I]),
  fd_seek: sig([I, L, I, I]),
  fd_sync: sig([I]),
  fd_tell: sig([I, I]),
  fd_write: sig([I, I, I, I]),
  path_create_directory: sig([I, I, I]),
  path_filestat_get: sig([I, I, I, I, I]),
  path_filestat_set_times: sig([I, I, I, I, L, L, I]),
  path_link: sig([I, I, I, I, I, I, I]),
  path_open: sig([I, I, I, I, I, L, L, I, I]),
  path_readlink: sig([I, I, I, I, I, I]),
  path_remove_directory: sig([I, I, I]),
  path_rename: sig([I, I, I, I, I, I]),
  path_symlink: sig([I, I, I, I, I]),
  path_unlink_file: sig([I, I, I]),
  poll_oneoff: sig([I, I, I, I]),
  proc_exit: sig([I], []),
  proc_raise: sig([I]),
  random_get: sig([I, I]),
  sched_yield: sig([]),
  sock_accept: sig([I, I, I]),
  sock_recv: sig([I, I, I, I, I, I]),
  sock_send: sig([I, I, I, I, I]),
  sock_shutdown: sig([I, I]),
});

const THREAD_SPAWN = sig([I]);

const typeText = ({ params, results }) => `(${params.join(", ")}) -> (${results.join(", ")})`;
const sameType = (a, b) => typeText(a) === typeText(b);

function refuse(entry, why) {
  throw new WebAssembly.LinkError(`cannot link the module: import "${entry.module}" "${entry.name}": ${why}.`);
}

// What the runner would link `entry` to: a function type, "memory", or null.
function provided(entry, threaded) {
  if (entry.kind === "memory") return "memory";
  if (entry.module === "wasi_snapshot_preview1") return PREVIEW1_SIGNATURES[entry.name] ?? null;
  if (entry.module === "wasi" && entry.name === "thread-spawn" && threaded) return THREAD_SPAWN;
  return null;
}

// imports: readMemoryDeclarations(...).all; threaded: whether the runner
// links wasi "thread-spawn". Throws a WebAssembly.LinkError for the first
// import that cannot be linked.
export function checkProgramImports(imports, { threaded }) {
  for (const entry of imports) {
    const want = provided(entry, threaded);
    if (want === null) {
      const what =
        entry.module === "wasi_snapshot_preview1" ? "WASI preview1 has no such function" : "the runner provides no such import";
      refuse(entry, `unknown import (${entry.kind}): ${what}`);
    }
    if (want === "memory") continue;
    if (entry.kind !== "function") refuse(entry, `expected a function ${typeText(want)}, found a ${entry.kind}`);
    if (entry.type !== null && !sameType(entry.type, want)) {
      refuse(entry, `function types incompatible: expected ${typeText(want)}, found ${typeText(entry.type)}`);
    }
  }
}
