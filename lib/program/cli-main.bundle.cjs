// Built from lib/program/cli-main.js by scripts/bundle-workers.js: do not edit; run
// `node scripts/bundle-workers.js` after changing any file it imports.
const __wtpImportMetaUrl = require("node:url").pathToFileURL(__filename).href;
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
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
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

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
function formatWasiThreadPool(control, capacity) {
  control[H_NEXT_TID] = 1;
  control[H_CAPACITY] = capacity;
  control[H_IMPL] = IMPL_JS;
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
function resolveSpawnWaitMs(value) {
  if (value === void 0 || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value === "number" && value >= 0 && value !== Infinity) return value;
  throw new RangeError(SPAWN_WAIT_MESSAGE);
}
function checkCapacity(capacity) {
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new RangeError("pool capacity must be a non-negative integer.");
  }
  if (capacity > 268435455 - 1) {
    throw new RangeError("pool capacity must be at most 268435454 slots.");
  }
  return capacity;
}
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
function checkOptions(options, name) {
  if (options === void 0 || options === null) return {};
  if (typeof options !== "object") throw new TypeError(`${name} must be an object.`);
  return options;
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

// lib/pool/api.js
function defaultImplementation() {
  const requested = backend.env?.[ENV_OVERRIDE];
  if (requested !== void 0 && requested !== "") {
    if (requested !== "js" && requested !== "native") {
      return { implementation: null, reason: `${ENV_OVERRIDE}=${requested} is neither "js" nor "native"` };
    }
    return { implementation: requested, reason: `${ENV_OVERRIDE}=${requested}` };
  }
  if (backend.addon !== null) return { implementation: "native", reason: `the native addon loaded from ${backend.native.path}` };
  if (backend.native === null) return { implementation: "js", reason: "this runtime has no native addon (browser build)" };
  return { implementation: "js", reason: `the native addon did not load: ${backend.native.error}` };
}
function chooseImplementation(requested) {
  if (requested === void 0 || requested === null) {
    const chosen = defaultImplementation();
    if (chosen.implementation === null) throw new RangeError(`${chosen.reason}.`);
    requested = chosen.implementation;
  } else if (requested !== "js" && requested !== "native") {
    throw new RangeError('implementation must be "native" or "js".');
  }
  if (requested === "native" && backend.addon === null) {
    throw new Error(
      `wasi-thread-pool: the native implementation was requested, but ${backend.native === null ? "this runtime has no native addon" : `the addon did not load: ${backend.native.error}`}.`
    );
  }
  return requested;
}
function createWasiThreadPool(options) {
  const { capacity, spawnWaitMs, implementation } = checkOptions(options, "options");
  checkCapacity(capacity);
  const waitMs = resolveSpawnWaitMs(spawnWaitMs);
  const chosen = chooseImplementation(implementation);
  const control = new Int32Array(new SharedArrayBuffer(4 * (HEADER_WORDS + SLOT_WORDS * capacity)));
  if (chosen === "native") backend.addon.format(handleOf(control), capacity, IMPL_NATIVE, control);
  else formatWasiThreadPool(control, capacity);
  return { control, spawnWaitMs: waitMs };
}
function wasiThreadPoolImplementationOf(pool) {
  return isNative(checkPool(pool)) ? "native" : "js";
}
function readWasiThreadPoolReport2(pool) {
  const control = checkPool(pool);
  return isNative(control) ? backend.addon.report(handleOf(control), control) : readWasiThreadPoolReport(pool);
}
function terminateWasiThreadPool2(pool) {
  const control = checkPool(pool);
  return isNative(control) ? backend.addon.close(handleOf(control), control) : terminateWasiThreadPool(pool);
}
var ENV_OVERRIDE;
var init_api = __esm({
  "lib/pool/api.js"() {
    init_twin();
    init_layout();
    init_backend();
    init_internal();
    init_validate();
    init_layout();
    init_validate();
    ENV_OVERRIDE = "WASI_THREAD_POOL_IMPLEMENTATION";
  }
});

// lib/pool.js
var init_pool = __esm({
  "lib/pool.js"() {
    init_backend2();
    init_api();
  }
});

// lib/program/control.js
function createProgramControl({ outputRing = false } = {}) {
  return {
    control: new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS)),
    stdinBuffer: new Uint8Array(new SharedArrayBuffer(STDIN_BUFFER_BYTES)),
    trapText: new Uint8Array(new SharedArrayBuffer(TRAP_TEXT_BYTES)),
    outRing: outputRing ? new Uint8Array(new SharedArrayBuffer(OUT_RING_BYTES)) : null
  };
}
function ringCopyOut(ringBytes, at, length) {
  const mask = ringBytes.length - 1;
  const start = at & mask;
  const first = Math.min(length, ringBytes.length - start);
  const out = new Uint8Array(length);
  out.set(ringBytes.subarray(start, start + first));
  if (first < length) out.set(ringBytes.subarray(0, length - first), first);
  return out;
}
function drainOutputRing(program, deliver) {
  const { control, outRing } = program;
  if (!outRing) return;
  let tail = Atomics.load(control, C_OUT_TAIL);
  const head = Atomics.load(control, C_OUT_HEAD);
  while (tail !== head) {
    const header = ringCopyOut(outRing, tail, OUT_RECORD_HEADER);
    const length = new DataView(header.buffer).getUint32(1, true);
    const bytes = ringCopyOut(outRing, tail + OUT_RECORD_HEADER, length);
    tail = tail + OUT_RECORD_HEADER + length | 0;
    Atomics.store(control, C_OUT_TAIL, tail);
    Atomics.notify(control, C_OUT_TAIL);
    deliver(header[0], bytes);
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
function fullStallMessage(queued2, poolSize) {
  return `wasi-thread-pool: ${queued2} thread(s) wait for a worker, and all ${poolSize} workers (poolSize, --pool) run threads that do not end: if those wait for the queued ones, the program waits for ever.
`;
}
var C_STATE, C_EXIT_CODE, C_DOORBELL, C_STDIN_STATE, C_STDIN_LEN, C_STDIN_POS, C_PARK, C_TRAP_LEN, C_OUT_HEAD, C_OUT_TAIL, C_WATCHER, CONTROL_WORDS, STATE_RUNNING, STATE_EXITED, STATE_TRAPPED, STATE_FAILED, TRAP_EXIT_CODE, FAILED_EXIT_CODE, MAX_EXIT_STATUS, STDIN_REQUESTED, STDIN_FULL, STDIN_EOF, STDIN_BUFFER_BYTES, TRAP_TEXT_BYTES, OUT_RING_BYTES, OUT_RECORD_HEADER, processEnder;
var init_control = __esm({
  "lib/program/control.js"() {
    C_STATE = 0;
    C_EXIT_CODE = 1;
    C_DOORBELL = 2;
    C_STDIN_STATE = 3;
    C_STDIN_LEN = 4;
    C_STDIN_POS = 5;
    C_PARK = 7;
    C_TRAP_LEN = 8;
    C_OUT_HEAD = 10;
    C_OUT_TAIL = 11;
    C_WATCHER = 12;
    CONTROL_WORDS = 16;
    STATE_RUNNING = 0;
    STATE_EXITED = 1;
    STATE_TRAPPED = 2;
    STATE_FAILED = 3;
    TRAP_EXIT_CODE = 134;
    FAILED_EXIT_CODE = 1;
    MAX_EXIT_STATUS = 126;
    STDIN_REQUESTED = 1;
    STDIN_FULL = 2;
    STDIN_EOF = 3;
    STDIN_BUFFER_BYTES = 65536;
    TRAP_TEXT_BYTES = 8192;
    OUT_RING_BYTES = 1 << 20;
    OUT_RECORD_HEADER = 5;
    processEnder = null;
  }
});

// lib/program/threads.js
function createThreadWords(maxThreads) {
  const size = Math.max(1, Math.min(maxThreads, MOST_QUEUED));
  const words = new Int32Array(new SharedArrayBuffer(4 * (T_QUEUE + 2 * size)));
  words[T_LIMIT] = maxThreads;
  words[T_START_US] = FIRST_START_US;
  words[T_RUN_US] = -1;
  return words;
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
function noteGrow(program, slot) {
  if (slot >= 0 && slot < program.growTimes.length) program.growTimes[slot] = wallMs();
}
function createGrowTimes(capacity) {
  return new Float64Array(new SharedArrayBuffer(8 * Math.max(1, Math.min(capacity, MOST_QUEUED))));
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
async function watchThreadQueue(program, { claim: claim2, spawnTrampoline, hasRoom: hasRoom2, workers, cpus, onFullStall = null }) {
  const words = program.threads;
  let warned2 = false;
  const startTrampoline = (bound = STARTS_AT_ONCE) => {
    if (!tryReserveStart(words, bound)) return false;
    Atomics.add(words, T_TICKETS, 1);
    const { tid, grew } = spawnTrampoline(TRAMPOLINE_ARG);
    if (tid < 0) Atomics.sub(words, T_TICKETS, 1);
    if (!grew) releaseStart(words);
    return tid > 0;
  };
  while (Atomics.load(words, T_STOP) === 0) {
    const tail = Atomics.load(words, T_QTAIL);
    const head = Atomics.load(words, T_QHEAD);
    if (tail === head) {
      await Atomics.waitAsync(words, T_QTAIL, tail).value;
      continue;
    }
    const ended = Atomics.load(words, T_ENDED);
    const verdict = await watchQueueFor(words, head, ended, claim2);
    const unserved = queued(words) > Atomics.load(words, T_TICKETS);
    if (verdict === "stalled" && !hasRoom2() && !warned2) {
      warned2 = true;
      onFullStall?.(queued(words));
    }
    if (verdict === "stalled" && unserved && hasRoom2()) await feedStalledQueue(words, startTrampoline, hasRoom2);
    else if (verdict === "behind" && unserved && hasRoom2() && workers() < cpus) startTrampoline();
  }
}
async function watchQueueFor(words, head, ended, claim2) {
  const backlog = queued(words);
  const startMs = Math.max(POLL_MS, Atomics.load(words, T_START_US) / 1e3);
  let quiet = 0;
  for (let waited = 0; waited < startMs; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref());
    if (Atomics.load(words, T_STOP) !== 0 || queued(words) <= 0) return "fine";
    handQueueToIdleWorker(words, claim2);
    const still2 = Atomics.load(words, T_QHEAD) === head && Atomics.load(words, T_ENDED) === ended;
    if (!still2) quiet = -Infinity;
    else if (Atomics.load(words, T_STARTING) === 0 && growthPays(words)) quiet++;
    if (quiet >= STALL_POLLS) return "stalled";
  }
  const still = Atomics.load(words, T_QHEAD) === head && Atomics.load(words, T_ENDED) === ended;
  if (still && Atomics.load(words, T_STARTING) === 0) return "stalled";
  if (still) return "fine";
  return queued(words) >= backlog ? "behind" : "fine";
}
async function feedStalledQueue(words, startTrampoline, hasRoom2) {
  const ended = Atomics.load(words, T_ENDED);
  while (Atomics.load(words, T_STOP) === 0 && Atomics.load(words, T_ENDED) === ended && queued(words) > Atomics.load(words, T_TICKETS) && hasRoom2()) {
    if (startTrampoline(STALL_STARTS_AT_ONCE)) continue;
    const starting = Atomics.load(words, T_STARTING);
    await Atomics.waitAsync(words, T_STARTING, starting, POLL_MS).value;
  }
}
function stopThreadQueue(program) {
  const words = program.threads;
  Atomics.store(words, T_STOP, 1);
  Atomics.notify(words, T_QTAIL);
  Atomics.notify(words, T_QHEAD);
}
var import_node_os, T_LIMIT, T_ALIVE, T_STARTING, T_START_US, T_RUN_US, T_TICKETS, T_QLOCK, T_QHEAD, T_QTAIL, T_STOP, T_ENDED, T_QUEUE, DEFAULT_MAX_THREADS, DEFAULT_POOL_SIZE, MOST_QUEUED, LIMIT_GRACE_MS, STARTS_AT_ONCE, STALL_STARTS_AT_ONCE, POLL_MS, STALL_POLLS, FIRST_START_US, TRAMPOLINE_ARG, wallMs, queueSize, queued, threadsQueued;
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
    T_STOP = 9;
    T_ENDED = 10;
    T_QUEUE = 16;
    DEFAULT_MAX_THREADS = 16384;
    DEFAULT_POOL_SIZE = 1024;
    MOST_QUEUED = 1 << 16;
    LIMIT_GRACE_MS = 100;
    STARTS_AT_ONCE = Math.max(2, Math.min(8, 2 * (0, import_node_os.availableParallelism)()));
    STALL_STARTS_AT_ONCE = Math.max(4, Math.min(16, 4 * (0, import_node_os.availableParallelism)()));
    POLL_MS = 5;
    STALL_POLLS = 2;
    FIRST_START_US = 5e4;
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
    const worker = new import_node_worker_threads3.Worker(POOL_WORKER_URL, {
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
function createSupervisorSpawn({ wasmModule, memory, processState }) {
  const ownWorkers = [];
  const { claim: claim2, growing, hasRoom: hasRoom2, workers } = createPoolSpawns({
    wasmModule,
    memory,
    processState,
    onWorker: (worker) => ownWorkers.push(worker)
  });
  return { claim: claim2, spawnTrampoline: growing, hasRoom: hasRoom2, workers, cpus: (0, import_node_os2.availableParallelism)(), ownWorkers };
}
var import_node_os2, import_node_worker_threads3, POOL_WORKER_URL;
var init_pool2 = __esm({
  "lib/program/pool.js"() {
    import_node_os2 = require("node:os");
    import_node_worker_threads3 = require("node:worker_threads");
    init_binding();
    init_layout();
    init_pool();
    init_internal();
    init_threads();
    POOL_WORKER_URL = new URL("./pool-worker.bundle.cjs", __wtpImportMetaUrl);
  }
});

// lib/wasm/memory-counter.js
function createMemoryCounter(initial, maximum) {
  if (!(Number.isInteger(initial) && Number.isInteger(maximum) && initial >= 0 && initial <= maximum && maximum <= 65536)) {
    throw new RangeError("createMemoryCounter: 0 <= initial <= maximum <= 65536 pages.");
  }
  const counter = new Int32Array(new SharedArrayBuffer(8));
  counter[0] = initial;
  counter[1] = maximum;
  return counter;
}
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
function registerMemoryCounter(memory, counter) {
  counters.set(memory, counter);
}
function memoryCounterOf(memory) {
  return (memory && counters.get(memory)) ?? null;
}
function reserveMemory(memory, maximum) {
  const known = memoryCounterOf(memory);
  if (known) return known;
  const initial = memory.buffer.byteLength / PAGE;
  let reached = initial;
  const tryGrow = (pages) => {
    try {
      memory.grow(pages - reached);
      reached = pages;
      return true;
    } catch {
      return false;
    }
  };
  if (maximum > reached && !tryGrow(maximum)) {
    let lo = reached;
    let hi = maximum;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (tryGrow(mid)) lo = mid;
      else hi = mid;
    }
  }
  const counter = createMemoryCounter(initial, Math.max(reached, initial));
  registerMemoryCounter(memory, counter);
  return counter;
}
function importsMemoryCounter(wasmModule) {
  return WebAssembly.Module.imports(wasmModule).some((e) => e.module === MEMORY_IMPORT_MODULE);
}
function guestMemoryCounter(wasmModule, memory, maximum) {
  if (!importsMemoryCounter(wasmModule)) return null;
  return memoryCounterOf(memory) ?? reserveMemory(memory, maximum);
}
var MEMORY_IMPORT_MODULE, counters, PAGE;
var init_memory_counter = __esm({
  "lib/wasm/memory-counter.js"() {
    MEMORY_IMPORT_MODULE = "wasi-thread-pool";
    counters = /* @__PURE__ */ new WeakMap();
    PAGE = 65536;
  }
});

// lib/wasm/reader.js
function encodeU(value) {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`encodeU: ${value} is not a non-negative integer.`);
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 128;
    out.push(b);
  } while (value > 0);
  return Uint8Array.from(out);
}
function encodeName(text) {
  const bytes = new TextEncoder().encode(text);
  return concatBytes([encodeU(bytes.length), bytes]);
}
function encodeVector(items) {
  return concatBytes([encodeU(items.length), ...items]);
}
function concatBytes(parts) {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
var Reader;
var init_reader = __esm({
  "lib/wasm/reader.js"() {
    Reader = class {
      constructor(bytes, pos = 0, end = bytes.length) {
        this.bytes = bytes;
        this.pos = pos;
        this.end = end;
      }
      atEnd() {
        return this.pos >= this.end;
      }
      byte() {
        if (this.pos >= this.end) throw new TypeError("wasm binary is truncated.");
        return this.bytes[this.pos++];
      }
      peek() {
        if (this.pos >= this.end) throw new TypeError("wasm binary is truncated.");
        return this.bytes[this.pos];
      }
      // Unsigned LEB128 of up to `bits` bits, as a Number (exact up to 2^53;
      // the u64 of a memory64 offset is only skipped past, never used).
      u(bits = 32) {
        if (this.pos < this.end && this.bytes[this.pos] < 128) return this.bytes[this.pos++];
        let result = 0;
        let scale = 1;
        const most = Math.ceil(bits / 7);
        for (let i = 0; i < most; i++) {
          const b = this.byte();
          result += (b & 127) * scale;
          if ((b & 128) === 0) return result;
          scale *= 128;
        }
        throw new TypeError("wasm binary has a malformed LEB128 number.");
      }
      // Signed LEB128 of up to `bits` bits (s32, s33 block types, s64 consts),
      // as a Number (s64 values beyond 2^53 lose precision: only skipped).
      s(bits = 32) {
        let result = 0;
        let scale = 1;
        const most = Math.ceil(bits / 7);
        for (let i = 0; i < most; i++) {
          const b = this.byte();
          result += (b & 127) * scale;
          scale *= 128;
          if ((b & 128) === 0) return b & 64 ? result - scale : result;
        }
        throw new TypeError("wasm binary has a malformed LEB128 number.");
      }
      skip(count) {
        if (count > this.end - this.pos) throw new TypeError("wasm binary is truncated.");
        this.pos += count;
      }
      name() {
        const length = this.u();
        const start = this.pos;
        this.skip(length);
        return new TextDecoder().decode(this.bytes.subarray(start, this.pos));
      }
    };
  }
});

// lib/worker/wasm-memory.js
function readTypes(r) {
  const types = [];
  try {
    const count = r.u();
    for (let i = 0; i < count; i++) r.types(types);
    return types;
  } catch {
    return null;
  }
}
function toBytes(wasm) {
  if (wasm instanceof Uint8Array) return wasm;
  if (ArrayBuffer.isView(wasm)) return new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
  if (wasm instanceof ArrayBuffer || typeof SharedArrayBuffer === "function" && wasm instanceof SharedArrayBuffer) {
    return new Uint8Array(wasm);
  }
  throw new TypeError("wasm must be the program's bytes (Uint8Array, ArrayBuffer) or a WebAssembly.Module.");
}
function readMemoryDeclarations(wasm) {
  const bytes = toBytes(wasm);
  const r = new Reader2(bytes);
  if (bytes.length < 8) throw new TypeError("not a wasm binary (too short).");
  const magic = [0, 97, 115, 109];
  for (const b of magic) if (r.byte() !== b) throw new TypeError("not a wasm binary (bad magic).");
  r.pos = 8;
  const imports = [];
  const all = [];
  let types = [];
  let defined = 0;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u();
    const end = r.pos + size;
    if (end > bytes.length) throw new TypeError("wasm binary is truncated.");
    if (id === SECTION_TYPE) {
      types = readTypes(r);
    } else if (id === SECTION_IMPORT) {
      const count = r.u();
      for (let i = 0; i < count; i++) {
        const module2 = r.name();
        const name = r.name();
        const kind = r.byte();
        all.push({ module: module2, name, kind: KIND_NAMES[kind] ?? "unknown", type: null });
        if (kind === KIND_FUNC) all.at(-1).type = types?.[r.u()] ?? null;
        else if (kind === KIND_TABLE) {
          r.valtype();
          r.limits();
        } else if (kind === KIND_MEMORY) imports.push({ module: module2, name, ...r.limits() });
        else if (kind === KIND_GLOBAL) {
          r.valtype();
          r.byte();
        } else if (kind === KIND_TAG) {
          r.byte();
          r.u();
        } else throw new TypeError(`wasm binary has an import of unknown kind ${kind}.`);
      }
    } else if (id === SECTION_MEMORY) {
      defined += r.u();
    }
    r.pos = end;
  }
  return { imports, defined, all };
}
function noteCompiledModule(module2, bytes) {
  try {
    compiled.set(module2, readMemoryDeclarations(bytes));
  } catch {
  }
}
function declarationsOf(wasm) {
  if (typeof WebAssembly !== "undefined" && wasm instanceof WebAssembly.Module) {
    const known = compiled.get(wasm);
    if (known) return known;
    throw new TypeError(
      "A compiled WebAssembly.Module does not give its memory's limits back: pass the program's bytes, or compile it with compileWasiThreadGuest (which remembers them)."
    );
  }
  return readMemoryDeclarations(wasm);
}
function declaredSharedMaximum(wasm) {
  try {
    return declarationsOf(wasm).imports.find((m) => m.shared)?.maximum ?? 65536;
  } catch {
    return 65536;
  }
}
function describePlainMemory({ imports, defined }) {
  if (imports.length + defined > 1) {
    throw new TypeError(`This program has ${imports.length + defined} memories; a WASI program has one.`);
  }
  if (imports.length === 0) return null;
  const [mem] = imports;
  const where = `"${mem.module}" "${mem.name}"`;
  if (mem.memory64) throw new TypeError(`This program's memory ${where} is a 64-bit memory, which is not supported.`);
  return { module: mem.module, name: mem.name, initial: mem.initial, maximum: mem.maximum, shared: false };
}
function describeProgramMemory(wasm) {
  return describeWasiThreadsMemory(wasm);
}
function describeWasiThreadsMemory(wasm) {
  const { imports, defined } = declarationsOf(wasm);
  if (defined > 0) {
    throw new TypeError(
      "This program defines its own memory. Every thread of a wasi-threads program needs the same memory, so it must import one shared memory (link with --import-memory --shared-memory)."
    );
  }
  if (imports.length === 0) {
    throw new TypeError(
      "This program has no memory. A wasi-threads program must import one shared memory (link with --import-memory --shared-memory)."
    );
  }
  if (imports.length > 1) {
    throw new TypeError(`This program imports ${imports.length} memories; wasi-threads programs import exactly one.`);
  }
  const [mem] = imports;
  const where = `"${mem.module}" "${mem.name}"`;
  if (mem.memory64) throw new TypeError(`This program's memory ${where} is a 64-bit memory, which is not supported.`);
  if (!mem.shared) {
    throw new TypeError(
      `This program imports memory ${where} without "shared". Threads can only share a shared memory (link with --shared-memory).`
    );
  }
  if (mem.maximum === null) {
    throw new TypeError(`This program's shared memory ${where} has no maximum, which a shared memory needs.`);
  }
  return { module: mem.module, name: mem.name, initial: mem.initial, maximum: mem.maximum, shared: true };
}
var SECTION_TYPE, SECTION_IMPORT, SECTION_MEMORY, KIND_FUNC, KIND_TABLE, KIND_MEMORY, KIND_GLOBAL, KIND_TAG, Reader2, VALUE_TYPES, KIND_NAMES, compiled;
var init_wasm_memory = __esm({
  "lib/worker/wasm-memory.js"() {
    init_reader();
    SECTION_TYPE = 1;
    SECTION_IMPORT = 2;
    SECTION_MEMORY = 5;
    KIND_FUNC = 0;
    KIND_TABLE = 1;
    KIND_MEMORY = 2;
    KIND_GLOBAL = 3;
    KIND_TAG = 4;
    Reader2 = class extends Reader {
      // Limits of a memory or table type: flags, min, max when flagged.
      limits() {
        const flags = this.byte();
        const initial = this.u(64);
        const maximum = flags & 1 ? this.u(64) : null;
        return { flags, initial, maximum, shared: (flags & 2) !== 0, memory64: (flags & 4) !== 0 };
      }
      // A value type: one byte, or a reference type with a heap type index.
      // Returns its name in the text format ("i32", ...; "ref" for the rest).
      valtype() {
        const b = this.byte();
        if (b === 99 || b === 100) this.u();
        return VALUE_TYPES[b] ?? "ref";
      }
      // A function type's params and results; null for any other composite
      // type (a GC struct or array), whose layout is not needed here.
      functype() {
        const vec = () => Array.from({ length: this.u() }, () => this.valtype());
        return { params: vec(), results: vec() };
      }
      // One entry of the type section (a rec group holds several).
      types(out) {
        const form = this.byte();
        if (form === 96) out.push(this.functype());
        else if (form === 78) {
          const count = this.u();
          for (let i = 0; i < count; i++) this.types(out);
        } else if (form === 80 || form === 79) {
          const supers = this.u();
          for (let i = 0; i < supers; i++) this.u();
          this.types(out);
        } else throw new TypeError(`wasm binary has a type of form 0x${form.toString(16)} not read here.`);
      }
    };
    VALUE_TYPES = { 127: "i32", 126: "i64", 125: "f32", 124: "f64", 123: "v128", 112: "funcref", 111: "externref" };
    KIND_NAMES = ["function", "table", "memory", "global", "tag"];
    compiled = /* @__PURE__ */ new WeakMap();
  }
});

// lib/wasm/instructions.js
function simdKind(sub) {
  if (sub <= 11 || sub === 92 || sub === 93) return MEM;
  if (sub === 12 || sub === 13) return V16;
  if (sub >= 21 && sub <= 34) return LANE;
  if (sub >= 84 && sub <= 91) return MEMLANE;
  if (sub <= 275) return NONE;
  return BAD;
}
function atomicKind(sub) {
  if (sub <= 2 || sub >= 16 && sub <= 78) return MEM;
  if (sub === 3) return LANE;
  return BAD;
}
function readBlockType(r) {
  const b = r.peek();
  if (b === 64) return r.byte();
  if (b === 99 || b === 100) {
    r.byte();
    return r.s(33);
  }
  return r.s(33);
}
function readValueType(r) {
  const b = r.byte();
  if (b === 99 || b === 100) r.s(33);
  return b;
}
function readMemarg(r) {
  const align = r.u();
  if (align & 64) r.u();
  r.u(64);
}
function readImmediates(r, kind, ins) {
  switch (kind) {
    case NONE:
      return;
    case U:
      if (ins.op === OP.call || ins.op === OP.returnCall || ins.op === OP.refFunc) {
        ins.funcAt = r.pos;
        ins.func = r.u();
      } else r.u();
      return;
    case UU:
      r.u();
      r.u();
      return;
    case BT:
      readBlockType(r);
      return;
    case MEM:
      readMemarg(r);
      return;
    case MEMLANE:
      readMemarg(r);
      r.byte();
      return;
    case LANE:
      r.byte();
      return;
    case V16:
      r.skip(16);
      return;
    case BR_TABLE: {
      const count = r.u();
      for (let i = 0; i <= count; i++) r.u();
      return;
    }
    case SELECT_T: {
      const count = r.u();
      for (let i = 0; i < count; i++) readValueType(r);
      return;
    }
    case TRY_TABLE: {
      readBlockType(r);
      const count = r.u();
      for (let i = 0; i < count; i++) {
        const catchKind = r.byte();
        if (catchKind > 3) throw new TypeError(`wasm binary has a try_table catch of kind ${catchKind}.`);
        if (catchKind <= 1) r.u();
        r.u();
      }
      return;
    }
    case S32:
      r.s(32);
      return;
    case S64:
      r.s(64);
      return;
    case F32:
      r.skip(4);
      return;
    case F64:
      r.skip(8);
      return;
    case HT:
      r.s(33);
      return;
    case CAST:
      r.byte();
      r.u();
      r.s(33);
      r.s(33);
      return;
  }
}
function unknown(op, at) {
  const name = op >= PREFIX ? `0x${(op >>> 16).toString(16)} ${op & 65535}` : `0x${op.toString(16)}`;
  return new TypeError(`wasm binary has an instruction (opcode ${name}) at offset ${at} that is not read here.`);
}
function readInstruction(r, ins = { op: 0, start: 0, end: 0, func: void 0, funcAt: -1 }) {
  const start = r.pos;
  const first = r.byte();
  ins.op = first;
  ins.start = start;
  ins.func = void 0;
  ins.funcAt = -1;
  let kind = MVP[first];
  if (first === OP.misc || first === OP.simd || first === OP.atomic || first === OP.gc) {
    const sub = r.u();
    ins.op = first * PREFIX + sub;
    if (first === OP.misc) kind = MISC[sub] ?? BAD;
    else if (first === OP.simd) kind = simdKind(sub);
    else if (first === OP.atomic) kind = atomicKind(sub);
    else kind = GC.get(sub) ?? BAD;
  }
  if (kind === BAD) throw unknown(ins.op, start);
  readImmediates(r, kind, ins);
  ins.end = r.pos;
  return ins;
}
function walkExpression(r, visit, only = null) {
  let depth = 0;
  const ins = { op: 0, start: 0, end: 0, func: void 0, funcAt: -1 };
  const bytes = r.bytes;
  const end = r.end;
  let p = r.pos;
  for (; ; ) {
    const start = p;
    if (p >= end) throw new TypeError("wasm binary is truncated.");
    const op = bytes[p++];
    const kind = MVP[op];
    ins.func = void 0;
    ins.funcAt = -1;
    let fast = true;
    if (kind === NONE) {
    } else if (kind === U && op !== OP.call && op !== OP.returnCall && op !== OP.refFunc) {
      while (bytes[p++] & 128) ;
    } else if (kind === MEM) {
      const align = bytes[p];
      while (bytes[p++] & 128) ;
      if (align & 64) while (bytes[p++] & 128) ;
      while (bytes[p++] & 128) ;
    } else if (kind === S32 || kind === S64) {
      while (bytes[p++] & 128) ;
    } else if (kind === BT && bytes[p] === 64) {
      p++;
    } else {
      fast = false;
      r.pos = start;
      readInstruction(r, ins);
      p = r.pos;
    }
    if (p > end) throw new TypeError("wasm binary is truncated.");
    if (fast) {
      ins.op = op;
      ins.start = start;
      ins.end = p;
    }
    if (visit !== void 0 && (only === null || only[op] === 1)) visit(ins);
    const code = ins.op;
    if (code === OP.block || code === OP.loop || code === OP.if || code === OP.try || code === OP.tryTable) depth++;
    else if (code === OP.end || code === 24) {
      if (depth === 0) {
        if (code === 24) throw new TypeError(`wasm binary has a delegate outside a try at offset ${start}.`);
        r.pos = p;
        return;
      }
      depth--;
    }
  }
}
function skipLocals(r) {
  const groups = r.u();
  for (let i = 0; i < groups; i++) {
    r.u();
    readValueType(r);
  }
}
var PREFIX, OP, NONE, U, UU, BT, MEM, MEMLANE, LANE, V16, BR_TABLE, SELECT_T, TRY_TABLE, S32, S64, F32, F64, HT, CAST, BAD, MVP, set, MISC, GC, gc;
var init_instructions = __esm({
  "lib/wasm/instructions.js"() {
    PREFIX = 65536;
    OP = {
      block: 2,
      loop: 3,
      if: 4,
      try: 6,
      end: 11,
      call: 16,
      returnCall: 18,
      memorySize: 63,
      memoryGrow: 64,
      refFunc: 210,
      tryTable: 31,
      misc: 252,
      simd: 253,
      atomic: 254,
      gc: 251,
      memoryAtomicWait32: 254 * PREFIX + 1,
      memoryAtomicWait64: 254 * PREFIX + 2,
      memoryFill: 252 * PREFIX + 11,
      memoryCopy: 252 * PREFIX + 10,
      memoryInit: 252 * PREFIX + 8
    };
    NONE = 0;
    U = 1;
    UU = 2;
    BT = 3;
    MEM = 4;
    MEMLANE = 5;
    LANE = 6;
    V16 = 7;
    BR_TABLE = 8;
    SELECT_T = 9;
    TRY_TABLE = 10;
    S32 = 11;
    S64 = 12;
    F32 = 13;
    F64 = 14;
    HT = 15;
    CAST = 16;
    BAD = 255;
    MVP = new Uint8Array(256).fill(BAD);
    set = (kind, ...ops) => ops.forEach((op) => MVP[op] = kind);
    set(NONE, 0, 1, 5, 10, 11, 15, 25, 26, 27, 209, 211, 212);
    set(BT, 2, 3, 4, 6);
    set(U, 7, 8, 9, 12, 13, 16, 18, 20, 21, 24, 32, 33, 34, 35, 36, 37, 38);
    set(U, 63, 64, 210, 213, 214);
    set(UU, 17, 19);
    set(BR_TABLE, 14);
    set(SELECT_T, 28);
    set(TRY_TABLE, 31);
    for (let op = 40; op <= 62; op++) MVP[op] = MEM;
    set(S32, 65);
    set(S64, 66);
    set(F32, 67);
    set(F64, 68);
    for (let op = 69; op <= 196; op++) MVP[op] = NONE;
    set(HT, 208);
    MISC = [NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, UU, U, UU, U, UU, U, UU, U, U, U];
    GC = /* @__PURE__ */ new Map();
    gc = (kind, ...ops) => ops.forEach((op) => GC.set(op, kind));
    gc(U, 0, 1, 6, 7, 11, 12, 13, 14, 16);
    gc(UU, 2, 3, 4, 5, 8, 9, 10, 17, 18, 19);
    gc(NONE, 15, 26, 27, 28, 29, 30);
    gc(HT, 20, 21, 22, 23);
    gc(CAST, 24, 25);
  }
});

// lib/wasm/module.js
function readSections(bytes) {
  if (bytes.length < 8) throw new TypeError("not a wasm binary (too short).");
  for (let i = 0; i < 8; i++) {
    if (bytes[i] !== MAGIC[i]) throw new TypeError("not a wasm binary of version 1 (bad header).");
  }
  const r = new Reader(bytes, 8);
  const sections = [];
  while (!r.atEnd()) {
    const start = r.pos;
    const id = r.byte();
    const size = r.u();
    const contentStart = r.pos;
    r.skip(size);
    let name = null;
    if (id === SECTION.custom) name = new Reader(bytes, contentStart, r.pos).name();
    else if (!ORDER.includes(id)) throw new TypeError(`wasm binary has a section of unknown id ${id}.`);
    sections.push({ id, name, start, contentStart, end: r.pos });
  }
  return sections;
}
function countTypes(bytes, section) {
  if (!section) return 0;
  const r = new Reader(bytes, section.contentStart, section.end);
  const entries = r.u();
  let types = 0;
  for (let i = 0; i < entries; i++) {
    if (r.peek() !== 78) {
      types++;
      skipSubtype(r);
      continue;
    }
    r.byte();
    const inGroup = r.u();
    for (let j = 0; j < inGroup; j++) skipSubtype(r);
    types += inGroup;
  }
  return types;
}
function skipSubtype(r) {
  let form = r.byte();
  if (form === 80 || form === 79) {
    const supers = r.u();
    for (let i = 0; i < supers; i++) r.u();
    form = r.byte();
  }
  if (form === 96) {
    for (let k = 0; k < 2; k++) {
      const count = r.u();
      for (let i = 0; i < count; i++) readValueType(r);
    }
  } else if (form === 95 || form === 94) {
    const fields = form === 95 ? r.u() : 1;
    for (let i = 0; i < fields; i++) {
      readValueType(r);
      r.byte();
    }
  } else throw new TypeError(`wasm binary has a type of form 0x${form.toString(16)}.`);
}
function skipLimits(r) {
  const flags = r.byte();
  r.u(64);
  if (flags & 1) r.u(64);
}
function countImportedFunctions(bytes, section) {
  if (!section) return 0;
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  let functions = 0;
  for (let i = 0; i < count; i++) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) {
      functions++;
      r.u();
    } else if (kind === 1) {
      readValueType(r);
      skipLimits(r);
    } else if (kind === 2) skipLimits(r);
    else if (kind === 3) {
      readValueType(r);
      r.byte();
    } else if (kind === 4) {
      r.byte();
      r.u();
    } else throw new TypeError(`wasm binary has an import of unknown kind ${kind}.`);
  }
  return functions;
}
function vectorCount(bytes, section) {
  return section ? new Reader(bytes, section.contentStart, section.end).u() : 0;
}
function moduleCounts(bytes) {
  const sections = readSections(bytes);
  return {
    types: countTypes(bytes, find(sections, SECTION.type)),
    importedFunctions: countImportedFunctions(bytes, find(sections, SECTION.import)),
    definedFunctions: vectorCount(bytes, find(sections, SECTION.function))
  };
}
function encodeFuncType({ params, results }) {
  return concatBytes([
    Uint8Array.of(96),
    encodeVector(params.map((t) => Uint8Array.of(t))),
    encodeVector(results.map((t) => Uint8Array.of(t)))
  ]);
}
function encodeSection(id, content) {
  return concatBytes([Uint8Array.of(id), encodeU(content.length), content]);
}
function appendToVector(bytes, section, items) {
  if (!section) return encodeVector(items);
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  return concatBytes([encodeU(count + items.length), bytes.subarray(r.pos, section.end), ...items]);
}
function patchExpression(r, patches, ctx, replace) {
  const { shift, firstDefined, wanted } = ctx;
  const visit = (ins) => {
    const op = ins.op;
    if (replace !== void 0 && (wanted === null || (op < 256 ? wanted.single[op] === 1 : wanted.prefixed.has(op)))) {
      const replacement = replace(ins, ctx.indices);
      if (replacement !== void 0) {
        if (op === OP.end || op === OP.block || op === OP.loop || op === OP.if || op === OP.try || op === OP.tryTable) {
          throw new TypeError("transformModule: a pass may not replace a structured instruction.");
        }
        patches.add(ins.start, ins.end, replacement);
        ctx.replaced++;
        return;
      }
    }
    if (shift > 0 && ins.funcAt >= 0 && ins.func >= firstDefined) patches.addU(ins.funcAt, ins.end, ins.func + shift);
  };
  walkExpression(r, visit, ctx.firstBytes);
}
function wantedOps(ops) {
  if (!ops) return null;
  const single = new Uint8Array(256);
  const prefixed = /* @__PURE__ */ new Set();
  for (const op of ops) {
    if (op < 256) single[op] = 1;
    else prefixed.add(op);
  }
  return { single, prefixed };
}
function firstBytesOf(wanted, shift) {
  if (wanted === null) return null;
  const first = wanted.single.slice();
  for (const op of wanted.prefixed) first[Math.floor(op / 65536)] = 1;
  if (shift > 0) for (const op of [OP.call, OP.returnCall, OP.refFunc]) first[op] = 1;
  return first;
}
function patchIndex(r, patches, ctx) {
  const at = r.pos;
  const index = r.u();
  if (index >= ctx.firstDefined && ctx.shift > 0) patches.addU(at, r.pos, index + ctx.shift);
}
function rewriteCode(bytes, section, ctx, plan, appended) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  const patches = new Patches(bytes);
  const out = new Writer(section.end - section.contentStart + 64);
  out.u(count + appended.length);
  for (let i = 0; i < count; i++) {
    const sizeAt = r.pos;
    const size = r.u();
    const start = r.pos;
    const end = start + size;
    const body = new Reader(bytes, start, end);
    skipLocals(body);
    patches.begin(start);
    patchExpression(body, patches, ctx, plan.replace);
    if (body.pos !== end) throw new TypeError(`wasm binary has a function body that ends early (at ${body.pos}, not ${end}).`);
    if (patches.edits === 0)
      out.copy(bytes, sizeAt, end);
    else {
      const content = patches.finish(end);
      out.u(content.length);
      out.bytes(content);
    }
    r.pos = end;
  }
  for (const body of appended) {
    out.u(body.length);
    out.bytes(body);
  }
  return out.content();
}
function encodeBody({ locals = [] }, instructions) {
  const groups = locals.map((t) => concatBytes([encodeU(1), Uint8Array.of(t)]));
  return concatBytes([encodeVector(groups), instructions]);
}
function rewriteExports(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    r.name();
    const kind = r.byte();
    if (kind === 0) patchIndex(r, patches, ctx);
    else r.u();
  }
  return patches.apply(section.end);
}
function rewriteStart(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  patchIndex(r, patches, ctx);
  return patches.apply(section.end);
}
function rewriteGlobals(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    readValueType(r);
    r.byte();
    patchExpression(r, patches, ctx);
  }
  return patches.apply(section.end);
}
function rewriteTables(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    const withInit = r.peek() === 64;
    if (withInit) {
      r.byte();
      r.byte();
    }
    readValueType(r);
    skipLimits(r);
    if (withInit) patchExpression(r, patches, ctx);
  }
  return patches.apply(section.end);
}
function rewriteElements(bytes, section, ctx) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const patches = new Patches(bytes, section.contentStart);
  const count = r.u();
  for (let i = 0; i < count; i++) {
    const flags = r.u();
    if (flags > 7) throw new TypeError(`wasm binary has an element segment with flags ${flags}.`);
    const active = (flags & 1) === 0;
    const explicitTable = (flags & 2) !== 0;
    const expressions = (flags & 4) !== 0;
    if (active && explicitTable) r.u();
    if (active) patchExpression(r, patches, ctx);
    if (!active || explicitTable) {
      if (expressions) readValueType(r);
      else r.byte();
    }
    const items = r.u();
    for (let j = 0; j < items; j++) {
      if (expressions) patchExpression(r, patches, ctx);
      else patchIndex(r, patches, ctx);
    }
  }
  return patches.apply(section.end);
}
function rewriteNames(bytes, section, ctx) {
  try {
    const r = new Reader(bytes, section.contentStart, section.end);
    r.name();
    const out = [bytes.subarray(section.contentStart, r.pos)];
    const patches = new Patches(bytes);
    while (!r.atEnd()) {
      const id = r.byte();
      const size = r.u();
      const start = r.pos;
      const sub = new Reader(bytes, start, start + size);
      r.skip(size);
      patches.begin(start);
      if (id >= 1 && id <= 3) {
        const count = sub.u();
        for (let i = 0; i < count; i++) {
          patchIndex(sub, patches, ctx);
          if (id === 1) sub.name();
          else {
            const inner = sub.u();
            for (let j = 0; j < inner; j++) {
              sub.u();
              sub.name();
            }
          }
        }
      }
      const content = patches.apply(start + size);
      out.push(Uint8Array.of(id), encodeU(content.length), content);
    }
    return concatBytes(out);
  } catch {
    return bytes.subarray(section.contentStart, section.end);
  }
}
function transformModule(bytes, plan) {
  const sections = readSections(bytes);
  const imports = plan.imports ?? [];
  const functions = plan.functions ?? [];
  const typeSection = find(sections, SECTION.type);
  const importSection = find(sections, SECTION.import);
  const types = countTypes(bytes, typeSection);
  const firstDefined = countImportedFunctions(bytes, importSection);
  const defined = vectorCount(bytes, find(sections, SECTION.function));
  const shift = imports.length;
  const indices = {
    imports: imports.map((_, i) => firstDefined + i),
    functions: functions.map((_, i) => firstDefined + shift + defined + i)
  };
  const wanted = wantedOps(plan.ops);
  const ctx = { firstDefined, shift, indices, replaced: 0, wanted, firstBytes: firstBytesOf(wanted, shift) };
  const newTypes = [...imports, ...functions].map(encodeFuncType);
  const importEntries = imports.map(
    (imp, i) => concatBytes([encodeName(imp.module), encodeName(imp.name), Uint8Array.of(0), encodeU(types + i)])
  );
  const functionEntries = functions.map((_, i) => encodeU(types + imports.length + i));
  const appendedBodies = functions.map((f) => encodeBody(f, f.body(indices)));
  const content = /* @__PURE__ */ new Map();
  if (newTypes.length) content.set(SECTION.type, appendToVector(bytes, typeSection, newTypes));
  if (importEntries.length) content.set(SECTION.import, appendToVector(bytes, importSection, importEntries));
  if (functionEntries.length) {
    content.set(SECTION.function, appendToVector(bytes, find(sections, SECTION.function), functionEntries));
  }
  const rewrite = [
    [SECTION.table, rewriteTables],
    [SECTION.global, rewriteGlobals],
    [SECTION.export, rewriteExports],
    [SECTION.start, rewriteStart],
    [SECTION.element, rewriteElements]
  ];
  if (shift > 0) {
    for (const [id, fn] of rewrite) {
      const s = find(sections, id);
      if (s) content.set(id, fn(bytes, s, ctx));
    }
  }
  const code = find(sections, SECTION.code);
  if (code || appendedBodies.length) {
    content.set(SECTION.code, code ? rewriteCode(bytes, code, ctx, plan, appendedBodies) : encodeVector(appendedBodies));
  }
  if (plan.onlyIfReplaced && ctx.replaced === 0) return bytes;
  const out = [bytes.subarray(0, 8)];
  const pending = new Map(content);
  const flushBefore = (id) => {
    for (const [missing, c] of pending) {
      if (ORDER.indexOf(missing) < ORDER.indexOf(id) && !find(sections, missing)) {
        out.push(encodeSection(missing, c));
        pending.delete(missing);
      }
    }
  };
  for (const s of sections) {
    if (s.id !== SECTION.custom) flushBefore(s.id);
    if (s.id === SECTION.custom && s.name === "name" && shift > 0) out.push(encodeSection(0, rewriteNames(bytes, s, ctx)));
    else if (content.has(s.id) && s.id !== SECTION.custom) {
      out.push(encodeSection(s.id, content.get(s.id)));
      pending.delete(s.id);
    } else out.push(bytes.subarray(s.start, s.end));
  }
  for (const id of ORDER) {
    if (pending.has(id)) out.push(encodeSection(id, pending.get(id)));
  }
  return concatBytes(out);
}
var MAGIC, SECTION, ORDER, find, Writer, Patches;
var init_module = __esm({
  "lib/wasm/module.js"() {
    init_reader();
    init_instructions();
    MAGIC = [0, 97, 115, 109, 1, 0, 0, 0];
    SECTION = {
      custom: 0,
      type: 1,
      import: 2,
      function: 3,
      table: 4,
      memory: 5,
      global: 6,
      export: 7,
      start: 8,
      element: 9,
      code: 10,
      data: 11,
      dataCount: 12,
      tag: 13
    };
    ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];
    find = (sections, id) => sections.find((s) => s.id === id);
    Writer = class {
      constructor(size = 1024) {
        this.buf = new Uint8Array(size);
        this.len = 0;
      }
      room(n) {
        if (this.len + n <= this.buf.length) return;
        const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
        bigger.set(this.buf.subarray(0, this.len));
        this.buf = bigger;
      }
      u(value) {
        this.room(10);
        do {
          let b = value % 128;
          value = Math.floor(value / 128);
          if (value > 0) b |= 128;
          this.buf[this.len++] = b;
        } while (value > 0);
      }
      copy(src, start, end) {
        const n = end - start;
        this.room(n);
        if (n < 32) {
          const buf = this.buf;
          for (let i = 0; i < n; i++) buf[this.len + i] = src[start + i];
        } else this.buf.set(src.subarray(start, end), this.len);
        this.len += n;
      }
      bytes(src) {
        this.copy(src, 0, src.length);
      }
      content() {
        return this.buf.subarray(0, this.len);
      }
    };
    Patches = class {
      constructor(bytes, start = 0) {
        this.bytes = bytes;
        this.out = new Writer();
        this.begin(start);
      }
      begin(start) {
        this.out.len = 0;
        this.at = start;
        this.edits = 0;
      }
      skipTo(start) {
        if (start < this.at) throw new Error("transformModule: overlapping edits (a bug).");
        this.out.copy(this.bytes, this.at, start);
      }
      add(start, end, replacement) {
        this.skipTo(start);
        this.out.bytes(replacement);
        this.at = end;
        this.edits++;
      }
      addU(start, end, value) {
        this.skipTo(start);
        this.out.u(value);
        this.at = end;
        this.edits++;
      }
      // The edited bytes up to `end` (a view into `out`: valid until begin()).
      finish(end) {
        this.skipTo(end);
        this.at = end;
        return this.out.content();
      }
      // finish(end), as a copy.
      apply(end) {
        return this.finish(end).slice();
      }
    };
  }
});

// lib/wasm/liftoff-pass.js
function leb(body, at) {
  let value = 0;
  for (let i = 0; i < 5 && at + i < body.length; i++) {
    value += (body[at + i] & 127) * 128 ** i;
    if ((body[at + i] & 128) === 0) return { value, next: at + i + 1 };
  }
  return { value: -1, next: body.length };
}
function mayWait(body) {
  for (let k = body.indexOf(254); k >= 0; k = body.indexOf(254, k + 1)) {
    const sub = leb(body, k + 1);
    if (sub.value !== 1 && sub.value !== 2) continue;
    const align = leb(body, sub.next).value;
    if (align >= 0 && (align & ~64) === sub.value + 1) return true;
  }
  return false;
}
function readBodies(bytes, code) {
  const r = new Reader(bytes, code.contentStart, code.end);
  const count = r.u();
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const sizeAt = r.pos;
    const size = r.u();
    const start = r.pos;
    r.skip(size);
    const body = { sizeAt, start, end: r.pos, waits: [] };
    if (mayWait(bytes.subarray(start, r.pos))) {
      const br = new Reader(bytes, start, r.pos);
      skipLocals(br);
      walkExpression(
        br,
        (ins) => {
          if (isWait(ins)) body.waits.push({ op: ins.op, start: ins.start, end: ins.end });
        },
        ATOMICS_ONLY
      );
      if (br.pos !== r.pos) throw new TypeError("wasm binary has a function body that ends early.");
    }
    bodies.push(body);
  }
  return bodies;
}
function appendItems(bytes, section, items) {
  const r = new Reader(bytes, section.contentStart, section.end);
  const count = r.u();
  return concatBytes([encodeU(count + items.length), bytes.subarray(r.pos, section.end), ...items]);
}
function sectionParts(id, parts) {
  const size = parts.reduce((n, p) => n + p.length, 0);
  return [Uint8Array.of(id), encodeU(size), ...parts];
}
function patchBody(bytes, body, callOf) {
  const parts = [];
  let at = body.start;
  for (const ins of body.waits) {
    parts.push(bytes.subarray(at, ins.start), callOf(ins));
    at = ins.end;
  }
  parts.push(bytes.subarray(at, body.end));
  return withSize(concatBytes(parts));
}
function codeParts(bytes, bodies, added, callOf) {
  const parts = [encodeU(bodies.length + added.length)];
  let run = bodies.length ? bodies[0].sizeAt : 0;
  for (const b of bodies) {
    if (b.waits.length === 0) continue;
    parts.push(bytes.subarray(run, b.sizeAt), patchBody(bytes, b, callOf));
    run = b.end;
  }
  if (bodies.length) parts.push(bytes.subarray(run, bodies[bodies.length - 1].end));
  for (const w of added) parts.push(withSize(wrapperBody(w.code)));
  return parts;
}
function rewriteAtomicWaits(bytes) {
  const sections = readSections(bytes);
  const code = find2(sections, SECTION.code);
  const bodies = code ? readBodies(bytes, code) : [];
  const waits = bodies.reduce((n, b) => n + b.waits.length, 0);
  if (waits === 0) return { bytes, rewritten: false, waits: 0 };
  const { types, importedFunctions, definedFunctions } = moduleCounts(bytes);
  const wrappers = /* @__PURE__ */ new Map();
  const newTypes = [];
  const typeOf = /* @__PURE__ */ new Map();
  for (const ins of bodies.flatMap((b) => b.waits)) {
    const key = keyOf(bytes, ins);
    if (wrappers.has(key)) continue;
    if (!typeOf.has(ins.op)) {
      typeOf.set(ins.op, types + newTypes.length);
      newTypes.push(wrapperType(ins.op));
    }
    const index = importedFunctions + definedFunctions + wrappers.size;
    wrappers.set(key, { index, code: bytes.subarray(ins.start, ins.end), typeIndex: typeOf.get(ins.op) });
  }
  const added = [...wrappers.values()];
  const callOf = (ins) => concatBytes([Uint8Array.of(OP.call), encodeU(wrappers.get(keyOf(bytes, ins)).index)]);
  const replaced = /* @__PURE__ */ new Map([
    [SECTION.type, [appendItems(bytes, find2(sections, SECTION.type), newTypes)]],
    [
      SECTION.function,
      [
        appendItems(
          bytes,
          find2(sections, SECTION.function),
          added.map((w) => encodeU(w.typeIndex))
        )
      ]
    ],
    [SECTION.code, codeParts(bytes, bodies, added, callOf)]
  ]);
  const out = [bytes.subarray(0, 8)];
  for (const s of sections) {
    if (s.id !== SECTION.custom && replaced.has(s.id)) out.push(...sectionParts(s.id, replaced.get(s.id)));
    else out.push(bytes.subarray(s.start, s.end));
  }
  return { bytes: concatBytes(out), rewritten: true, waits };
}
var I32, I64, LOCAL_GET, FUNC_TYPE, find2, ATOMICS_ONLY, isWait, keyOf, wrapperType, wrapperBody, withSize;
var init_liftoff_pass = __esm({
  "lib/wasm/liftoff-pass.js"() {
    init_reader();
    init_instructions();
    init_module();
    I32 = 127;
    I64 = 126;
    LOCAL_GET = 32;
    FUNC_TYPE = 96;
    find2 = (sections, id) => sections.find((s) => s.id === id);
    ATOMICS_ONLY = new Uint8Array(256);
    ATOMICS_ONLY[OP.atomic] = 1;
    isWait = (ins) => ins.op === OP.memoryAtomicWait32 || ins.op === OP.memoryAtomicWait64;
    keyOf = (bytes, ins) => bytes.subarray(ins.start, ins.end).join(",");
    wrapperType = (op) => Uint8Array.of(FUNC_TYPE, 3, I32, op === OP.memoryAtomicWait32 ? I32 : I64, I64, 1, I32);
    wrapperBody = (code) => concatBytes([Uint8Array.of(0, LOCAL_GET, 0, LOCAL_GET, 1, LOCAL_GET, 2), code, Uint8Array.of(OP.end)]);
    withSize = (content) => concatBytes([encodeU(content.length), content]);
  }
});

// lib/wasm/memory-pass.js
function isGrowth(ins) {
  return ins.op === OP.memorySize || ins.op === OP.memoryGrow;
}
function rewriteMemoryGrowth(bytes) {
  let calls = null;
  const out = transformModule(bytes, {
    onlyIfReplaced: true,
    ops: [OP.memorySize, OP.memoryGrow],
    imports: [
      { module: MEMORY_IMPORT_MODULE, name: "memory_size", params: [], results: [I322] },
      { module: MEMORY_IMPORT_MODULE, name: "memory_grow", params: [I322], results: [I322] }
    ],
    replace(ins, indices) {
      if (!isGrowth(ins)) return void 0;
      if (new Reader(bytes, ins.start + 1, ins.end).u() !== 0) {
        throw new TypeError("the memory pass handles one memory (memory index 0) only.");
      }
      calls ??= indices.imports.map((index) => concatBytes([Uint8Array.of(OP.call), encodeU(index)]));
      return ins.op === OP.memorySize ? calls[0] : calls[1];
    }
  });
  return { bytes: out, rewritten: out !== bytes };
}
var I322;
var init_memory_pass = __esm({
  "lib/wasm/memory-pass.js"() {
    init_reader();
    init_instructions();
    init_module();
    init_memory_counter();
    init_memory_counter();
    I322 = 127;
  }
});

// lib/worker/guest-memory.js
function growthRemedyWanted(env = typeof process === "object" ? process.env : {}) {
  const value = env[RESERVE_ENV];
  if (value === void 0 || value === "" || value === "1") return true;
  if (value === "0") return false;
  throw new RangeError(`${RESERVE_ENV} must be 0 or 1, not ${JSON.stringify(value)}.`);
}
function hashOf(bytes) {
  let h = 2166136261;
  for (let i = 0; i < bytes.length; i += 8) h = Math.imul(h ^ bytes[i], 16777619);
  return (h ^ bytes.length) >>> 0;
}
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
function isThreadedGuest(bytes) {
  try {
    return readMemoryDeclarations(bytes).imports.some((m) => m.shared);
  } catch {
    return false;
  }
}
function rewriteUncached(bytes) {
  if (!isThreadedGuest(bytes)) return { bytes, rewritten: false };
  try {
    return rewriteMemoryGrowth(bytes);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    process.emitWarning(`The memory pass could not read this module (${error.message}); it runs without it.`, {
      type: "WasiThreadMemoryWarning",
      code: "WASI_THREAD_MEMORY_PASS"
    });
    return { bytes, rewritten: false };
  }
}
function rewriteGuestMemory(bytes, { reserveMemory: reserveMemory2 } = {}) {
  if (reserveMemory2 === false || reserveMemory2 === void 0 && !growthRemedyWanted()) return { bytes, rewritten: false };
  const hash = hashOf(bytes);
  const hit = cache.find((e) => e.hash === hash && sameBytes(e.source, bytes));
  if (hit) return hit.bytes ? { bytes: hit.bytes, rewritten: true } : { bytes, rewritten: false };
  const result = rewriteUncached(bytes);
  cache.unshift({ hash, source: bytes.slice(), bytes: result.rewritten ? result.bytes : null });
  cache.length = Math.min(cache.length, CACHE_SIZE);
  return result;
}
var RESERVE_ENV, CACHE_SIZE, cache;
var init_guest_memory = __esm({
  "lib/worker/guest-memory.js"() {
    init_memory_pass();
    init_wasm_memory();
    RESERVE_ENV = "WASI_THREAD_POOL_RESERVE_MEMORY";
    CACHE_SIZE = 4;
    cache = [];
  }
});

// lib/worker/liftoff.js
function probeLiftoffHazard(transform = (bytes) => bytes) {
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(transform(PROBE_BYTES)));
    return instance.exports.probe(0, PROBE_VALUE) !== PROBE_VALUE || instance.exports.probe(0, 7) !== 7;
  } catch {
    return false;
  }
}
function liftoffHazardAffected() {
  if (affected === null) affected = probeLiftoffHazard();
  return affected;
}
function protectFromLiftoffHazard() {
  if (protectedNow) return true;
  if (!liftoffHazardAffected()) return true;
  try {
    import_node_v8.default.setFlagsFromString("--no-liftoff");
  } catch {
    return false;
  }
  protectedNow = true;
  return true;
}
function bytesOf(source) {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) {
    return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  }
  if (source instanceof ArrayBuffer || source instanceof SharedArrayBuffer) {
    return new Uint8Array(source);
  }
  throw new TypeError("compileWasiThreadGuest expects the module's bytes (a BufferSource).");
}
function guestBytes(source, options) {
  return rewriteGuestMemory(bytesOf(source), options ?? {}).bytes;
}
function taggedBytes(bytes) {
  const tagged = new Uint8Array(bytes.length + CACHE_TAG.length);
  tagged.set(bytes, 0);
  tagged.set(CACHE_TAG, bytes.length);
  return tagged;
}
function safeBytes(source, flag = false) {
  const bytes = bytesOf(source);
  if (!liftoffHazardAffected()) return { bytes, how: "engine" };
  if (!flag) {
    try {
      return { bytes: rewriteAtomicWaits(bytes).bytes, how: "rewritten" };
    } catch {
    }
  }
  if (!protectFromLiftoffHazard()) return { bytes, how: "flag" };
  return { bytes: taggedBytes(bytes), how: "flag" };
}
function compiled2(module2, bytes) {
  safeModules.add(module2);
  noteCompiledModule(module2, bytes);
  return module2;
}
async function compileWasiThreadGuest(bytes, options) {
  const source = guestBytes(bytes, options);
  const safe = safeBytes(source);
  try {
    return compiled2(await WebAssembly.compile(safe.bytes), bytes);
  } catch (error) {
    if (safe.how !== "rewritten") throw error;
  }
  return compiled2(await WebAssembly.compile(safeBytes(source, true).bytes), bytes);
}
function noteGuestModule(module2) {
  if (warned || protectedNow || !liftoffHazardAffected()) return false;
  if (module2 && safeModules.has(module2)) return false;
  warned = true;
  process.emitWarning(
    "This WebAssembly module was compiled before the Node 20 Liftoff hazard protection was applied: a guest thread's join loop may lose a local after memory.atomic.wait. Compile guests with compileWasiThreadGuest(bytes), or call protectFromLiftoffHazard() before compiling them.",
    { type: "WasiThreadLiftoffWarning", code: "WASI_THREAD_LIFTOFF" }
  );
  return true;
}
var import_node_v8, PROBE_BYTES, PROBE_VALUE, affected, protectedNow, warned, safeModules, CACHE_TAG_NAME, CACHE_TAG;
var init_liftoff = __esm({
  "lib/worker/liftoff.js"() {
    init_wasm_memory();
    init_liftoff_pass();
    init_guest_memory();
    import_node_v8 = __toESM(require("node:v8"), 1);
    PROBE_BYTES = new Uint8Array([
      0,
      97,
      115,
      109,
      1,
      0,
      0,
      0,
      // magic, version 1
      1,
      7,
      1,
      96,
      2,
      127,
      127,
      1,
      127,
      // type: (i32 i32) -> i32
      3,
      2,
      1,
      0,
      // function 0 has type 0
      5,
      4,
      1,
      3,
      1,
      1,
      // memory: shared, min 1, max 1
      7,
      9,
      1,
      5,
      112,
      114,
      111,
      98,
      101,
      0,
      0,
      // export "probe"
      10,
      17,
      1,
      15,
      0,
      // code: one body, 15 bytes, no locals
      32,
      0,
      // local.get 0
      65,
      1,
      // i32.const 1
      66,
      0,
      // i64.const 0
      254,
      1,
      2,
      0,
      // memory.atomic.wait32 align=2 offset=0
      26,
      // drop
      32,
      1,
      // local.get 1
      11
      // end
    ]);
    PROBE_VALUE = 94741925;
    affected = null;
    protectedNow = false;
    warned = false;
    safeModules = /* @__PURE__ */ new WeakSet();
    CACHE_TAG_NAME = "wasi-thread-pool.no-liftoff";
    CACHE_TAG = (() => {
      const name = new TextEncoder().encode(CACHE_TAG_NAME);
      return Uint8Array.of(0, name.length + 1, name.length, ...name);
    })();
  }
});

// lib/program/link.js
function refuse(entry, why) {
  throw new WebAssembly.LinkError(`cannot link the module: import "${entry.module}" "${entry.name}": ${why}.`);
}
function provided(entry, threaded) {
  if (entry.kind === "memory") return "memory";
  if (entry.module === "wasi_snapshot_preview1") return PREVIEW1_SIGNATURES[entry.name] ?? null;
  if (entry.module === "wasi" && entry.name === "thread-spawn" && threaded) return THREAD_SPAWN;
  return null;
}
function checkProgramImports(imports, { threaded }) {
  for (const entry of imports) {
    const want = provided(entry, threaded);
    if (want === null) {
      const what = entry.module === "wasi_snapshot_preview1" ? "WASI preview1 has no such function" : "the runner provides no such import";
      refuse(entry, `unknown import (${entry.kind}): ${what}`);
    }
    if (want === "memory") continue;
    if (entry.kind !== "function") refuse(entry, `expected a function ${typeText(want)}, found a ${entry.kind}`);
    if (entry.type !== null && !sameType(entry.type, want)) {
      refuse(entry, `function types incompatible: expected ${typeText(want)}, found ${typeText(entry.type)}`);
    }
  }
}
var I, L, sig, PREVIEW1_SIGNATURES, THREAD_SPAWN, typeText, sameType;
var init_link = __esm({
  "lib/program/link.js"() {
    I = "i32";
    L = "i64";
    sig = (params, results = [I]) => ({ params, results });
    PREVIEW1_SIGNATURES = Object.freeze({
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
      sock_shutdown: sig([I, I])
    });
    THREAD_SPAWN = sig([I]);
    typeText = ({ params, results }) => `(${params.join(", ")}) -> (${results.join(", ")})`;
    sameType = (a, b) => typeText(a) === typeText(b);
  }
});

// lib/program/wasi.js
function stopAllAtExit() {
  for (const id of running) native.binding.wasiStop(id);
}
function programWasiUnavailable() {
  if (process.env[NODE_WASI_ENV] === "1") return { reason: `${NODE_WASI_ENV}=1`, forced: true };
  if (native.binding === null) return { reason: `the addon did not load: ${native.error}`, forced: false };
  if (typeof native.binding.wasiCreate !== "function") {
    return { reason: `the addon has no C WASI on ${process.platform}`, forced: false };
  }
  return null;
}
function tellFallbackOnce({ reason, forced }) {
  if (forced || fallbackTold) return;
  fallbackTold = true;
  process.stderr.write(
    `wasi-thread-pool: running the program on node:wasi, one per thread (${reason}). Lost: one fd table for the program (a file opened on one thread is not open on another), the sandbox (node:wasi follows symlinks out of a preopened directory), blocking calls that the program's end can stop, and stdio of the program's own (closing or renumbering fds 0-2 acts on the host's).
`
  );
}
function closeQuietly(fd) {
  try {
    (0, import_node_fs2.closeSync)(fd);
  } catch {
  }
}
function feedStdin(Socket, fd, source) {
  const sink = new Socket({ fd, readable: false, writable: true });
  sink.on("error", () => {
  });
  if (source.bytes) sink.end(source.bytes);
  else source.stream.pipe(sink);
  return () => {
    if (source.stream) {
      source.stream.unpipe(sink);
      source.stream.pause();
      if (typeof source.stream.unref === "function") source.stream.unref();
    }
    sink.destroy();
  };
}
function drainInto(Socket, fd, stream) {
  const source = new Socket({ fd, readable: true, writable: false });
  source.on("data", (chunk) => stream.write(chunk));
  const ended = new Promise((resolve) => {
    source.once("end", resolve);
    source.once("close", resolve);
    source.once("error", resolve);
  });
  return async () => {
    let timer;
    await Promise.race([ended, new Promise((resolve) => timer = setTimeout(resolve, OUTPUT_END_BOUND_MS))]);
    clearTimeout(timer);
    source.destroy();
  };
}
async function createProgramWasi(opts) {
  const binding = native.binding;
  const given = [];
  const kept = [];
  const stdio = [0, opts.stdout.fd, opts.stderr.fd];
  let stdinFd = -1;
  const outputs = [];
  let id;
  try {
    if (!opts.stdin.processStdin) {
      const [read, write2] = binding.pipe();
      given.push(read);
      kept.push(write2);
      stdio[0] = read;
      stdinFd = write2;
    }
    for (const [index, output] of [
      [1, opts.stdout],
      [2, opts.stderr]
    ]) {
      if (!output.stream) continue;
      const [read, write2] = binding.pipe();
      given.push(write2);
      kept.push(read);
      stdio[index] = write2;
      outputs.push({ fd: read, stream: output.stream });
    }
    id = binding.wasiCreate({
      args: opts.args,
      env: Object.entries(opts.env).map(([name, value]) => `${name}=${value}`),
      preopens: Object.entries(opts.preopens),
      stdio
    });
  } catch (error) {
    kept.forEach(closeQuietly);
    throw error;
  } finally {
    given.forEach(closeQuietly);
  }
  running.add(id);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", stopAllAtExit);
  }
  const { Socket } = kept.length > 0 ? await import("node:net") : {};
  const stopFeeding = stdinFd >= 0 ? feedStdin(Socket, stdinFd, opts.stdin) : () => {
  };
  const drains = outputs.map(({ fd, stream }) => drainInto(Socket, fd, stream));
  return {
    id,
    // The program has ended: every call blocked in the WASI returns.
    stop() {
      binding.wasiStop(id);
    },
    // After the threads' workers are gone: the supervisor's reference goes
    // (the last one: the WASI closes every descriptor), then the output
    // pipes are read to their end.
    async release() {
      binding.wasiStop(id);
      binding.wasiRelease(id);
      running.delete(id);
      stopFeeding();
      await Promise.all(drains.map((drain) => drain()));
    }
  };
}
var import_node_fs2, NODE_WASI_ENV, OUTPUT_END_BOUND_MS, fallbackTold, running, exitHookInstalled;
var init_wasi = __esm({
  "lib/program/wasi.js"() {
    import_node_fs2 = require("node:fs");
    init_binding();
    NODE_WASI_ENV = "WASI_THREAD_POOL_NODE_WASI";
    OUTPUT_END_BOUND_MS = 1e4;
    fallbackTold = false;
    running = /* @__PURE__ */ new Set();
    exitHookInstalled = false;
  }
});

// lib/program/memory.js
function reservesMemory(wasmModule) {
  return importsMemoryCounter(wasmModule);
}
function makeProgramMemory({ initial, maximum }, reserved) {
  if (!reserved) return { memory: new WebAssembly.Memory({ initial, maximum, shared: true }), memoryPages: null };
  let memory;
  try {
    memory = new WebAssembly.Memory({ initial: maximum, maximum, shared: true });
  } catch (error) {
    throw new RangeError(
      `runWasiThreadsProgram: cannot reserve the program's memory at its maximum (${maximum} pages): ${error.message} (${RESERVE_ENV}=0 grows it on demand instead, docs/runtime.md "Memory growth across threads").`,
      { cause: error }
    );
  }
  return { memory, memoryPages: createMemoryCounter(initial, maximum) };
}
var init_memory = __esm({
  "lib/program/memory.js"() {
    init_memory_counter();
    init_guest_memory();
  }
});

// lib/host/ledger.js
function callQuietly(hook, ...args) {
  if (typeof hook !== "function") return;
  try {
    hook(...args);
  } catch {
  }
}
function reportGuestError(onGuestError, instanceId, tid, error) {
  callQuietly(onGuestError, instanceId, tid, error);
}
function createSpawnLedger({
  poolSize = null,
  onSpawnDeclined,
  getPool = () => null,
  readReport = readWasiThreadPoolReport2
} = {}) {
  const ledger = {
    poolSize,
    armed: 0,
    failedToArm: 0,
    declinedByReason: {},
    lastDeclineReason: null
  };
  function currentPool() {
    return typeof getPool === "function" ? getPool() ?? null : null;
  }
  function report() {
    const pool = currentPool();
    const counts = pool ? readReport(pool) : null;
    const declinedByReason = { ...ledger.declinedByReason };
    if (counts && counts.declined) declinedByReason[POOL_DECLINE_REASON] = counts.declined;
    let declined = 0;
    for (const value of Object.values(declinedByReason)) declined += value;
    return {
      poolSize: ledger.poolSize,
      armed: ledger.armed,
      failedToArm: ledger.failedToArm,
      declinedByReason,
      lastDeclineReason: ledger.lastDeclineReason,
      spawned: counts?.spawned ?? 0,
      waited: counts?.waited ?? 0,
      declined
    };
  }
  function decline2(reason) {
    if (reason !== POOL_DECLINE_REASON || !currentPool()) {
      ledger.declinedByReason[reason] = (ledger.declinedByReason[reason] ?? 0) + 1;
    }
    ledger.lastDeclineReason = reason;
    if (typeof onSpawnDeclined === "function") {
      callQuietly(onSpawnDeclined, { reason, poolSize: ledger.poolSize, declined: report().declined });
    }
    return -1;
  }
  return { ledger, decline: decline2, report };
}
var POOL_DECLINE_REASON;
var init_ledger = __esm({
  "lib/host/ledger.js"() {
    init_api();
    init_reasons();
    POOL_DECLINE_REASON = DECLINE.POOL_EXHAUSTED;
  }
});

// lib/host/node.js
var node_exports = {};
__export(node_exports, {
  NODE_POOL_CAPACITY: () => NODE_POOL_CAPACITY,
  WORKER_URL: () => WORKER_URL,
  createNodeWasiThreadHost: () => createNodeWasiThreadHost,
  workerExecArgv: () => workerExecArgv
});
function workerExecArgv(parentExecArgv = process.execArgv) {
  if (!parentExecArgv.some((arg) => arg.startsWith("--input-type"))) return void 0;
  const kept = [];
  for (let i = 0; i < parentExecArgv.length; i++) {
    const arg = parentExecArgv[i];
    if (EVAL_FLAGS.includes(arg)) {
      i++;
      continue;
    }
    if (EVAL_FLAGS.some((flag) => arg.startsWith(`${flag}=`))) continue;
    kept.push(arg);
  }
  return kept;
}
function createHostState(options) {
  const {
    wasmModule,
    memory,
    processState,
    extraImports = [],
    hostcallChannel = null,
    poolSize,
    spawnWaitMs,
    instanceId = null,
    onGuestError,
    onSpawnDeclined,
    implementation,
    runtimeModule,
    freshInstances = false
  } = options;
  const capacity = poolSize ?? NODE_POOL_CAPACITY;
  const pool = createWasiThreadPool({ capacity, spawnWaitMs, implementation });
  const poolOps = bindWasiThreadPool(pool);
  const lineage = new Int32Array(new SharedArrayBuffer(4 * capacity));
  const ledger = createSpawnLedger({
    poolSize: poolSize ?? null,
    onSpawnDeclined,
    getPool: () => pool,
    readReport: poolOps.report
  });
  const execArgv = workerExecArgv(process.execArgv);
  const memoryPages = guestMemoryCounter(wasmModule, memory, declaredSharedMaximum(wasmModule));
  const workerData2 = {
    wasmModule,
    memory,
    memoryPages,
    hostcallChannel: hostcallChannel ?? null,
    processState,
    extraImports: extraImports ?? [],
    pool,
    execArgv,
    runtimeModule: runtimeModule ?? null,
    freshInstances: freshInstances === true,
    lineage,
    // Where this thread found the addon: the workers skip the search (lib/native/binding.js).
    wasiThreadPoolAddonPath: native.path
  };
  return {
    poolOps,
    capacity,
    lineage,
    ledger,
    execArgv,
    workerData: workerData2,
    instanceId,
    onGuestError,
    workers: /* @__PURE__ */ new Map(),
    // slot -> Worker, the ones this thread started
    // slot -> tid: threads this thread spawned onto workers started by guest
    // threads. Those Worker objects belong to other threads and cannot be
    // ref'd from here, so the settle timer itself is ref'd while one runs.
    foreign: /* @__PURE__ */ new Map(),
    settleTimer: null,
    terminated: false,
    spawn: null
  };
}
function startWorker(host, slot) {
  const worker = new import_node_worker_threads5.Worker(WORKER_URL, { execArgv: host.execArgv, workerData: { ...host.workerData, slot } });
  worker.unref();
  const fate = { errorReported: false };
  worker.on("error", (error) => onWorkerError(host, slot, error, fate));
  worker.once("exit", () => onWorkerExit(host, slot, worker, fate));
  host.workers.set(slot, worker);
}
function onWorkerError(host, slot, error, fate) {
  fate.errorReported = true;
  console.error("[wasi-thread] worker error:", error);
  reportGuestError(host.onGuestError, host.instanceId, host.poolOps.lastTid(slot) || null, error);
}
function onWorkerExit(host, slot, worker, fate) {
  if (host.workers.get(slot) === worker) host.workers.delete(slot);
  retireLost(host, slot, !fate.errorReported);
  for (const descendant of descendantsOf(host, slot)) retireLost(host, descendant, true);
}
function retireLost(host, slot, reportNeverRan) {
  const { poolOps } = host;
  const state = poolOps.slotState(slot);
  if (state === WASI_THREAD_POOL_SLOT.RETIRED) return;
  const tid = state === WASI_THREAD_POOL_SLOT.ASSIGNED ? poolOps.lastTid(slot) : 0;
  poolOps.retire(slot);
  if (tid > 0 && reportNeverRan) {
    const error = new Error(`guest thread ${tid} never ran: the worker of slot ${slot} ended before it served`);
    console.error(`[wasi-thread] guest thread ${tid} never ran: its worker ended before serving`);
    reportGuestError(host.onGuestError, host.instanceId, tid, error);
  }
}
function descendantsOf(host, ancestor) {
  const { lineage, capacity } = host;
  const found = [];
  const slots = Math.min(host.poolOps.report().slots, capacity);
  for (let slot = 0; slot < slots; slot++) {
    let parent = Atomics.load(lineage, slot) - 1;
    for (let hops = 0; parent >= 0 && hops < capacity; hops++) {
      if (parent === ancestor) {
        found.push(slot);
        break;
      }
      parent = Atomics.load(lineage, parent) - 1;
    }
  }
  return found;
}
function settleRefs(host) {
  const { poolOps, foreign } = host;
  let busy = false;
  for (const [slot, worker] of host.workers) {
    if (poolOps.runningTid(slot) !== null) {
      worker.ref();
      busy = true;
    } else {
      worker.unref();
    }
  }
  for (const [slot, tid] of foreign) {
    if (poolOps.runningTid(slot) !== tid) foreign.delete(slot);
  }
  if (host.settleTimer === null) return;
  if (foreign.size > 0) host.settleTimer.ref();
  else host.settleTimer.unref();
  if (!busy && foreign.size === 0) {
    clearInterval(host.settleTimer);
    host.settleTimer = null;
  }
}
function holdForThread(host, slot, tid) {
  const worker = host.workers.get(slot);
  if (host.settleTimer === null) {
    host.settleTimer = setInterval(() => settleRefs(host), SETTLE_REFS_MS);
    host.settleTimer.unref();
  }
  if (worker) {
    worker.ref();
  } else {
    host.foreign.set(slot, tid);
    host.settleTimer.ref();
  }
}
function threadSpawn(host, startArg) {
  if (host.terminated) return host.ledger.decline(DECLINE.TERMINATED);
  const { tid, slot, reason } = host.spawn(startArg);
  if (tid > 0) {
    holdForThread(host, slot, tid);
    return tid;
  }
  return host.ledger.decline(reason ?? DECLINE.POOL_EXHAUSTED);
}
async function terminateAll(host) {
  host.terminated = true;
  if (host.settleTimer !== null) {
    clearInterval(host.settleTimer);
    host.settleTimer = null;
  }
  host.foreign.clear();
  host.poolOps.terminate();
  const list = [...host.workers.values()];
  host.workers.clear();
  await Promise.all(
    list.map(
      (worker) => worker.terminate().then(
        () => void 0,
        () => void 0
      )
    )
  );
}
async function createNodeWasiThreadHost(options) {
  noteGuestModule(options.wasmModule);
  const host = createHostState(options);
  host.spawn = host.poolOps.createSpawn({ owner: true, grow: (slot) => startWorker(host, slot) });
  const report = host.poolOps.report;
  return {
    threadSpawn: (startArg) => threadSpawn(host, startArg),
    activeThreadCount: () => report().active,
    spawnCount: () => report().spawned,
    distinctOsThreadCount: () => report().workers,
    spawnReport() {
      const { active, idle, workers: osThreads } = report();
      return { ...host.ledger.report(), active, idle, workers: osThreads };
    },
    terminateAll: () => terminateAll(host)
  };
}
var import_node_worker_threads5, NODE_POOL_CAPACITY, WORKER_URL, SETTLE_REFS_MS, EVAL_FLAGS;
var init_node = __esm({
  "lib/host/node.js"() {
    import_node_worker_threads5 = require("node:worker_threads");
    init_binding();
    init_ledger();
    init_liftoff();
    init_memory_counter();
    init_wasm_memory();
    init_layout();
    init_pool();
    init_internal();
    init_reasons();
    NODE_POOL_CAPACITY = 1024;
    WORKER_URL = new URL("../worker/node.bundle.cjs", __wtpImportMetaUrl);
    SETTLE_REFS_MS = 20;
    EVAL_FLAGS = ["--input-type", "--eval", "-e", "--print", "-p"];
  }
});

// lib/program/setup.js
function fail(Kind, message) {
  throw new Kind(`runWasiThreadsProgram: ${message}`);
}
function normalizeArgs(args) {
  if (args === void 0) return ["program"];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    fail(TypeError, "options.args must be an array of strings (args[0] is the program's name).");
  }
  args.forEach((arg, i) => {
    if (arg.includes("\0")) fail(TypeError, `options.args[${i}] contains a NUL character, which WASI cannot pass.`);
  });
  return args.length === 0 ? ["program"] : args;
}
function normalizeEnv(env) {
  if (env === void 0) return {};
  if (env === null || typeof env !== "object" || Array.isArray(env)) {
    fail(TypeError, "options.env must be an object of NAME: value strings.");
  }
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value !== "string") fail(TypeError, `options.env.${key} must be a string.`);
    if (key.includes("=")) fail(TypeError, `options.env name ${JSON.stringify(key)} contains "=".`);
    if (key.includes("\0") || value.includes("\0")) {
      fail(TypeError, `options.env.${key} contains a NUL character, which WASI cannot pass.`);
    }
    out[key] = value;
  }
  return out;
}
function normalizePreopens(preopens) {
  if (preopens === void 0) return {};
  if (preopens === null || typeof preopens !== "object" || Array.isArray(preopens)) {
    fail(TypeError, 'options.preopens must be an object { "/guest/path": "host/dir" }.');
  }
  for (const [guest, host] of Object.entries(preopens)) {
    if (typeof host !== "string") fail(TypeError, `options.preopens[${JSON.stringify(guest)}] must be a string.`);
    let isDirectory = false;
    try {
      isDirectory = (0, import_node_fs3.statSync)(host).isDirectory();
    } catch {
    }
    if (!isDirectory) fail(Error, `cannot open directory ${JSON.stringify(host)} (preopened as ${JSON.stringify(guest)}).`);
  }
  return { ...preopens };
}
function normalizeOutput(value, name, fallback) {
  if (value === void 0) return { fd: fallback, stream: null };
  if (Number.isInteger(value) && value >= 0) return { fd: value, stream: null };
  if (value && typeof value === "object" && Number.isInteger(value.fd) && value.fd >= 0) {
    return { fd: value.fd, stream: null };
  }
  if (value && typeof value.write === "function") return { fd: -1, stream: value };
  fail(TypeError, `options.${name} must be a file descriptor or a writable stream.`);
}
function normalizeStdin(stdin) {
  if (stdin === void 0) return { stream: null, processStdin: true };
  if (stdin === null) return { bytes: new Uint8Array(0) };
  if (typeof stdin === "string") return { bytes: new TextEncoder().encode(stdin) };
  if (stdin instanceof Uint8Array) return { bytes: stdin };
  if (stdin && typeof stdin.on === "function" && typeof stdin.pause === "function") return { stream: stdin };
  fail(TypeError, "options.stdin must be a readable stream, a string, a Uint8Array or null (empty).");
}
function normalizeOptions(options) {
  if (options === null || typeof options !== "object") fail(TypeError, "options must be an object.");
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.includes(key)) fail(TypeError, `unknown option ${JSON.stringify(key)}.`);
  }
  const { poolSize, maxThreads, implementation } = options;
  if (poolSize !== void 0 && !(Number.isInteger(poolSize) && poolSize >= 1 && poolSize <= MOST_THREADS)) {
    fail(RangeError, "options.poolSize must be a positive integer (the most pool workers alive at once).");
  }
  if (maxThreads !== void 0 && !(Number.isInteger(maxThreads) && maxThreads >= 0 && maxThreads <= MOST_THREADS)) {
    fail(
      RangeError,
      "options.maxThreads must be a non-negative integer (the most threads alive at once, the main thread not counted)."
    );
  }
  if (implementation !== void 0 && implementation !== "native" && implementation !== "js") {
    fail(RangeError, `options.implementation must be "native" or "js".`);
  }
  return {
    args: normalizeArgs(options.args),
    env: normalizeEnv(options.env),
    preopens: normalizePreopens(options.preopens),
    stdout: normalizeOutput(options.stdout, "stdout", 1),
    stderr: normalizeOutput(options.stderr, "stderr", 2),
    stdin: normalizeStdin(options.stdin),
    poolSize: poolSize ?? DEFAULT_POOL_SIZE,
    maxThreads: maxThreads ?? DEFAULT_MAX_THREADS,
    implementation
  };
}
async function loadProgram(wasm) {
  const declarations = declarationsOf(wasm);
  const threaded = declarations.all.some((e) => e.module === "wasi" && e.name === "thread-spawn") || declarations.imports.some((m) => m.shared);
  const memory = threaded ? describeProgramMemory(wasm) : describePlainMemory(declarations);
  checkProgramImports(declarations.all, { threaded });
  let wasmModule;
  if (wasm instanceof WebAssembly.Module) {
    wasmModule = wasm;
  } else {
    const bytes = ArrayBuffer.isView(wasm) ? new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength) : new Uint8Array(wasm);
    wasmModule = await compileWasiThreadGuest(bytes);
  }
  const exports2 = WebAssembly.Module.exports(wasmModule);
  if (!exports2.some((e) => e.name === "_start" && e.kind === "function")) {
    fail(
      TypeError,
      'this module exports no _start function: it is not a command. A reactor (_initialize and exported functions) is run with createWasiThreadSpawn (docs/api.md, "Reactors").'
    );
  }
  return { wasmModule, memory, threaded, reserved: threaded && reservesMemory(wasmModule) };
}
async function makeProgram(opts, { wasmModule, memory: memoryType, threaded, reserved }, { ownsProcess = false } = {}) {
  const { memory, memoryPages } = threaded ? makeProgramMemory(memoryType, reserved) : { memory: null, memoryPages: null };
  const pool = threaded ? createWasiThreadPool({ capacity: opts.poolSize, spawnWaitMs: 0, implementation: opts.implementation }) : null;
  const unavailable = programWasiUnavailable();
  if (unavailable) tellFallbackOnce(unavailable);
  const { control, stdinBuffer, trapText, outRing } = createProgramControl({
    outputRing: unavailable !== null && (opts.stdout.stream !== null || opts.stderr.stream !== null)
  });
  const programWasi = unavailable ? null : await createProgramWasiOrClose(opts, pool);
  const program = {
    pool,
    control,
    stdinBuffer,
    trapText,
    outRing,
    // The thread limit, the queue and the workers' start times of a threaded
    // program (lib/program/threads.js); a plain program has none.
    threads: threaded ? createThreadWords(opts.maxThreads) : null,
    growTimes: threaded ? createGrowTimes(opts.poolSize) : null,
    // The program's size in pages when its memory is reserved
    // (lib/program/memory.js), read and grown by every thread; else null.
    memoryPages,
    args: opts.args,
    env: opts.env,
    preopens: opts.preopens,
    stdoutFd: opts.stdout.fd,
    stderrFd: opts.stderr.fd,
    wasiId: programWasi?.id ?? 0,
    execArgv: await workerExecArgvOf(process.execArgv),
    poolSize: opts.poolSize,
    ownsProcess
  };
  const plainMemory = threaded ? null : memoryType;
  return { program, threaded, wasmModule, memory, plainMemory, pool, programWasi };
}
async function createProgramWasiOrClose(opts, pool) {
  try {
    return await createProgramWasi(opts);
  } catch (error) {
    if (pool !== null) terminateWasiThreadPool2(pool);
    throw error;
  }
}
async function workerExecArgvOf(execArgv) {
  if (!execArgv.some((arg) => arg.startsWith("--input-type"))) return void 0;
  const { workerExecArgv: workerExecArgv2 } = await Promise.resolve().then(() => (init_node(), node_exports));
  return workerExecArgv2(execArgv);
}
var import_node_fs3, OPTION_NAMES, MOST_THREADS;
var init_setup = __esm({
  "lib/program/setup.js"() {
    import_node_fs3 = require("node:fs");
    init_liftoff();
    init_pool();
    init_control();
    init_link();
    init_threads();
    init_wasm_memory();
    init_wasi();
    init_memory();
    OPTION_NAMES = ["args", "env", "stdin", "stdout", "stderr", "preopens", "poolSize", "maxThreads", "implementation"];
    MOST_THREADS = 268435454;
  }
});

// lib/program/run.js
var run_exports = {};
__export(run_exports, {
  TRAP_EXIT_CODE: () => TRAP_EXIT_CODE,
  runWasiThreadsProgram: () => runWasiThreadsProgram
});
function createStdinFeeder(source, control, stdinBuffer) {
  const pending = [];
  let ended = false;
  let attached = false;
  let stream = source.stream ?? null;
  if (source.bytes) {
    if (source.bytes.length > 0) pending.push(source.bytes);
    ended = true;
  }
  function serve() {
    if (Atomics.load(control, C_STDIN_STATE) !== STDIN_REQUESTED) return;
    if (pending.length > 0) {
      const chunk = pending[0];
      const take = Math.min(chunk.length, stdinBuffer.length);
      stdinBuffer.set(chunk.subarray(0, take));
      if (take === chunk.length) pending.shift();
      else pending[0] = chunk.subarray(take);
      Atomics.store(control, C_STDIN_LEN, take);
      Atomics.store(control, C_STDIN_POS, 0);
      Atomics.store(control, C_STDIN_STATE, STDIN_FULL);
      Atomics.notify(control, C_STDIN_STATE);
    } else if (ended) {
      Atomics.store(control, C_STDIN_STATE, STDIN_EOF);
      Atomics.notify(control, C_STDIN_STATE);
    } else if (stream || source.processStdin) {
      stream ??= process.stdin;
      attach();
      stream.resume();
    }
  }
  const onData = (chunk) => {
    stream.pause();
    pending.push(
      typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    );
    serve();
  };
  const onEnd = () => {
    ended = true;
    serve();
  };
  function attach() {
    if (attached) return;
    attached = true;
    if (typeof stream.ref === "function") stream.ref();
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onEnd);
  }
  const detach = () => {
    stream.off("data", onData);
    stream.off("end", onEnd);
    stream.off("error", onEnd);
    stream.pause();
    if (typeof stream.unref === "function") stream.unref();
  };
  return {
    serve,
    close() {
      if (attached) detach();
    }
  };
}
async function runWasiThreadsProgram(wasm, options = {}) {
  const opts = normalizeOptions(options ?? {});
  const run = await makeProgram(opts, await loadProgram(wasm));
  run.workerFault = null;
  run.workerGone = false;
  const { program } = run;
  startMainThread(run, opts);
  const streams = { 1: opts.stdout.stream, 2: opts.stderr.stream };
  const drainOutput = () => drainOutputRing(program, (fd, bytes) => streams[fd]?.write(bytes));
  const feeder = run.programWasi ? { serve() {
  }, close() {
  } } : createStdinFeeder(opts.stdin, program.control, program.stdinBuffer);
  await supervise(run, drainOutput, feeder);
  await stopEverything(run);
  await run.programWasi?.release();
  drainOutput();
  return outcome(program, run.workerFault, (text) => writeText(opts.stderr, text));
}
function startMainThread(run, opts) {
  const { program, threaded, wasmModule, memory, plainMemory, pool } = run;
  const processState = { program };
  run.worker = new import_node_worker_threads7.Worker(PROGRAM_WORKER_URL, {
    execArgv: program.execArgv,
    workerData: { wasmModule, memory, plainMemory, pool, processState }
  });
  run.worker.on("error", (error) => {
    run.workerFault = error;
    run.poke?.();
  });
  run.worker.on("exit", () => {
    run.workerGone = true;
    run.poke?.();
  });
  run.supervisorSpawn = threaded ? createSupervisorSpawn({ wasmModule, memory, processState }) : null;
  run.queueWatch = threaded ? watchThreadQueue(program, {
    ...run.supervisorSpawn,
    onFullStall: (queued2) => writeText(opts.stderr, fullStallMessage(queued2, opts.poolSize))
  }) : null;
}
async function supervise(run, drainOutput, feeder) {
  const { control } = run.program;
  try {
    for (; ; ) {
      const seen = Atomics.load(control, C_DOORBELL);
      if (Atomics.load(control, C_STATE) !== STATE_RUNNING) break;
      if (run.workerFault || run.workerGone) break;
      drainOutput();
      feeder.serve();
      const waiting = Atomics.waitAsync(control, C_DOORBELL, seen);
      if (waiting.async) {
        await new Promise((resolve) => {
          run.poke = resolve;
          waiting.value.then(resolve);
        });
        run.poke = null;
      }
    }
  } finally {
    feeder.close();
    Atomics.notify(control, C_DOORBELL);
  }
}
async function stopEverything(run) {
  if (run.threaded) {
    stopThreadQueue(run.program);
    await run.queueWatch;
  }
  run.programWasi?.stop();
  await stopProgram(run.pool, run.worker, run.supervisorSpawn?.ownWorkers ?? []);
}
async function outcome(program, workerFault, writeStderr) {
  const ended = programOutcome(program);
  if (ended === null) {
    const why = workerFault ? workerFault.stack ?? String(workerFault) : "its worker exited";
    await writeStderr(`wasi-thread-pool: the program's main thread's worker failed: ${why}
`);
    return { exitCode: TRAP_EXIT_CODE };
  }
  if (ended.message !== null) await writeStderr(ended.message);
  return { exitCode: ended.exitCode };
}
async function stopProgram(pool, worker, ownWorkers) {
  if (pool === null) {
    await worker.terminate();
    return;
  }
  const nativePool = native.binding !== null && wasiThreadPoolImplementationOf(pool) === "native";
  const retired = terminateWasiThreadPool2(pool);
  if (nativePool) {
    const control = pool.control;
    const slots = Math.min(Atomics.load(control, H_SLOTS), retired);
    for (let slot = 0; slot < slots; slot++) {
      const osThread = Atomics.load(control, HEADER_WORDS + SLOT_WORDS * slot + S_THREAD);
      if (osThread > 0) native.binding.interruptThread(osThread);
    }
  }
  await Promise.all([worker, ...ownWorkers].map((w) => w.terminate()));
}
function writeText({ fd, stream }, text) {
  if (stream) {
    stream.write(text);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    if (fd === 2) process.stderr.write(text, () => resolve());
    else (0, import_node_fs5.write)(fd, text, () => resolve());
  });
}
var import_node_fs5, import_node_worker_threads7, PROGRAM_WORKER_URL;
var init_run = __esm({
  "lib/program/run.js"() {
    import_node_fs5 = require("node:fs");
    import_node_worker_threads7 = require("node:worker_threads");
    init_binding();
    init_layout();
    init_pool();
    init_control();
    init_pool2();
    init_setup();
    init_threads();
    init_control();
    PROGRAM_WORKER_URL = new URL("./main-worker.js", __wtpImportMetaUrl);
  }
});

// lib/program/cli-main.js
var cli_main_exports = {};
__export(cli_main_exports, {
  runCli: () => runCli
});
module.exports = __toCommonJS(cli_main_exports);
var import_node_fs6 = require("node:fs");
var import_node_path2 = require("node:path");

// lib/program/cli.js
var UsageError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
};
var HELP = `Usage: wasi-thread-pool [run] [OPTIONS] <WASM> [ARGS]...

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
  --max-threads <N>            at most N threads alive at once besides the
                               main thread; a spawn fails (pthread_create:
                               EAGAIN) only beyond (default 16384)
  --pool <N>                   at most N pool workers alive at once (default
                               1024); threads beyond wait for a free worker
  --implementation <IMPL>      the pool's waits: native (the addon; the default
                               when it loads) or js
  -h, --help                   show this help
  -V, --version                show the version

Exit status: the program's proc_exit code (0 when _start returns);
proc_exit outside [0..126) is an error: 1. A trap on any thread: 134, with
the thread and the trap on stderr. A module that cannot be linked (an import
the runner does not provide, or a WASI import of the wrong type): 1, before
it runs. A usage error: 2.

The program's stdin, stdout and stderr are this process's. Not supported from
wasmtime's options: --invoke, --preload, other -S/-W keys, and wasmtime's
other option groups (-O, -C, -D).

Example:
  wasi-thread-pool run --dir ./data::/data --env LANES=8 --env HOME app.wasm input.txt

As a cargo runner (README, "cargo run and cargo test"):
  CARGO_TARGET_WASM32_WASIP1_THREADS_RUNNER="wasi-thread-pool run --dir . --env RUST_BACKTRACE"
`;
var ACCEPTED_KEYS = { "-S": ["threads"], "-W": ["threads"] };
var TRUE_WORDS = [void 0, "y", "yes", "true"];
var FALSE_WORDS = ["n", "no", "false"];
var VALUE_OPTIONS = /* @__PURE__ */ new Map([
  ["--dir", "--dir"],
  ["--env", "--env"],
  ["--argv0", "--argv0"],
  ["--wasi", "-S"],
  ["-S", "-S"],
  ["--wasm", "-W"],
  ["-W", "-W"],
  ["--pool", "--pool"],
  ["--implementation", "--implementation"],
  ["--max-threads", "--max-threads"]
]);
var UNSUPPORTED = {
  "--invoke": "the runner runs a command's _start only",
  "--preload": "the runner links one module",
  "--mapdir": "wasmtime's old GUEST::HOST form is gone: use --dir HOST::GUEST"
};
function checkNoNul(what, text) {
  if (text.includes("\0")) throw new UsageError(`${what} contains a NUL character, which WASI cannot pass.`);
}
function splitInline(arg) {
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    return eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, void 0];
  }
  if (/^-[SW]./.test(arg)) return [arg.slice(0, 2), arg.slice(arg[2] === "=" ? 3 : 2)];
  return [arg, void 0];
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
function parseEnv(spec, hostEnv, env) {
  const eq = spec.indexOf("=");
  const name = eq < 0 ? spec : spec.slice(0, eq);
  if (!name) throw new UsageError(`--env needs NAME[=VAL] (got ${JSON.stringify(spec)}).`);
  checkNoNul(`--env ${name}'s value`, eq >= 0 ? spec.slice(eq + 1) : hostEnv[name] ?? "");
  if (eq >= 0) env[name] = spec.slice(eq + 1);
  else if (Object.hasOwn(hostEnv, name) && hostEnv[name] !== void 0) env[name] = hostEnv[name];
  else delete env[name];
}
function parseWasmtimeKeys(group, list) {
  const flag = group === "-S" ? "-S/--wasi" : "-W/--wasm";
  for (const item of list.split(",")) {
    const eq = item.indexOf("=");
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? void 0 : item.slice(eq + 1);
    if (!ACCEPTED_KEYS[group].includes(key)) {
      throw new UsageError(`${flag} key ${JSON.stringify(key)} is not supported (accepted: ${ACCEPTED_KEYS[group].join(", ")}).`);
    }
    if (FALSE_WORDS.includes(value)) throw new UsageError(`${flag} ${key}=${value}: threads are always on in this runner.`);
    if (!TRUE_WORDS.includes(value)) {
      throw new UsageError(`${flag} ${key}: unknown boolean ${JSON.stringify(value)} (y, yes, true or nothing).`);
    }
  }
}
function integerOption(flag, text, least) {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n < least) {
    const kind = least === 0 ? "a non-negative integer" : "a positive integer";
    throw new UsageError(`${flag} needs ${kind} (got ${JSON.stringify(text)}).`);
  }
  return n;
}
function applyOption(opts, flag, value, hostEnv) {
  if (flag === "--dir") {
    const { host, guest } = parseDir(value);
    opts.preopens[guest] = host;
  } else if (flag === "--env") parseEnv(value, hostEnv, opts.env);
  else if (flag === "--argv0") opts.argv0 = value;
  else if (flag === "-S" || flag === "-W") parseWasmtimeKeys(flag, value);
  else if (flag === "--pool") opts.poolSize = integerOption(flag, value, 1);
  else if (flag === "--max-threads") opts.maxThreads = integerOption(flag, value, 0);
  else if (flag === "--implementation") {
    if (value !== "native" && value !== "js") {
      throw new UsageError(`--implementation is "native" or "js" (got ${JSON.stringify(value)}).`);
    }
    opts.implementation = value;
  }
}
function parseCommandLine(argv, hostEnv = {}) {
  for (const arg of argv) checkNoNul("an argument", arg);
  let i = 0;
  if (argv[0] === "run") i = 1;
  else if (argv[0] === "help") return { action: "help" };
  const opts = { env: {}, preopens: {}, argv0: void 0, poolSize: void 0, maxThreads: void 0, implementation: void 0 };
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    if (arg === "-h" || arg === "--help") return { action: "help" };
    if (arg === "-V" || arg === "--version") return { action: "version" };
    const [spelled, inline] = splitInline(arg);
    if (Object.hasOwn(UNSUPPORTED, spelled)) throw new UsageError(`${spelled} is not supported: ${UNSUPPORTED[spelled]}.`);
    const flag = VALUE_OPTIONS.get(spelled);
    if (flag === void 0) throw new UsageError(`unknown option ${arg}.`);
    let value = inline;
    if (value === void 0) {
      if (i + 1 >= argv.length) throw new UsageError(`${spelled} needs a value.`);
      value = argv[++i];
    }
    applyOption(opts, flag, value, hostEnv);
  }
  if (i >= argv.length) throw new UsageError("no module given.");
  return { action: "run", file: argv[i], args: argv.slice(i + 1), ...opts };
}

// lib/program/process.js
init_binding();

// lib/program/runtime.js
var import_node_worker_threads4 = require("node:worker_threads");
init_pool();
init_control();
init_pool2();
init_memory_counter();
init_threads();
var WATCH_WORKER_URL = new URL("./watch-worker.js", __wtpImportMetaUrl);
function programOf(processState, file) {
  const program = processState?.program;
  if (!program || !(program.control instanceof Int32Array)) {
    throw new TypeError(`${file} is the runtime of runWasiThreadsProgram: its processState has no program.`);
  }
  return program;
}
function programImports({ preview1, program, threadSpawn: threadSpawn2, wasmModule, memory }) {
  const imports = { wasi_snapshot_preview1: preview1 };
  if (program.memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(program.memoryPages);
  if (threadSpawn2 !== null) imports.wasi = { "thread-spawn": threadSpawnImport(program, threadSpawn2) };
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
  const worker = new import_node_worker_threads4.Worker(WATCH_WORKER_URL, {
    execArgv: processState.program.execArgv,
    workerData: { wasmModule, memory, processState }
  });
  worker.unref();
  worker.on("error", () => {
  });
}
function threadSpawnImport(program, threadSpawn2) {
  return (startArg) => {
    if (programEnded(program)) parkForever(program.control);
    return threadSpawn2(startArg);
  };
}
function runGuestMainThread(runProgramMain2, { wasmModule, memory, plainMemory, processState }) {
  if (processState.program.pool === null) {
    const ownMemory = plainMemory ? new WebAssembly.Memory({ initial: plainMemory.initial, maximum: plainMemory.maximum ?? void 0 }) : null;
    runProgramMain2({ wasmModule, memory: ownMemory, processState, threadSpawn: null });
  } else {
    const threadSpawn2 = programThreadSpawn({ wasmModule, memory, processState });
    runProgramMain2({ wasmModule, memory, processState, threadSpawn: threadSpawn2 });
  }
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

// lib/program/process.js
init_setup();

// lib/program/wasi-c.js
var import_node_fs4 = require("node:fs");
var import_node_worker_threads6 = require("node:worker_threads");
init_binding();
init_control();
var FILE = "lib/program/wasi-c.js";
var ERRNO_FAULT = 21;
function bindingOf() {
  const binding = native.binding;
  if (typeof binding?.wasiImports !== "function") {
    throw new Error(`${FILE}: the addon with the program's C WASI did not load here (${native.error ?? "no WASI in it"}).`);
  }
  return binding;
}
function createImports({ wasmModule, memory, program, threadSpawn: threadSpawn2 }) {
  const binding = bindingOf();
  if (program.ownsProcess) setProcessEnder(exitProcessNow);
  const id = program.wasiId;
  const stopWasi = () => binding.wasiStop(id);
  const attach = (programMemory) => binding.wasiImports(id, programMemory, () => parkForever(program.control));
  const own = (wasi) => ({ ...wasi, proc_exit: (code) => endProgram(program, code >>> 0, stopWasi) });
  if (memory) {
    const wasi = attach(memory);
    const imports = programImports({ preview1: own(wasi), program, threadSpawn: threadSpawn2, wasmModule, memory });
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
  return { imports: programImports({ preview1, program, threadSpawn: threadSpawn2, wasmModule, memory }), stopWasi, attachMemory };
}
function exitProcessNow(program) {
  const { exitCode, message } = programOutcome(program);
  if (message !== null) {
    try {
      (0, import_node_fs4.writeSync)(program.stderrFd, message);
    } catch {
    }
  }
  if (import_node_worker_threads6.isMainThread) process.exit(exitCode);
  native.binding.exitProcess(exitCode);
}
function runProgramMain({ wasmModule, memory, processState, threadSpawn: threadSpawn2 }) {
  const program = programOf(processState, FILE);
  const { imports, stopWasi, attachMemory } = createImports({ wasmModule, memory, program, threadSpawn: threadSpawn2 });
  runProgramMainWith({ wasmModule, program, imports, attachMemory, onEnd: stopWasi });
}

// lib/program/process.js
init_wasi();
async function runProgramAsProcess(wasm, options) {
  if (programWasiUnavailable() !== null || typeof native.binding.exitProcess !== "function") {
    const { runWasiThreadsProgram: runWasiThreadsProgram2 } = await Promise.resolve().then(() => (init_run(), run_exports));
    return runWasiThreadsProgram2(wasm, options);
  }
  const opts = normalizeOptions(options);
  const { program, wasmModule, memory, plainMemory } = await makeProgram(opts, await loadProgram(wasm), {
    ownsProcess: true
  });
  runGuestMainThread(runProgramMain, { wasmModule, memory, plainMemory, processState: { program } });
}

// lib/program/cli-main.js
function usage(message) {
  process.stderr.write(`wasi-thread-pool: ${message}

Run wasi-thread-pool --help for usage.
`);
  process.exit(2);
}
async function runCli() {
  if (process.argv.length === 2) {
    process.stderr.write(HELP);
    process.exit(2);
  }
  let opts;
  try {
    opts = parseCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    usage(error.message);
  }
  if (opts.action === "help") {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (opts.action === "version") {
    const { version } = JSON.parse((0, import_node_fs6.readFileSync)(new URL("../../package.json", __wtpImportMetaUrl), "utf8"));
    process.stdout.write(`wasi-thread-pool ${version}
`);
    process.exit(0);
  }
  let bytes;
  try {
    bytes = (0, import_node_fs6.readFileSync)(opts.file);
  } catch (error) {
    process.stderr.write(`wasi-thread-pool: cannot read the module ${opts.file}: ${error.message}
`);
    process.exit(1);
  }
  try {
    const { exitCode } = await runProgramAsProcess(bytes, {
      args: [opts.argv0 ?? (0, import_node_path2.basename)(opts.file), ...opts.args],
      env: opts.env,
      preopens: opts.preopens,
      poolSize: opts.poolSize,
      maxThreads: opts.maxThreads,
      implementation: opts.implementation
    });
    process.exitCode = exitCode;
  } catch (error) {
    process.stderr.write(`wasi-thread-pool: ${error.message}
`);
    process.exitCode = 1;
  }
  process.stdin.unref?.();
  process.stdin.destroy?.();
}
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  runCli
});
