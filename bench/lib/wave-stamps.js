// Layout of the per-thread stamp table of the waves-pool scenario: K
// BigInt64 words per tid.
export const K = 6;
export const ST_SPAWN_START = 0; // main: just before spawn()
export const ST_SPAWN_END = 1; // main: spawn() returned
export const ST_ENTRY = 2; // worker: first statement of runThread
export const ST_INSTANTIATED = 3; // worker: new WebAssembly.Instance done
export const ST_GUEST_END = 4; // worker: wasi_thread_start returned
export const ST_IDLE = 5; // main: first saw the thread's slot leave RUNNING
