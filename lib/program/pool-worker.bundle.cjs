// Built from lib/program/pool-worker.js by scripts/bundle-workers.js: do not edit; run
// `node scripts/bundle-workers.js` after changing any file it imports.
const __wtpImportMetaUrl = require("node:url").pathToFileURL(__filename).href;
var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// lib/native/prebuilds.js
function currentTarget() {
  const platform = process.env.npm_config_platform || process.platform;
  const arch = process.env.npm_config_arch || process.arch;
  if (platform !== "linux") return `${platform}-${arch}`;
  const libc = process.env.LIBC || ((0, import_node_fs.existsSync)("/etc/alpine-release") ? "musl" : "glibc");
  return `${platform}-${arch} (${libc})`;
}
function presentPrebuilds(root2) {
  const out = [];
  let folders;
  try {
    folders = (0, import_node_fs.readdirSync)((0, import_node_path.join)(root2, "prebuilds"));
  } catch {
    return out;
  }
  for (const folder of folders) {
    let files;
    try {
      files = (0, import_node_fs.readdirSync)((0, import_node_path.join)(root2, "prebuilds", folder)).filter((f) => f.endsWith(".node"));
    } catch {
      continue;
    }
    for (const file of files) {
      const libc = /\.(glibc|musl)\./.exec(file);
      out.push(libc ? `${folder} (${libc[1]})` : folder);
    }
  }
  return out.sort();
}
function explainLoadFailure(root2, error, path = null) {
  const message = String(error?.message ?? error).split("\n")[0];
  const present = presentPrebuilds(root2);
  const list = present.length ? present.join(", ") : "none";
  const here = currentTarget();
  if (path === null || /No native build was found/.test(message)) {
    return `no prebuild for ${here} (the package has prebuilds for: ${list}) and no local build (build/Release), which the install makes when a C compiler and Python are present (npm rebuild wasi-thread-pool); node-gyp-build: ${message}`;
  }
  const relative = path.startsWith(root2) ? path.slice(root2.length).replace(/^[/\\]/, "") : path;
  return `the addon ${relative} (for ${here}; prebuilds present: ${list}) did not load: ${message}`;
}
var import_node_fs, import_node_path;
var init_prebuilds = __esm({
  "lib/native/prebuilds.js"() {
    import_node_fs = require("node:fs");
    import_node_path = require("node:path");
  }
});

// lib/native/binding.js
function foundByParent() {
  const path = import_node_worker_threads.workerData?.wasiThreadPoolAddonPath;
  return typeof path === "string" && path.length > 0 ? path : null;
}
function load() {
  if (process.env.WASI_THREAD_POOL_NO_ADDON === "1") {
    return { binding: null, path: null, error: "WASI_THREAD_POOL_NO_ADDON=1" };
  }
  let path = null;
  try {
    path = process.env.WASI_THREAD_POOL_ADDON || foundByParent() || require2("node-gyp-build").resolve(root);
    const binding = require2(path);
    return { binding, path, error: null, threadId: import_node_worker_threads.threadId };
  } catch (error) {
    return { binding: null, path: null, error: explainLoadFailure(root, error, path) };
  }
}
var import_node_module, import_node_url, import_node_worker_threads, require2, root, native;
var init_binding = __esm({
  "lib/native/binding.js"() {
    import_node_module = require("node:module");
    import_node_url = require("node:url");
    import_node_worker_threads = require("node:worker_threads");
    init_prebuilds();
    require2 = (0, import_node_module.createRequire)(__wtpImportMetaUrl);
    root = (0, import_node_url.fileURLToPath)(new URL("../..", __wtpImportMetaUrl));
    native = load();
  }
});

// lib/pool/backend.js
function useNativeBackend({ native: native2, env, beforeNativeUse }) {
  backend.native = native2;
  backend.addon = native2?.binding ?? null;
  backend.env = env;
  backend.beforeNativeUse = beforeNativeUse;
}
var backend;
var init_backend = __esm({
  "lib/pool/backend.js"() {
    backend = {
      // { binding, error, path, threadId } from lib/native/binding.js, or null: no addon
      // loader in this thread (browser build).
      native: null,
      // native.binding, the addon's functions, or null.
      addon: null,
      // Environment variables to read WASI_THREAD_POOL_IMPLEMENTATION from, or null.
      env: null,
      // Called before this thread's first native call (lib/native-hooks.js).
      beforeNativeUse: () => {
      }
    };
  }
});

// lib/native/backend.js
function installNativeHooks() {
  if (hooked || native.binding === null) return;
  hooked = true;
  const terminate = import_node_worker_threads2.Worker.prototype.terminate;
  const { interruptThread, interruptAll } = native.binding;
  import_node_worker_threads2.Worker.prototype.terminate = function terminateWorker(...args) {
    if (Number.isInteger(this.threadId) && this.threadId >= 0) interruptThread(this.threadId);
    return terminate.apply(this, args);
  };
  if (import_node_worker_threads2.isMainThread) process.once("exit", () => interruptAll());
}
var import_node_worker_threads2, hooked;
var init_backend2 = __esm({
  "lib/native/backend.js"() {
    import_node_worker_threads2 = require("node:worker_threads");
    init_binding();
    init_backend();
    hooked = false;
    useNativeBackend({ native, env: process.env, beforeNativeUse: installNativeHooks });
  }
});

// lib/pool/layout.js
function maxSlotsOf(length) {
  return length < HEADER_WORDS ? 0 : Math.floor((length - HEADER_WORDS) / SLOT_WORDS);
}
function slotBase(slot) {
  return HEADER_WORDS + SLOT_WORDS * slot;
}
var DEFAULT_WASI_THREAD_SPAWN_WAIT_MS, HEADER_WORDS, SLOT_WORDS, H_GENERATION, H_NEXT_TID, H_SPAWNED, H_WAITED, H_DECLINED, H_SLOTS, H_CAPACITY, H_IMPL, S_STATE, S_TID, S_ARG, S_FLAGS, S_THREAD, WASI_THREAD_POOL_SLOT, FLAG_MESSAGE_DISPATCH, MAX_TID, GROW_AFTER_MS, IMPL_JS, IMPL_NATIVE, IMPL_CLOSED, IMPL_MASK;
var init_layout = __esm({
  "lib/pool/layout.js"() {
    DEFAULT_WASI_THREAD_SPAWN_WAIT_MS = 250;
    HEADER_WORDS = 8;
    SLOT_WORDS = 8;
    H_GENERATION = 0;
    H_NEXT_TID = 1;
    H_SPAWNED = 2;
    H_WAITED = 3;
    H_DECLINED = 4;
    H_SLOTS = 5;
    H_CAPACITY = 6;
    H_IMPL = 7;
    S_STATE = 0;
    S_TID = 1;
    S_ARG = 2;
    S_FLAGS = 3;
    S_THREAD = 4;
    WASI_THREAD_POOL_SLOT = Object.freeze({
      PENDING: 0,
      IDLE: 1,
      CLAIMED: 2,
      ASSIGNED: 3,
      RUNNING: 4,
      RETIRED: 5
    });
    FLAG_MESSAGE_DISPATCH = 1;
    MAX_TID = 536870911;
    GROW_AFTER_MS = 2;
    IMPL_JS = 0;
    IMPL_NATIVE = 2004119662;
    IMPL_CLOSED = -2147483648;
    IMPL_MASK = 2147483647;
  }
});

// lib/pool/reasons.js
var POOL_DECLINE_REASONS, HOST_DECLINE_REASONS, DECLINE;
var init_reasons = __esm({
  "lib/pool/reasons.js"() {
    POOL_DECLINE_REASONS = Object.freeze([
      null,
      "pool-exhausted",
      "worker-create-failed",
      "tid-exhausted",
      "dispatch-failed",
      "interrupted",
      "terminated"
    ]);
    HOST_DECLINE_REASONS = Object.freeze([
      "threads-unavailable",
      "pool-empty",
      "pool-not-armed",
      "hostcall-channel-missing",
      "pool-disabled"
    ]);
    DECLINE = Object.freeze({
      POOL_EXHAUSTED: "pool-exhausted",
      WORKER_CREATE_FAILED: "worker-create-failed",
      TID_EXHAUSTED: "tid-exhausted",
      DISPATCH_FAILED: "dispatch-failed",
      INTERRUPTED: "interrupted",
      TERMINATED: "terminated",
      THREADS_UNAVAILABLE: "threads-unavailable",
      POOL_EMPTY: "pool-empty",
      POOL_NOT_ARMED: "pool-not-armed",
      HOSTCALL_CHANNEL_MISSING: "hostcall-channel-missing",
      POOL_DISABLED: "pool-disabled"
    });
  }
});

// lib/pool/twin.js
function capacityOf(control) {
  const capacity = Atomics.load(control, H_CAPACITY);
  const max = maxSlotsOf(control.length);
  return capacity <= 0 ? 0 : capacity < max ? capacity : max;
}
function slotsOf(control, capacity) {
  const slots = Atomics.load(control, H_SLOTS);
  return slots <= 0 ? 0 : slots < capacity ? slots : capacity;
}
function bumpGeneration(control) {
  Atomics.add(control, H_GENERATION, 1);
  Atomics.notify(control, H_GENERATION);
}
function setState(control, slot, state) {
  const index = slotBase(slot) + S_STATE;
  Atomics.store(control, index, state);
  Atomics.notify(control, index);
  bumpGeneration(control);
}
function terminateWasiThreadPool(pool) {
  const control = pool.control;
  Atomics.or(control, H_IMPL, IMPL_CLOSED);
  const capacity = capacityOf(control);
  let done = 0;
  for (; ; ) {
    const slots = slotsOf(control, capacity);
    if (done >= slots) break;
    for (; done < slots; done++) setState(control, done, RETIRED);
  }
  bumpGeneration(control);
  return done;
}
function isClosed(control) {
  return (Atomics.load(control, H_IMPL) & IMPL_CLOSED) !== 0;
}
function openWasiThreadPoolSlots(pool, count) {
  Atomics.store(pool.control, H_SLOTS, count);
}
function armWasiThreadPoolSlot(pool, slot, { messageDispatch = false } = {}) {
  const control = pool.control;
  const index = slotBase(slot) + S_STATE;
  if (Atomics.load(control, index) !== PENDING) return;
  if (messageDispatch) {
    Atomics.store(control, slotBase(slot) + S_FLAGS, FLAG_MESSAGE_DISPATCH);
  }
  if (Atomics.compareExchange(control, index, PENDING, IDLE) !== PENDING) return;
  Atomics.notify(control, index);
  bumpGeneration(control);
}
function retireWasiThreadPoolSlot(pool, slot) {
  setState(pool.control, slot, RETIRED);
}
function wasiThreadPoolSlotState(pool, slot) {
  return Atomics.load(pool.control, slotBase(slot) + S_STATE);
}
function wasiThreadPoolLastTid(pool, slot) {
  return Atomics.load(pool.control, slotBase(slot) + S_TID);
}
function wasiThreadPoolRunningTid(pool, slot) {
  const control = pool.control;
  const base = slotBase(slot);
  const state = Atomics.load(control, base + S_STATE);
  return state === ASSIGNED || state === RUNNING ? Atomics.load(control, base + S_TID) : null;
}
function releaseWasiThreadPoolSlotIfRunning(pool, slot, tid) {
  const control = pool.control;
  const base = slotBase(slot);
  for (; ; ) {
    const state = Atomics.load(control, base + S_STATE);
    if (state !== ASSIGNED && state !== RUNNING) return false;
    if (Atomics.load(control, base + S_TID) !== tid) return false;
    if (Atomics.compareExchange(control, base + S_STATE, state, IDLE) === state) {
      bumpGeneration(control);
      return true;
    }
  }
}
function finishWasiThreadPoolRun(pool, slot) {
  const control = pool.control;
  if (Atomics.compareExchange(control, slotBase(slot) + S_STATE, RUNNING, IDLE) === RUNNING) {
    bumpGeneration(control);
  }
}
function serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId = 0 } = {}) {
  const control = pool.control;
  const base = slotBase(slot);
  const index = base + S_STATE;
  if (osThreadId) Atomics.store(control, base + S_THREAD, osThreadId);
  for (; ; ) {
    const state = Atomics.load(control, index);
    if (state === RETIRED) return;
    if (state !== ASSIGNED) {
      Atomics.wait(control, index, state);
      continue;
    }
    if (Atomics.compareExchange(control, index, ASSIGNED, RUNNING) !== ASSIGNED) continue;
    const tid = Atomics.load(control, base + S_TID);
    const startArg = Atomics.load(control, base + S_ARG);
    let result;
    try {
      result = runThread(tid, startArg);
    } catch (error) {
      setState(control, slot, RETIRED);
      throw error;
    }
    if (result === false) {
      setState(control, slot, RETIRED);
      return;
    }
    finishWasiThreadPoolRun(pool, slot);
  }
}
function readWasiThreadPoolReport(pool) {
  const control = pool.control;
  const slots = slotsOf(control, capacityOf(control));
  let active = 0;
  let idle = 0;
  let workers = 0;
  for (let slot = 0; slot < slots; slot++) {
    const base = slotBase(slot);
    const state = Atomics.load(control, base + S_STATE);
    if (state === CLAIMED || state === ASSIGNED || state === RUNNING) active++;
    else if (state === IDLE) idle++;
    if (Atomics.load(control, base + S_THREAD) !== 0) workers++;
  }
  return {
    spawned: Atomics.load(control, H_SPAWNED),
    waited: Atomics.load(control, H_WAITED),
    declined: Atomics.load(control, H_DECLINED),
    slots,
    active,
    idle,
    workers
  };
}
function nextTid(control) {
  let t = Atomics.load(control, H_NEXT_TID);
  for (; ; ) {
    if (t < 1 || t > MAX_TID) return t;
    const seen = Atomics.compareExchange(control, H_NEXT_TID, t, t + 1);
    if (seen === t) return t;
    t = seen;
  }
}
function createSpawner(pool, owner, grow, dispatchMessage) {
  const control = pool.control;
  return {
    pool,
    control,
    owner,
    grow,
    growable: typeof grow === "function",
    dispatchMessage,
    spawnWaitMs: pool.spawnWaitMs ?? DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
    capacity: capacityOf(control),
    starvedAt: null,
    canBlock: true,
    // Claimable, non-retired slots the last scan saw. Read right after the
    // scan that sets it, before any callback can run another scan.
    live: 0,
    // The claimed slot's message-dispatch bit, read once right after the claim
    // (refinement: the SDK reads S_FLAGS again after the assignment, so a
    // write in between changed the path). Set by scan() and growOne().
    dispatch: false
  };
}
function scan(spawner) {
  const { control, owner } = spawner;
  const slots = slotsOf(control, spawner.capacity);
  let seen = 0;
  for (let slot = 0; slot < slots; slot++) {
    const base = slotBase(slot);
    if (!owner && (Atomics.load(control, base + S_FLAGS) & FLAG_MESSAGE_DISPATCH) !== 0) {
      continue;
    }
    if (Atomics.compareExchange(control, base + S_STATE, IDLE, CLAIMED) === IDLE) {
      const dispatch = (Atomics.load(control, base + S_FLAGS) & FLAG_MESSAGE_DISPATCH) !== 0;
      spawner.dispatch = dispatch;
      if (!owner && dispatch) {
        if (Atomics.compareExchange(control, base + S_STATE, CLAIMED, IDLE) === CLAIMED) {
          bumpGeneration(control);
        }
        seen++;
        continue;
      }
      spawner.live = seen + 1;
      return slot;
    }
    if (Atomics.load(control, base + S_STATE) !== RETIRED) seen++;
  }
  spawner.live = seen;
  return -1;
}
function hasRoom(spawner) {
  if (!spawner.growable) return false;
  const n = Atomics.load(spawner.control, H_SLOTS);
  return n >= 0 && n < spawner.capacity;
}
function reserve(spawner) {
  const control = spawner.control;
  for (; ; ) {
    const n = Atomics.load(control, H_SLOTS);
    if (n < 0 || n >= spawner.capacity) return -1;
    if (Atomics.compareExchange(control, H_SLOTS, n, n + 1) === n) {
      if (Atomics.compareExchange(control, slotBase(n) + S_STATE, PENDING, CLAIMED) !== PENDING) {
        return isClosed(control) ? -2 : -1;
      }
      if (isClosed(control)) {
        setState(control, n, RETIRED);
        return -2;
      }
      return n;
    }
  }
}
function growOne(spawner, attempt) {
  const slot = reserve(spawner);
  if (slot === -2) {
    attempt.reason = TERMINATED;
    return -1;
  }
  if (slot < 0) return -1;
  spawner.dispatch = false;
  try {
    spawner.grow(slot);
  } catch {
    setState(spawner.control, slot, RETIRED);
    attempt.reason = WORKER_CREATE_FAILED;
    return -1;
  }
  if (isClosed(spawner.control)) {
    setState(spawner.control, slot, RETIRED);
    attempt.reason = TERMINATED;
    return -1;
  }
  return slot;
}
function claim(spawner, attempt) {
  const control = spawner.control;
  if (attempt.deadline < 0) {
    const now = monotonicNow();
    attempt.deadline = now + (spawner.canBlock ? spawner.spawnWaitMs : 0);
    attempt.growAt = now + (spawner.canBlock ? Math.min(GROW_AFTER_MS, spawner.spawnWaitMs) : 0);
  }
  for (; ; ) {
    const generation = Atomics.load(control, H_GENERATION);
    if (isClosed(control)) {
      attempt.reason = TERMINATED;
      return -1;
    }
    const slot = scan(spawner);
    if (slot >= 0) return slot;
    const room = hasRoom(spawner);
    if (room && (spawner.live === 0 || monotonicNow() >= attempt.growAt)) {
      const grown = growOne(spawner, attempt);
      if (grown >= 0 || attempt.reason !== null) return grown;
      continue;
    }
    if (spawner.live === 0) return exhausted(attempt);
    if (generation === spawner.starvedAt && !room) return exhausted(attempt);
    const remaining = (room ? attempt.growAt : attempt.deadline) - monotonicNow();
    if (!room && remaining <= 0) {
      spawner.starvedAt = generation;
      return exhausted(attempt);
    }
    if (remaining > 0) {
      try {
        Atomics.wait(control, H_GENERATION, generation, remaining);
      } catch {
        spawner.canBlock = false;
        if (!room) return exhausted(attempt);
        attempt.growAt = 0;
        continue;
      }
      attempt.waited = true;
    }
  }
}
function exhausted(attempt) {
  attempt.reason = POOL_EXHAUSTED;
  return -1;
}
function decline(control, why) {
  if (why === POOL_EXHAUSTED) Atomics.add(control, H_DECLINED, 1);
  return { tid: -1, slot: -1, reason: why };
}
function takeTid(control, slot) {
  const tid = nextTid(control);
  if (tid > MAX_TID || tid < 1) {
    Atomics.compareExchange(control, slotBase(slot) + S_STATE, CLAIMED, IDLE);
    bumpGeneration(control);
    return 0;
  }
  return tid;
}
function publish(control, slot, tid, startArg) {
  const base = slotBase(slot);
  const lastTid = Atomics.load(control, base + S_TID);
  Atomics.store(control, base + S_TID, tid);
  Atomics.store(control, base + S_ARG, startArg | 0);
  if (Atomics.compareExchange(control, base + S_STATE, CLAIMED, ASSIGNED) === CLAIMED) {
    return true;
  }
  Atomics.compareExchange(control, base + S_TID, tid, lastTid);
  return false;
}
function dispatchThread(spawner, slot, tid, startArg, attempt) {
  const control = spawner.control;
  if (spawner.dispatch) {
    try {
      spawner.dispatchMessage(slot, tid, startArg);
    } catch {
      releaseWasiThreadPoolSlotIfRunning(spawner.pool, slot, tid);
      return decline(control, DISPATCH_FAILED);
    }
  } else {
    Atomics.notify(control, slotBase(slot) + S_STATE);
  }
  Atomics.add(control, H_SPAWNED, 1);
  if (attempt !== null && attempt.waited) Atomics.add(control, H_WAITED, 1);
  return { tid, slot, reason: null };
}
function spawnOn(spawner, startArg) {
  const control = spawner.control;
  if (isClosed(control)) return decline(control, TERMINATED);
  let slot = scan(spawner);
  let attempt = null;
  let tid = 0;
  for (; ; ) {
    if (slot < 0) {
      attempt ??= { deadline: -1, growAt: 0, waited: false, reason: null };
      slot = claim(spawner, attempt);
      if (slot < 0) return decline(control, attempt.reason);
    }
    if (tid === 0) {
      tid = takeTid(control, slot);
      if (tid === 0) return decline(control, TID_EXHAUSTED);
    }
    if (publish(control, slot, tid, startArg)) break;
    slot = scan(spawner);
  }
  return dispatchThread(spawner, slot, tid, startArg, attempt);
}
function createWasiThreadPoolSpawn(pool, { owner = false, grow = null, dispatchMessage = null } = {}) {
  const spawner = createSpawner(pool, owner, grow, dispatchMessage);
  return function spawn(startArg) {
    return spawnOn(spawner, startArg);
  };
}
var PENDING, IDLE, CLAIMED, ASSIGNED, RUNNING, RETIRED, POOL_EXHAUSTED, WORKER_CREATE_FAILED, TID_EXHAUSTED, DISPATCH_FAILED, TERMINATED, monotonicNow;
var init_twin = __esm({
  "lib/pool/twin.js"() {
    init_layout();
    init_reasons();
    ({ PENDING, IDLE, CLAIMED, ASSIGNED, RUNNING, RETIRED } = WASI_THREAD_POOL_SLOT);
    ({ POOL_EXHAUSTED, WORKER_CREATE_FAILED, TID_EXHAUSTED, DISPATCH_FAILED, TERMINATED } = DECLINE);
    monotonicNow = typeof performance !== "undefined" && typeof performance.now === "function" ? () => performance.now() : () => Date.now();
  }
});

// lib/pool/validate.js
function checkPool(pool) {
  if (pool === null || typeof pool !== "object") {
    throw new TypeError("pool must be a pool descriptor ({ control, spawnWaitMs }).");
  }
  const { control } = pool;
  if (!(control instanceof Int32Array)) {
    throw new TypeError("pool.control must be an Int32Array.");
  }
  if (typeof SharedArrayBuffer === "undefined" || !(control.buffer instanceof SharedArrayBuffer)) {
    throw new TypeError("pool.control must be backed by a SharedArrayBuffer.");
  }
  if (control.length < HEADER_WORDS) {
    throw new RangeError(`pool.control must hold at least ${HEADER_WORDS} words (the pool header).`);
  }
  return control;
}
function checkSlot(control, slot) {
  if (typeof slot !== "number") {
    throw new TypeError("slot must be a number.");
  }
  const limit = maxSlotsOf(control.length);
  if (!Number.isInteger(slot) || slot < 0 || slot >= limit) {
    throw new RangeError(`slot must be an integer in [0, ${limit}) for this pool buffer.`);
  }
  return slot;
}
function checkPoolSpawnWaitMs(pool) {
  const value = pool.spawnWaitMs;
  if (value === void 0 || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(`pool.${SPAWN_WAIT_MESSAGE}`);
  }
  return value;
}
var SPAWN_WAIT_MESSAGE;
var init_validate = __esm({
  "lib/pool/validate.js"() {
    init_layout();
    SPAWN_WAIT_MESSAGE = "spawnWaitMs must be a finite, non-negative number of milliseconds.";
  }
});

// lib/pool/internal.js
function handleOf(control) {
  let handle = handles.get(control);
  if (handle === void 0) {
    backend.beforeNativeUse();
    handle = backend.addon.open(control);
    handles.set(control, handle);
  }
  return handle;
}
function nativeUnavailable() {
  const why = backend.native?.error ?? "the native addon is not available in this runtime";
  return new Error(
    `wasi-thread-pool: this pool uses native waits, but the addon is not loaded in this thread (${why}). Create the pool with implementation: "js" to share it with threads that cannot load the addon.`
  );
}
function isNative(control) {
  const tag = control[H_IMPL] & IMPL_MASK;
  if (tag === IMPL_NATIVE) {
    if (backend.addon === null) throw nativeUnavailable();
    return true;
  }
  if (tag === IMPL_JS) return false;
  throw new Error(
    `wasi-thread-pool: pool.control word ${H_IMPL} holds ${control[H_IMPL]}, which names no wait mechanism; the pool header was overwritten.`
  );
}
function createNativeSpawn(control, handle, spawnWaitMs, { owner = false, grow = null, dispatchMessage = null } = {}) {
  let currentStartArg;
  const dispatch = dispatchMessage && ((slot, tid) => dispatchMessage(slot, tid, currentStartArg));
  const out = new Int32Array(new SharedArrayBuffer(4));
  const spawner = backend.addon.createSpawner(handle, spawnWaitMs, owner, grow, dispatch, out, backend.native.threadId, control);
  const spawn = backend.addon.spawn;
  return function spawnWasiThread(startArg) {
    currentStartArg = startArg;
    const result = spawn(spawner, startArg | 0, grow, dispatch);
    if (result > 0) return { tid: result, slot: out[0], reason: null };
    return { tid: -1, slot: -1, reason: POOL_DECLINE_REASONS[-result] ?? DECLINE.POOL_EXHAUSTED };
  };
}
function createTwinSpawn(pool, control, spawnWaitMs, options) {
  const descriptor = pool.spawnWaitMs === spawnWaitMs ? pool : { control, spawnWaitMs };
  return createWasiThreadPoolSpawn(descriptor, options);
}
function nativeOperations(control, spawnWaitMs) {
  const addon = backend.addon;
  const handle = handleOf(control);
  return {
    openSlots: (count) => addon.openSlots(handle, count, control),
    arm: (slot, messageDispatch) => addon.arm(handle, slot, messageDispatch, control),
    retire: (slot) => addon.retire(handle, slot, control),
    slotState: (slot) => addon.slotState(handle, slot, control),
    lastTid: (slot) => addon.lastTid(handle, slot, control),
    runningTid: (slot) => addon.runningTid(handle, slot, control),
    release: (slot, tid) => addon.release(handle, slot, tid, control),
    serve: (slot, runThread, osThreadId = 0) => addon.serve(handle, slot, runThread, osThreadId, backend.native.threadId, control),
    report: () => addon.report(handle, control),
    terminate: () => addon.close(handle, control),
    createSpawn: (options) => createNativeSpawn(control, handle, spawnWaitMs, options)
  };
}
function twinOperations(pool, control, spawnWaitMs) {
  return {
    openSlots: (count) => openWasiThreadPoolSlots(pool, count),
    arm: (slot, messageDispatch) => armWasiThreadPoolSlot(pool, slot, { messageDispatch }),
    retire: (slot) => retireWasiThreadPoolSlot(pool, slot),
    slotState: (slot) => wasiThreadPoolSlotState(pool, slot),
    lastTid: (slot) => wasiThreadPoolLastTid(pool, slot),
    runningTid: (slot) => wasiThreadPoolRunningTid(pool, slot),
    release: (slot, tid) => releaseWasiThreadPoolSlotIfRunning(pool, slot, tid),
    serve: (slot, runThread, osThreadId = 0) => serveWasiThreadPoolSlot(pool, slot, { runThread, osThreadId }),
    report: () => readWasiThreadPoolReport(pool),
    terminate: () => terminateWasiThreadPool(pool),
    createSpawn: (options) => createTwinSpawn(pool, control, spawnWaitMs, options)
  };
}
function bindWasiThreadPool(pool) {
  const control = checkPool(pool);
  const spawnWaitMs = checkPoolSpawnWaitMs(pool);
  return isNative(control) ? nativeOperations(control, spawnWaitMs) : twinOperations(pool, control, spawnWaitMs);
}
var handles;
var init_internal = __esm({
  "lib/pool/internal.js"() {
    init_twin();
    init_layout();
    init_backend();
    init_reasons();
    init_validate();
    handles = /* @__PURE__ */ new WeakMap();
  }
});

// lib/worker/write-sync.js
function writeAllSync(fd, bytes, maxRetries = 1e3) {
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += (0, import_node_fs2.writeSync)(fd, bytes, offset, bytes.length - offset);
      retries = 0;
    } catch (error) {
      if (error?.code === "EAGAIN" && retries++ < maxRetries) {
        Atomics.wait(backoff, 0, 0, 1);
        continue;
      }
      throw error;
    }
  }
}
var import_node_fs2, backoff;
var init_write_sync = __esm({
  "lib/worker/write-sync.js"() {
    import_node_fs2 = require("node:fs");
    backoff = new Int32Array(new SharedArrayBuffer(4));
  }
});

// lib/program/control.js
function ringCopyIn(ringBytes, at, bytes) {
  const mask = ringBytes.length - 1;
  const start = at & mask;
  const first = Math.min(bytes.length, ringBytes.length - start);
  ringBytes.set(bytes.subarray(0, first), start);
  if (first < bytes.length) ringBytes.set(bytes.subarray(first), 0);
}
function writeOutputRing(program, fd, bytes) {
  const { control, outRing } = program;
  if (bytes.length === 0) return;
  const chunkBytes = outRing.length / 4;
  while (Atomics.compareExchange(control, C_OUT_LOCK, 0, 1) !== 0) Atomics.wait(control, C_OUT_LOCK, 1);
  try {
    for (let offset = 0; offset < bytes.length; ) {
      const chunk = bytes.subarray(offset, offset + chunkBytes);
      const need = OUT_RECORD_HEADER + chunk.length;
      for (; ; ) {
        const tail = Atomics.load(control, C_OUT_TAIL);
        const head2 = Atomics.load(control, C_OUT_HEAD);
        if (outRing.length - (head2 - tail >>> 0) >= need) break;
        Atomics.wait(control, C_OUT_TAIL, tail);
      }
      const head = Atomics.load(control, C_OUT_HEAD);
      const header = new Uint8Array(OUT_RECORD_HEADER);
      header[0] = fd;
      new DataView(header.buffer).setUint32(1, chunk.length, true);
      ringCopyIn(outRing, head, header);
      ringCopyIn(outRing, head + OUT_RECORD_HEADER, chunk);
      Atomics.store(control, C_OUT_HEAD, head + need | 0);
      ring(control);
      offset += chunk.length;
    }
  } finally {
    Atomics.store(control, C_OUT_LOCK, 0);
    Atomics.notify(control, C_OUT_LOCK, 1);
  }
}
function ring(control) {
  Atomics.add(control, C_DOORBELL, 1);
  Atomics.notify(control, C_DOORBELL);
}
function parkForever(control) {
  for (; ; ) Atomics.wait(control, C_PARK, 0);
}
function setProcessEnder(ender) {
  processEnder = ender;
}
function afterEnd(program, won, onEnd) {
  onEnd?.();
  if (won && processEnder !== null) processEnder(program);
  parkForever(program.control);
}
function endProgram(program, code, onEnd) {
  const status = code >>> 0;
  if (status >= MAX_EXIT_STATUS) {
    endWithText(program, STATE_FAILED, `proc_exit(${status}): exit with invalid exit status outside of [0..126)`, onEnd);
  }
  const { control } = program;
  const won = Atomics.compareExchange(control, C_STATE, STATE_RUNNING, STATE_EXITED) === STATE_RUNNING;
  if (won) {
    Atomics.store(control, C_EXIT_CODE, status);
    ring(control);
  }
  afterEnd(program, won, onEnd);
}
function trapProgram(program, thread, error) {
  endWithText(program, STATE_TRAPPED, `${thread} trapped: ${error?.stack ?? String(error)}`);
}
function endWithText(program, state, message, onEnd) {
  const { control, trapText } = program;
  const won = Atomics.compareExchange(control, C_STATE, STATE_RUNNING, state) === STATE_RUNNING;
  if (won) {
    const text = new TextEncoder().encode(message);
    const length = Math.min(text.length, trapText.length);
    trapText.set(text.subarray(0, length));
    Atomics.store(control, C_TRAP_LEN, length);
    ring(control);
  }
  afterEnd(program, won, onEnd);
}
function programEnded(program) {
  return Atomics.load(program.control, C_STATE) !== STATE_RUNNING;
}
function programOutcome(program) {
  const { control, trapText } = program;
  const state = Atomics.load(control, C_STATE);
  if (state === STATE_RUNNING) return null;
  if (state === STATE_TRAPPED || state === STATE_FAILED) {
    const text = new TextDecoder().decode(trapText.slice(0, Atomics.load(control, C_TRAP_LEN)));
    return { exitCode: state === STATE_TRAPPED ? TRAP_EXIT_CODE : FAILED_EXIT_CODE, message: `wasi-thread-pool: ${text}
` };
  }
  return { exitCode: Atomics.load(control, C_EXIT_CODE) >>> 0, message: null };
}
function readStdin(program, max) {
  const { control, stdinBuffer } = program;
  while (Atomics.compareExchange(control, C_STDIN_LOCK, 0, 1) !== 0) Atomics.wait(control, C_STDIN_LOCK, 1);
  try {
    for (; ; ) {
      const state = Atomics.load(control, C_STDIN_STATE);
      if (state === STDIN_FULL) {
        const length = Atomics.load(control, C_STDIN_LEN);
        const pos = Atomics.load(control, C_STDIN_POS);
        const take = Math.min(max, length - pos);
        const bytes = stdinBuffer.slice(pos, pos + take);
        if (pos + take >= length) Atomics.store(control, C_STDIN_STATE, STDIN_EMPTY);
        else Atomics.store(control, C_STDIN_POS, pos + take);
        return bytes;
      }
      if (state === STDIN_EOF || max === 0) return new Uint8Array(0);
      if (state === STDIN_EMPTY) {
        Atomics.store(control, C_STDIN_STATE, STDIN_REQUESTED);
        ring(control);
      }
      Atomics.wait(control, C_STDIN_STATE, STDIN_REQUESTED);
    }
  } finally {
    Atomics.store(control, C_STDIN_LOCK, 0);
    Atomics.notify(control, C_STDIN_LOCK, 1);
  }
}
var C_STATE, C_EXIT_CODE, C_DOORBELL, C_STDIN_STATE, C_STDIN_LEN, C_STDIN_POS, C_STDIN_LOCK, C_PARK, C_TRAP_LEN, C_OUT_LOCK, C_OUT_HEAD, C_OUT_TAIL, C_WATCHER, STATE_RUNNING, STATE_EXITED, STATE_TRAPPED, STATE_FAILED, TRAP_EXIT_CODE, FAILED_EXIT_CODE, MAX_EXIT_STATUS, STDIN_EMPTY, STDIN_REQUESTED, STDIN_FULL, STDIN_EOF, OUT_RING_BYTES, OUT_RECORD_HEADER, processEnder;
var init_control = __esm({
  "lib/program/control.js"() {
    C_STATE = 0;
    C_EXIT_CODE = 1;
    C_DOORBELL = 2;
    C_STDIN_STATE = 3;
    C_STDIN_LEN = 4;
    C_STDIN_POS = 5;
    C_STDIN_LOCK = 6;
    C_PARK = 7;
    C_TRAP_LEN = 8;
    C_OUT_LOCK = 9;
    C_OUT_HEAD = 10;
    C_OUT_TAIL = 11;
    C_WATCHER = 12;
    STATE_RUNNING = 0;
    STATE_EXITED = 1;
    STATE_TRAPPED = 2;
    STATE_FAILED = 3;
    TRAP_EXIT_CODE = 134;
    FAILED_EXIT_CODE = 1;
    MAX_EXIT_STATUS = 126;
    STDIN_EMPTY = 0;
    STDIN_REQUESTED = 1;
    STDIN_FULL = 2;
    STDIN_EOF = 3;
    OUT_RING_BYTES = 1 << 20;
    OUT_RECORD_HEADER = 5;
    processEnder = null;
  }
});

// lib/pool/api.js
function wasiThreadPoolLastTid2(pool, slot) {
  const control = checkPool(pool);
  checkSlot(control, slot);
  return isNative(control) ? backend.addon.lastTid(handleOf(control), slot, control) : wasiThreadPoolLastTid(pool, slot);
}
var init_api = __esm({
  "lib/pool/api.js"() {
    init_twin();
    init_layout();
    init_backend();
    init_internal();
    init_validate();
    init_layout();
    init_validate();
  }
});

// lib/pool.js
var init_pool = __esm({
  "lib/pool.js"() {
    init_backend2();
    init_api();
  }
});

// lib/program/threads.js
function average(words, index, sample) {
  const old = Atomics.load(words, index);
  Atomics.store(words, index, old < 0 ? sample : Math.round(old + (sample - old) / 4));
}
function enterThread(words) {
  const limit = Atomics.load(words, T_LIMIT);
  let deadline = -1;
  for (; ; ) {
    const alive = Atomics.load(words, T_ALIVE);
    if (alive < limit) {
      if (Atomics.compareExchange(words, T_ALIVE, alive, alive + 1) === alive) return true;
      continue;
    }
    const now = performance.now();
    if (deadline < 0) deadline = now + LIMIT_GRACE_MS;
    if (now >= deadline) return false;
    Atomics.wait(words, T_ALIVE, alive, deadline - now);
  }
}
function leaveThread(words) {
  Atomics.sub(words, T_ALIVE, 1);
  Atomics.notify(words, T_ALIVE);
}
function tryReserveStart(words, bound = STARTS_AT_ONCE) {
  const starting = Atomics.load(words, T_STARTING);
  return starting < bound && Atomics.compareExchange(words, T_STARTING, starting, starting + 1) === starting;
}
function releaseStart(words) {
  Atomics.sub(words, T_STARTING, 1);
  Atomics.notify(words, T_STARTING);
}
function workerReady(program, slot) {
  const words = program.threads;
  const askedAt = Number.isInteger(slot) && slot < program.growTimes.length ? program.growTimes[slot] : 0;
  if (askedAt > 0) average(words, T_START_US, Math.round(Math.max(0, wallMs() - askedAt) * 1e3));
  releaseStart(words);
}
function noteGrow(program, slot) {
  if (slot >= 0 && slot < program.growTimes.length) program.growTimes[slot] = wallMs();
}
function lockQueue(words) {
  while (Atomics.compareExchange(words, T_QLOCK, 0, 1) !== 0) Atomics.wait(words, T_QLOCK, 1);
}
function unlockQueue(words) {
  Atomics.store(words, T_QLOCK, 0);
  Atomics.notify(words, T_QLOCK, 1);
}
function enqueue(words, tid, startArg) {
  lockQueue(words);
  try {
    const tail = Atomics.load(words, T_QTAIL);
    if (tail - Atomics.load(words, T_QHEAD) >= queueSize(words)) return false;
    const at = T_QUEUE + 2 * (tail % queueSize(words));
    Atomics.store(words, at, tid);
    Atomics.store(words, at + 1, startArg);
    Atomics.store(words, T_QTAIL, tail + 1);
  } finally {
    unlockQueue(words);
  }
  Atomics.notify(words, T_QTAIL);
  return true;
}
function dequeue(words) {
  if (queued(words) <= 0) return null;
  let entry = null;
  lockQueue(words);
  try {
    const head = Atomics.load(words, T_QHEAD);
    if (Atomics.load(words, T_QTAIL) > head) {
      const at = T_QUEUE + 2 * (head % queueSize(words));
      entry = [Atomics.load(words, at), Atomics.load(words, at + 1)];
      Atomics.store(words, T_QHEAD, head + 1);
    }
  } finally {
    unlockQueue(words);
  }
  if (entry) Atomics.notify(words, T_QHEAD);
  return entry;
}
function takeTid2(pool) {
  const control = pool.control;
  let t = Atomics.load(control, H_NEXT_TID);
  for (; ; ) {
    if (t < 1 || t > MAX_TID) return -1;
    const seen = Atomics.compareExchange(control, H_NEXT_TID, t, t + 1);
    if (seen === t) return t;
    t = seen;
  }
}
function runProgramThread(program, start, tid, startArg) {
  const began = performance.now();
  try {
    return start(tid, startArg);
  } finally {
    average(program.threads, T_RUN_US, Math.max(1, Math.round((performance.now() - began) * 1e3)));
    Atomics.add(program.threads, T_ENDED, 1);
    leaveThread(program.threads);
  }
}
function runQueuedThreads(program, start) {
  for (let entry = dequeue(program.threads); entry !== null; entry = dequeue(program.threads)) {
    runProgramThread(program, start, entry[0], entry[1]);
  }
}
function takeTrampoline(program, startArg) {
  if (startArg !== TRAMPOLINE_ARG) return false;
  const words = program.threads;
  for (; ; ) {
    const tickets = Atomics.load(words, T_TICKETS);
    if (tickets <= 0) return false;
    if (Atomics.compareExchange(words, T_TICKETS, tickets, tickets - 1) === tickets) return true;
  }
}
function growthPays(words) {
  const runUs = Atomics.load(words, T_RUN_US);
  return runUs < 0 || runUs >= Atomics.load(words, T_START_US);
}
function createProgramSpawn(program, { claim: claim2, grow, hasRoom: hasRoom2 }) {
  const words = program.threads;
  return function programSpawn(startArg) {
    if (!enterThread(words)) return -1;
    const claimed = claim2(startArg);
    if (claimed.tid > 0) return claimed.tid;
    if (hasRoom2() && growthPays(words) && tryReserveStart(words)) {
      const grown = grow(startArg);
      if (!grown.grew) releaseStart(words);
      if (grown.tid > 0) return grown.tid;
    }
    const tid = takeTid2(program.pool);
    if (tid < 0 || !enqueue(words, tid, startArg)) {
      leaveThread(words);
      return -1;
    }
    handQueueToIdleWorker(words, claim2);
    return tid;
  };
}
function handQueueToIdleWorker(words, claim2) {
  Atomics.add(words, T_TICKETS, 1);
  if (claim2(TRAMPOLINE_ARG).tid > 0) return true;
  Atomics.sub(words, T_TICKETS, 1);
  return false;
}
var import_node_os, T_LIMIT, T_ALIVE, T_STARTING, T_START_US, T_RUN_US, T_TICKETS, T_QLOCK, T_QHEAD, T_QTAIL, T_ENDED, T_QUEUE, MOST_QUEUED, LIMIT_GRACE_MS, STARTS_AT_ONCE, STALL_STARTS_AT_ONCE, TRAMPOLINE_ARG, wallMs, queueSize, queued, threadsQueued;
var init_threads = __esm({
  "lib/program/threads.js"() {
    import_node_os = require("node:os");
    init_layout();
    T_LIMIT = 0;
    T_ALIVE = 1;
    T_STARTING = 2;
    T_START_US = 3;
    T_RUN_US = 4;
    T_TICKETS = 5;
    T_QLOCK = 6;
    T_QHEAD = 7;
    T_QTAIL = 8;
    T_ENDED = 10;
    T_QUEUE = 16;
    MOST_QUEUED = 1 << 16;
    LIMIT_GRACE_MS = 100;
    STARTS_AT_ONCE = Math.max(2, Math.min(8, 2 * (0, import_node_os.availableParallelism)()));
    STALL_STARTS_AT_ONCE = Math.max(4, Math.min(16, 4 * (0, import_node_os.availableParallelism)()));
    TRAMPOLINE_ARG = -1;
    wallMs = () => performance.timeOrigin + performance.now();
    queueSize = (words) => words.length - T_QUEUE >> 1;
    queued = (words) => Atomics.load(words, T_QTAIL) - Atomics.load(words, T_QHEAD);
    threadsQueued = (program) => queued(program.threads);
  }
});

// lib/program/pool.js
function createWorkerGrower({ wasmModule, memory, processState, onWorker = null }) {
  const { program } = processState;
  return function grow(slot) {
    noteGrow(program, slot);
    const worker = new import_node_worker_threads4.Worker(POOL_WORKER_URL, {
      execArgv: program.execArgv,
      workerData: { wasmModule, memory, processState, pool: program.pool, slot, wasiThreadPoolAddonPath: native.path }
    });
    worker.unref();
    worker.on("error", () => {
    });
    onWorker?.(worker);
  };
}
function createPoolSpawns(options) {
  const { pool } = options.processState.program;
  const grower = createWorkerGrower(options);
  let grew = false;
  const poolOps = bindWasiThreadPool(pool);
  const claim2 = poolOps.createSpawn({});
  const growSpawn = poolOps.createSpawn({
    grow(slot) {
      grower(slot);
      grew = true;
    }
  });
  const growing = (startArg) => {
    grew = false;
    return { ...growSpawn(startArg), grew };
  };
  const control = pool.control;
  const hasRoom2 = () => Atomics.load(control, H_SLOTS) < Atomics.load(control, H_CAPACITY);
  const workers = () => Atomics.load(control, H_SLOTS);
  return { claim: claim2, growing, hasRoom: hasRoom2, workers };
}
function createProgramThreadSpawn({ wasmModule, memory, processState }) {
  const { claim: claim2, growing, hasRoom: hasRoom2 } = createPoolSpawns({ wasmModule, memory, processState });
  return createProgramSpawn(processState.program, { claim: claim2, grow: growing, hasRoom: hasRoom2 });
}
var import_node_worker_threads4, POOL_WORKER_URL;
var init_pool2 = __esm({
  "lib/program/pool.js"() {
    import_node_worker_threads4 = require("node:worker_threads");
    init_binding();
    init_layout();
    init_pool();
    init_internal();
    init_threads();
    POOL_WORKER_URL = new URL("./pool-worker.bundle.cjs", __wtpImportMetaUrl);
  }
});

// lib/wasm/memory-counter.js
function memoryGrowthImports(counter) {
  return {
    memory_size: () => Atomics.load(counter, 0),
    memory_grow(delta) {
      const add = delta >>> 0;
      const maximum = counter[1];
      for (; ; ) {
        const old = Atomics.load(counter, 0);
        if (add > maximum - old) return -1;
        if (Atomics.compareExchange(counter, 0, old, old + add) === old) return old;
      }
    }
  };
}
var MEMORY_IMPORT_MODULE;
var init_memory_counter = __esm({
  "lib/wasm/memory-counter.js"() {
    MEMORY_IMPORT_MODULE = "wasi-thread-pool";
  }
});

// lib/program/runtime.js
function programOf(processState, file) {
  const program = processState?.program;
  if (!program || !(program.control instanceof Int32Array)) {
    throw new TypeError(`${file} is the runtime of runWasiThreadsProgram: its processState has no program.`);
  }
  return program;
}
function programImports({ preview1, program, threadSpawn, wasmModule, memory }) {
  const imports = { wasi_snapshot_preview1: preview1 };
  if (program.memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(program.memoryPages);
  if (threadSpawn !== null) imports.wasi = { "thread-spawn": threadSpawnImport(program, threadSpawn) };
  const entry = WebAssembly.Module.imports(wasmModule).find((e) => e.kind === "memory");
  if (entry && memory) imports[entry.module] = { ...imports[entry.module], [entry.name]: memory };
  return imports;
}
function programThreadSpawn({ wasmModule, memory, processState }) {
  const spawn = createProgramThreadSpawn({ wasmModule, memory, processState });
  const { program } = processState;
  if (!program.ownsProcess) return spawn;
  return (startArg) => {
    const tid = spawn(startArg);
    if (tid > 0 && threadsQueued(program) > 0 && Atomics.load(program.control, C_WATCHER) === 0) {
      if (Atomics.compareExchange(program.control, C_WATCHER, 0, 1) === 0) startQueueWatcher(wasmModule, memory, processState);
    }
    return tid;
  };
}
function startQueueWatcher(wasmModule, memory, processState) {
  const worker = new import_node_worker_threads5.Worker(WATCH_WORKER_URL, {
    execArgv: processState.program.execArgv,
    workerData: { wasmModule, memory, processState }
  });
  worker.unref();
  worker.on("error", () => {
  });
}
function threadSpawnImport(program, threadSpawn) {
  return (startArg) => {
    if (programEnded(program)) parkForever(program.control);
    return threadSpawn(startArg);
  };
}
function createProgramWorkerRuntime({ wasmModule, program, imports, workerIndex, close = () => {
} }) {
  let ready = false;
  return {
    imports,
    instantiate() {
      let instance;
      try {
        instance = new WebAssembly.Instance(wasmModule, imports);
      } catch (error) {
        const tid = Number.isInteger(workerIndex) ? wasiThreadPoolLastTid2(program.pool, workerIndex) : "?";
        trapProgram(program, `thread ${tid} (instantiation)`, error);
      }
      if (!ready) {
        ready = true;
        workerReady(program, workerIndex);
      }
      const guestStart = instance.exports.wasi_thread_start;
      const start = (tid, startArg) => {
        try {
          return guestStart(tid, startArg);
        } catch (error) {
          trapProgram(program, `thread ${tid}`, error);
        }
      };
      const exports2 = Object.assign(/* @__PURE__ */ Object.create(null), instance.exports, {
        wasi_thread_start(tid, startArg) {
          if (programEnded(program)) parkForever(program.control);
          if (!takeTrampoline(program, startArg)) runProgramThread(program, start, tid, startArg);
          runQueuedThreads(program, start);
        }
      });
      return { exports: exports2 };
    },
    close
  };
}
function runProgramMainWith({ wasmModule, program, imports, attachMemory, onEnd }) {
  let instance;
  try {
    instance = new WebAssembly.Instance(wasmModule, imports);
  } catch (error) {
    trapProgram(program, "the main thread (instantiation)", error);
  }
  attachMemory?.(instance.exports.memory ?? new WebAssembly.Memory({ initial: 0 }));
  try {
    instance.exports._start();
  } catch (error) {
    trapProgram(program, "the main thread", error);
  }
  endProgram(program, 0, onEnd);
}
var import_node_worker_threads5, WATCH_WORKER_URL;
var init_runtime = __esm({
  "lib/program/runtime.js"() {
    import_node_worker_threads5 = require("node:worker_threads");
    init_pool();
    init_control();
    init_pool2();
    init_memory_counter();
    init_threads();
    WATCH_WORKER_URL = new URL("./watch-worker.js", __wtpImportMetaUrl);
  }
});

// lib/program/wasi-node.js
var wasi_node_exports = {};
__export(wasi_node_exports, {
  createWasiThreadWorkerRuntime: () => createWasiThreadWorkerRuntime2,
  runProgramMain: () => runProgramMain
});
function requireNodeWasiQuietly() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function filtered(warning, ...rest) {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && /WASI/.test(String(warning?.message ?? warning))) return;
    return emitWarning.call(process, warning, ...rest);
  };
  try {
    return (0, import_node_module2.createRequire)(__wtpImportMetaUrl)("node:wasi");
  } finally {
    process.emitWarning = emitWarning;
  }
}
function gather(memory, iovs, count) {
  const view = new DataView(memory.buffer);
  const parts = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const ptr = view.getUint32(iovs + 8 * i, true);
    const len = view.getUint32(iovs + 8 * i + 4, true);
    if (len > 0) parts.push(new Uint8Array(memory.buffer, ptr, len));
    total += len;
  }
  if (parts.length === 1) return parts[0].slice();
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
function createImports2({ wasmModule, memory: givenMemory, program, threadSpawn }) {
  const wasi = new WASI({
    version: "preview1",
    args: program.args,
    env: program.env,
    preopens: program.preopens,
    returnOnExit: false
  });
  let memory = givenMemory;
  const attachMemory = (programMemory) => {
    memory = programMemory;
    wasi.initialize({ exports: { memory } });
  };
  if (memory) attachMemory(memory);
  const base = wasi.wasiImport;
  const own = { ...base };
  const outFd = { 1: program.stdoutFd, 2: program.stderrFd };
  own.proc_exit = (code) => endProgram(program, code >>> 0);
  own.fd_write = (fd, iovs, count, nwrittenPtr) => {
    if (fd !== 1 && fd !== 2) return base.fd_write(fd, iovs, count, nwrittenPtr);
    const bytes = gather(memory, iovs, count);
    try {
      if (outFd[fd] < 0) writeOutputRing(program, fd, bytes);
      else writeAllSync2(outFd[fd], bytes);
    } catch (error) {
      return error?.code === "EPIPE" ? ERRNO_PIPE : ERRNO_IO;
    }
    new DataView(memory.buffer).setUint32(nwrittenPtr, bytes.length, true);
    return ERRNO_SUCCESS;
  };
  own.fd_read = (fd, iovs, count, nreadPtr) => {
    if (fd !== 0) return base.fd_read(fd, iovs, count, nreadPtr);
    let view = new DataView(memory.buffer);
    let want = 0;
    for (let i = 0; i < count; i++) want += view.getUint32(iovs + 8 * i + 4, true);
    const bytes = readStdin(program, want);
    view = new DataView(memory.buffer);
    let at = 0;
    for (let i = 0; i < count && at < bytes.length; i++) {
      const ptr = view.getUint32(iovs + 8 * i, true);
      const len = view.getUint32(iovs + 8 * i + 4, true);
      const take = Math.min(len, bytes.length - at);
      new Uint8Array(memory.buffer, ptr, take).set(bytes.subarray(at, at + take));
      at += take;
    }
    view.setUint32(nreadPtr, at, true);
    return ERRNO_SUCCESS;
  };
  own.poll_oneoff = (inPtr, outPtr, nsubscriptions, neventsPtr) => {
    if (nsubscriptions === 0) return ERRNO_INVAL;
    const view = new DataView(memory.buffer);
    let earliest = null;
    const ready = [];
    for (let i = 0; i < nsubscriptions; i++) {
      const sub = inPtr + 48 * i;
      const tag = view.getUint8(sub + 8);
      if (tag === EVENTTYPE_CLOCK) {
        const clock = view.getUint32(sub + 16, true);
        const timeout = view.getBigUint64(sub + 24, true);
        const flags = view.getUint16(sub + 40, true);
        let waitMs;
        if (clock === CLOCKID_MONOTONIC) {
          waitMs = flags & SUBCLOCKFLAGS_ABSTIME ? Number(timeout - process.hrtime.bigint()) / 1e6 : Number(timeout) / 1e6;
        } else if (clock === CLOCKID_REALTIME) {
          waitMs = flags & SUBCLOCKFLAGS_ABSTIME ? Number(timeout / 1000000n) - Date.now() : Number(timeout) / 1e6;
        } else {
          return ERRNO_INVAL;
        }
        if (earliest === null || waitMs < earliest.waitMs) earliest = { index: i, waitMs };
      } else if (tag === 1 || tag === 2) {
        ready.push(i);
      } else {
        return ERRNO_NOTSUP;
      }
    }
    const events = ready.length > 0 ? ready : [earliest.index];
    if (ready.length === 0 && earliest.waitMs > 0) Atomics.wait(program.control, 7, 0, earliest.waitMs);
    const out = new DataView(memory.buffer);
    events.forEach((index, n) => {
      const sub = inPtr + 48 * index;
      const ev = outPtr + 32 * n;
      out.setBigUint64(ev, out.getBigUint64(sub, true), true);
      out.setUint16(ev + 8, ERRNO_SUCCESS, true);
      out.setUint8(ev + 10, out.getUint8(sub + 8));
      out.setBigUint64(ev + 16, 1n, true);
      out.setUint16(ev + 24, 0, true);
    });
    out.setUint32(neventsPtr, events.length, true);
    return ERRNO_SUCCESS;
  };
  return { imports: programImports({ preview1: own, program, threadSpawn, wasmModule, memory }), attachMemory };
}
function createWasiThreadWorkerRuntime2({ wasmModule, memory, processState, workerIndex } = {}) {
  const program = programOf(processState, FILE2);
  const threadSpawn = programThreadSpawn({ wasmModule, memory, processState });
  const { imports } = createImports2({ wasmModule, memory, program, threadSpawn });
  return createProgramWorkerRuntime({ wasmModule, program, imports, workerIndex });
}
function runProgramMain({ wasmModule, memory, processState, threadSpawn }) {
  const program = programOf(processState, FILE2);
  const { imports, attachMemory } = createImports2({ wasmModule, memory, program, threadSpawn });
  runProgramMainWith({ wasmModule, program, imports, attachMemory: memory ? void 0 : attachMemory });
}
var import_node_module2, WASI, ERRNO_SUCCESS, ERRNO_INVAL, ERRNO_IO, ERRNO_PIPE, ERRNO_NOTSUP, EVENTTYPE_CLOCK, CLOCKID_REALTIME, CLOCKID_MONOTONIC, SUBCLOCKFLAGS_ABSTIME, writeAllSync2, FILE2;
var init_wasi_node = __esm({
  "lib/program/wasi-node.js"() {
    import_node_module2 = require("node:module");
    init_write_sync();
    init_control();
    init_runtime();
    ({ WASI } = requireNodeWasiQuietly());
    ERRNO_SUCCESS = 0;
    ERRNO_INVAL = 28;
    ERRNO_IO = 29;
    ERRNO_PIPE = 64;
    ERRNO_NOTSUP = 58;
    EVENTTYPE_CLOCK = 0;
    CLOCKID_REALTIME = 0;
    CLOCKID_MONOTONIC = 1;
    SUBCLOCKFLAGS_ABSTIME = 1;
    writeAllSync2 = (fd, bytes) => writeAllSync(fd, bytes, 1e4);
    FILE2 = "lib/program/wasi-node.js";
  }
});

// lib/program/pool-worker.js
var import_node_worker_threads7 = require("node:worker_threads");
init_backend2();
init_internal();
init_validate();

// lib/worker/slot.js
var import_node_worker_threads3 = require("node:worker_threads");

// lib/worker/thread-runner.js
function createThreadRunner(runtime, { freshInstances = false } = {}) {
  const fresh = freshInstances === true;
  let kept = null;
  return {
    freshInstances: fresh,
    adopt(instance) {
      if (!fresh && instance) kept = instance;
    },
    run(tid, startArg) {
      const instance = kept ?? runtime.instantiate();
      kept = null;
      instance.exports.wasi_thread_start(tid, startArg);
      if (!fresh) kept = instance;
    },
    discard() {
      kept = null;
    }
  };
}
async function startThreadRunner(makeRuntime, runnerOptions) {
  let runtime = null;
  try {
    runtime = await makeRuntime();
    const runner = createThreadRunner(runtime, runnerOptions);
    runner.adopt(runtime.instantiate());
    return { runtime, runner };
  } catch (error) {
    try {
      runtime?.close();
    } catch {
    }
    throw error;
  }
}
function createRunThread(runner, onTrap) {
  return function runThread(tid, startArg) {
    try {
      runner.run(tid, startArg);
      return true;
    } catch (error) {
      if (error?.name === "WasiExitError") return true;
      onTrap(tid, error);
      return false;
    }
  };
}

// lib/worker/slot.js
init_write_sync();
function writeLine(text) {
  try {
    writeAllSync(2, Buffer.from(text));
  } catch {
  }
}
function describe(error) {
  return error?.stack ?? String(error);
}
async function startOrRetire(poolOps, slot, start) {
  try {
    return await start();
  } catch (error) {
    writeLine(`[wasi-thread] guest thread ${poolOps.lastTid(slot)} failed to instantiate: ${describe(error)}
`);
    poolOps.retire(slot);
    throw error;
  }
}
function serveSlot(poolOps, slot, { runtime, runner }) {
  let fault = null;
  const runThread = createRunThread(runner, (tid, error) => {
    writeLine(`[wasi-thread] guest thread ${tid} trapped: ${describe(error)}
`);
    fault = error;
  });
  try {
    poolOps.serve(slot, runThread, import_node_worker_threads3.threadId);
  } finally {
    try {
      runtime.close();
    } catch {
    }
  }
  return fault;
}

// lib/program/wasi-c.js
var import_node_fs3 = require("node:fs");
var import_node_worker_threads6 = require("node:worker_threads");
init_binding();
init_control();
init_runtime();
var FILE = "lib/program/wasi-c.js";
var ERRNO_FAULT = 21;
function bindingOf() {
  const binding = native.binding;
  if (typeof binding?.wasiImports !== "function") {
    throw new Error(`${FILE}: the addon with the program's C WASI did not load here (${native.error ?? "no WASI in it"}).`);
  }
  return binding;
}
function createImports({ wasmModule, memory, program, threadSpawn }) {
  const binding = bindingOf();
  if (program.ownsProcess) setProcessEnder(exitProcessNow);
  const id = program.wasiId;
  const stopWasi = () => binding.wasiStop(id);
  const attach = (programMemory) => binding.wasiImports(id, programMemory, () => parkForever(program.control));
  const own = (wasi) => ({ ...wasi, proc_exit: (code) => endProgram(program, code >>> 0, stopWasi) });
  if (memory) {
    const wasi = attach(memory);
    const imports = programImports({ preview1: own(wasi), program, threadSpawn, wasmModule, memory });
    return { imports, wasi, stopWasi };
  }
  let current = null;
  const preview1 = {};
  for (const { module: module2, name, kind } of WebAssembly.Module.imports(wasmModule)) {
    if (module2 !== "wasi_snapshot_preview1" || kind !== "function") continue;
    preview1[name] = (...args) => current ? current[name](...args) : ERRNO_FAULT;
  }
  preview1.proc_exit = (code) => endProgram(program, code >>> 0, stopWasi);
  const attachMemory = (programMemory) => {
    current = attach(programMemory);
  };
  return { imports: programImports({ preview1, program, threadSpawn, wasmModule, memory }), stopWasi, attachMemory };
}
function exitProcessNow(program) {
  const { exitCode, message } = programOutcome(program);
  if (message !== null) {
    try {
      (0, import_node_fs3.writeSync)(program.stderrFd, message);
    } catch {
    }
  }
  if (import_node_worker_threads6.isMainThread) process.exit(exitCode);
  native.binding.exitProcess(exitCode);
}
function createWasiThreadWorkerRuntime({ wasmModule, memory, processState, workerIndex } = {}) {
  const program = programOf(processState, FILE);
  const threadSpawn = programThreadSpawn({ wasmModule, memory, processState });
  const { imports, wasi } = createImports({ wasmModule, memory, program, threadSpawn });
  const close = () => native.binding.wasiDetach(wasi);
  return createProgramWorkerRuntime({ wasmModule, program, imports, workerIndex, close });
}

// lib/program/pool-worker.js
async function createRuntime({ wasmModule, memory, processState, slot }) {
  const options = { wasmModule, memory, processState, workerIndex: slot };
  if (processState.program.wasiId) return createWasiThreadWorkerRuntime(options);
  const { createWasiThreadWorkerRuntime: createWasiThreadWorkerRuntime3 } = await Promise.resolve().then(() => (init_wasi_node(), wasi_node_exports));
  return createWasiThreadWorkerRuntime3(options);
}
async function servePoolSlot() {
  const { pool, slot } = import_node_worker_threads7.workerData;
  const poolOps = bindWasiThreadPool(pool);
  checkSlot(pool.control, slot);
  const started = await startOrRetire(poolOps, slot, () => startThreadRunner(() => createRuntime({ ...import_node_worker_threads7.workerData, slot })));
  const fault = serveSlot(poolOps, slot, started);
  if (fault) throw fault;
}
servePoolSlot();
