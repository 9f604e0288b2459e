// Built from lib/worker/node.js by scripts/bundle-workers.js: do not edit; run
// `node scripts/bundle-workers.js` after changing any file it imports.
const __wtpImportMetaUrl = require("node:url").pathToFileURL(__filename).href;
var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// lib/worker/node.js
var import_node_worker_threads4 = require("node:worker_threads");

// lib/native/backend.js
var import_node_worker_threads2 = require("node:worker_threads");

// lib/native/binding.js
var import_node_module = require("node:module");
var import_node_url = require("node:url");
var import_node_worker_threads = require("node:worker_threads");

// lib/native/prebuilds.js
var import_node_fs = require("node:fs");
var import_node_path = require("node:path");
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

// lib/native/binding.js
var require2 = (0, import_node_module.createRequire)(__wtpImportMetaUrl);
var root = (0, import_node_url.fileURLToPath)(new URL("../..", __wtpImportMetaUrl));
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
var native = load();

// lib/pool/backend.js
var backend = {
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
function useNativeBackend({ native: native2, env, beforeNativeUse }) {
  backend.native = native2;
  backend.addon = native2?.binding ?? null;
  backend.env = env;
  backend.beforeNativeUse = beforeNativeUse;
}

// lib/native/backend.js
var hooked = false;
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
useNativeBackend({ native, env: process.env, beforeNativeUse: installNativeHooks });

// lib/pool/layout.js
var DEFAULT_WASI_THREAD_SPAWN_WAIT_MS = 250;
var HEADER_WORDS = 8;
var SLOT_WORDS = 8;
var H_GENERATION = 0;
var H_NEXT_TID = 1;
var H_SPAWNED = 2;
var H_WAITED = 3;
var H_DECLINED = 4;
var H_SLOTS = 5;
var H_CAPACITY = 6;
var H_IMPL = 7;
var S_STATE = 0;
var S_TID = 1;
var S_ARG = 2;
var S_FLAGS = 3;
var S_THREAD = 4;
var WASI_THREAD_POOL_SLOT = Object.freeze({
  PENDING: 0,
  IDLE: 1,
  CLAIMED: 2,
  ASSIGNED: 3,
  RUNNING: 4,
  RETIRED: 5
});
var FLAG_MESSAGE_DISPATCH = 1;
var MAX_TID = 536870911;
var GROW_AFTER_MS = 2;
var IMPL_JS = 0;
var IMPL_NATIVE = 2004119662;
var IMPL_CLOSED = -2147483648;
var IMPL_MASK = 2147483647;
function maxSlotsOf(length) {
  return length < HEADER_WORDS ? 0 : Math.floor((length - HEADER_WORDS) / SLOT_WORDS);
}
function slotBase(slot2) {
  return HEADER_WORDS + SLOT_WORDS * slot2;
}

// lib/pool/reasons.js
var POOL_DECLINE_REASONS = Object.freeze([
  null,
  "pool-exhausted",
  "worker-create-failed",
  "tid-exhausted",
  "dispatch-failed",
  "interrupted",
  "terminated"
]);
var HOST_DECLINE_REASONS = Object.freeze([
  "threads-unavailable",
  "pool-empty",
  "pool-not-armed",
  "hostcall-channel-missing",
  "pool-disabled"
]);
var DECLINE = Object.freeze({
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

// lib/pool/twin.js
var { PENDING, IDLE, CLAIMED, ASSIGNED, RUNNING, RETIRED } = WASI_THREAD_POOL_SLOT;
var { POOL_EXHAUSTED, WORKER_CREATE_FAILED, TID_EXHAUSTED, DISPATCH_FAILED, TERMINATED } = DECLINE;
var monotonicNow = typeof performance !== "undefined" && typeof performance.now === "function" ? () => performance.now() : () => Date.now();
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
function setState(control, slot2, state) {
  const index = slotBase(slot2) + S_STATE;
  Atomics.store(control, index, state);
  Atomics.notify(control, index);
  bumpGeneration(control);
}
function terminateWasiThreadPool(pool2) {
  const control = pool2.control;
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
function openWasiThreadPoolSlots(pool2, count) {
  Atomics.store(pool2.control, H_SLOTS, count);
}
function armWasiThreadPoolSlot(pool2, slot2, { messageDispatch = false } = {}) {
  const control = pool2.control;
  const index = slotBase(slot2) + S_STATE;
  if (Atomics.load(control, index) !== PENDING) return;
  if (messageDispatch) {
    Atomics.store(control, slotBase(slot2) + S_FLAGS, FLAG_MESSAGE_DISPATCH);
  }
  if (Atomics.compareExchange(control, index, PENDING, IDLE) !== PENDING) return;
  Atomics.notify(control, index);
  bumpGeneration(control);
}
function retireWasiThreadPoolSlot(pool2, slot2) {
  setState(pool2.control, slot2, RETIRED);
}
function wasiThreadPoolSlotState(pool2, slot2) {
  return Atomics.load(pool2.control, slotBase(slot2) + S_STATE);
}
function wasiThreadPoolLastTid(pool2, slot2) {
  return Atomics.load(pool2.control, slotBase(slot2) + S_TID);
}
function wasiThreadPoolRunningTid(pool2, slot2) {
  const control = pool2.control;
  const base = slotBase(slot2);
  const state = Atomics.load(control, base + S_STATE);
  return state === ASSIGNED || state === RUNNING ? Atomics.load(control, base + S_TID) : null;
}
function releaseWasiThreadPoolSlotIfRunning(pool2, slot2, tid) {
  const control = pool2.control;
  const base = slotBase(slot2);
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
function finishWasiThreadPoolRun(pool2, slot2) {
  const control = pool2.control;
  if (Atomics.compareExchange(control, slotBase(slot2) + S_STATE, RUNNING, IDLE) === RUNNING) {
    bumpGeneration(control);
  }
}
function serveWasiThreadPoolSlot(pool2, slot2, { runThread, osThreadId = 0 } = {}) {
  const control = pool2.control;
  const base = slotBase(slot2);
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
      setState(control, slot2, RETIRED);
      throw error;
    }
    if (result === false) {
      setState(control, slot2, RETIRED);
      return;
    }
    finishWasiThreadPoolRun(pool2, slot2);
  }
}
function readWasiThreadPoolReport(pool2) {
  const control = pool2.control;
  const slots = slotsOf(control, capacityOf(control));
  let active = 0;
  let idle = 0;
  let workers = 0;
  for (let slot2 = 0; slot2 < slots; slot2++) {
    const base = slotBase(slot2);
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
function createSpawner(pool2, owner, grow2, dispatchMessage) {
  const control = pool2.control;
  return {
    pool: pool2,
    control,
    owner,
    grow: grow2,
    growable: typeof grow2 === "function",
    dispatchMessage,
    spawnWaitMs: pool2.spawnWaitMs ?? DEFAULT_WASI_THREAD_SPAWN_WAIT_MS,
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
  for (let slot2 = 0; slot2 < slots; slot2++) {
    const base = slotBase(slot2);
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
      return slot2;
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
  const slot2 = reserve(spawner);
  if (slot2 === -2) {
    attempt.reason = TERMINATED;
    return -1;
  }
  if (slot2 < 0) return -1;
  spawner.dispatch = false;
  try {
    spawner.grow(slot2);
  } catch {
    setState(spawner.control, slot2, RETIRED);
    attempt.reason = WORKER_CREATE_FAILED;
    return -1;
  }
  if (isClosed(spawner.control)) {
    setState(spawner.control, slot2, RETIRED);
    attempt.reason = TERMINATED;
    return -1;
  }
  return slot2;
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
    const slot2 = scan(spawner);
    if (slot2 >= 0) return slot2;
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
function takeTid(control, slot2) {
  const tid = nextTid(control);
  if (tid > MAX_TID || tid < 1) {
    Atomics.compareExchange(control, slotBase(slot2) + S_STATE, CLAIMED, IDLE);
    bumpGeneration(control);
    return 0;
  }
  return tid;
}
function publish(control, slot2, tid, startArg) {
  const base = slotBase(slot2);
  const lastTid = Atomics.load(control, base + S_TID);
  Atomics.store(control, base + S_TID, tid);
  Atomics.store(control, base + S_ARG, startArg | 0);
  if (Atomics.compareExchange(control, base + S_STATE, CLAIMED, ASSIGNED) === CLAIMED) {
    return true;
  }
  Atomics.compareExchange(control, base + S_TID, tid, lastTid);
  return false;
}
function dispatchThread(spawner, slot2, tid, startArg, attempt) {
  const control = spawner.control;
  if (spawner.dispatch) {
    try {
      spawner.dispatchMessage(slot2, tid, startArg);
    } catch {
      releaseWasiThreadPoolSlotIfRunning(spawner.pool, slot2, tid);
      return decline(control, DISPATCH_FAILED);
    }
  } else {
    Atomics.notify(control, slotBase(slot2) + S_STATE);
  }
  Atomics.add(control, H_SPAWNED, 1);
  if (attempt !== null && attempt.waited) Atomics.add(control, H_WAITED, 1);
  return { tid, slot: slot2, reason: null };
}
function spawnOn(spawner, startArg) {
  const control = spawner.control;
  if (isClosed(control)) return decline(control, TERMINATED);
  let slot2 = scan(spawner);
  let attempt = null;
  let tid = 0;
  for (; ; ) {
    if (slot2 < 0) {
      attempt ??= { deadline: -1, growAt: 0, waited: false, reason: null };
      slot2 = claim(spawner, attempt);
      if (slot2 < 0) return decline(control, attempt.reason);
    }
    if (tid === 0) {
      tid = takeTid(control, slot2);
      if (tid === 0) return decline(control, TID_EXHAUSTED);
    }
    if (publish(control, slot2, tid, startArg)) break;
    slot2 = scan(spawner);
  }
  return dispatchThread(spawner, slot2, tid, startArg, attempt);
}
function createWasiThreadPoolSpawn(pool2, { owner = false, grow: grow2 = null, dispatchMessage = null } = {}) {
  const spawner = createSpawner(pool2, owner, grow2, dispatchMessage);
  return function spawn(startArg) {
    return spawnOn(spawner, startArg);
  };
}

// lib/pool/validate.js
var SPAWN_WAIT_MESSAGE = "spawnWaitMs must be a finite, non-negative number of milliseconds.";
function checkPool(pool2) {
  if (pool2 === null || typeof pool2 !== "object") {
    throw new TypeError("pool must be a pool descriptor ({ control, spawnWaitMs }).");
  }
  const { control } = pool2;
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
function checkSlot(control, slot2) {
  if (typeof slot2 !== "number") {
    throw new TypeError("slot must be a number.");
  }
  const limit = maxSlotsOf(control.length);
  if (!Number.isInteger(slot2) || slot2 < 0 || slot2 >= limit) {
    throw new RangeError(`slot must be an integer in [0, ${limit}) for this pool buffer.`);
  }
  return slot2;
}
function checkPoolSpawnWaitMs(pool2) {
  const value = pool2.spawnWaitMs;
  if (value === void 0 || value === null) return DEFAULT_WASI_THREAD_SPAWN_WAIT_MS;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(`pool.${SPAWN_WAIT_MESSAGE}`);
  }
  return value;
}

// lib/pool/internal.js
var handles = /* @__PURE__ */ new WeakMap();
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
function createNativeSpawn(control, handle, spawnWaitMs, { owner = false, grow: grow2 = null, dispatchMessage = null } = {}) {
  let currentStartArg;
  const dispatch = dispatchMessage && ((slot2, tid) => dispatchMessage(slot2, tid, currentStartArg));
  const out = new Int32Array(new SharedArrayBuffer(4));
  const spawner = backend.addon.createSpawner(handle, spawnWaitMs, owner, grow2, dispatch, out, backend.native.threadId, control);
  const spawn = backend.addon.spawn;
  return function spawnWasiThread(startArg) {
    currentStartArg = startArg;
    const result = spawn(spawner, startArg | 0, grow2, dispatch);
    if (result > 0) return { tid: result, slot: out[0], reason: null };
    return { tid: -1, slot: -1, reason: POOL_DECLINE_REASONS[-result] ?? DECLINE.POOL_EXHAUSTED };
  };
}
function createTwinSpawn(pool2, control, spawnWaitMs, options) {
  const descriptor = pool2.spawnWaitMs === spawnWaitMs ? pool2 : { control, spawnWaitMs };
  return createWasiThreadPoolSpawn(descriptor, options);
}
function nativeOperations(control, spawnWaitMs) {
  const addon = backend.addon;
  const handle = handleOf(control);
  return {
    openSlots: (count) => addon.openSlots(handle, count, control),
    arm: (slot2, messageDispatch) => addon.arm(handle, slot2, messageDispatch, control),
    retire: (slot2) => addon.retire(handle, slot2, control),
    slotState: (slot2) => addon.slotState(handle, slot2, control),
    lastTid: (slot2) => addon.lastTid(handle, slot2, control),
    runningTid: (slot2) => addon.runningTid(handle, slot2, control),
    release: (slot2, tid) => addon.release(handle, slot2, tid, control),
    serve: (slot2, runThread, osThreadId = 0) => addon.serve(handle, slot2, runThread, osThreadId, backend.native.threadId, control),
    report: () => addon.report(handle, control),
    terminate: () => addon.close(handle, control),
    createSpawn: (options) => createNativeSpawn(control, handle, spawnWaitMs, options)
  };
}
function twinOperations(pool2, control, spawnWaitMs) {
  return {
    openSlots: (count) => openWasiThreadPoolSlots(pool2, count),
    arm: (slot2, messageDispatch) => armWasiThreadPoolSlot(pool2, slot2, { messageDispatch }),
    retire: (slot2) => retireWasiThreadPoolSlot(pool2, slot2),
    slotState: (slot2) => wasiThreadPoolSlotState(pool2, slot2),
    lastTid: (slot2) => wasiThreadPoolLastTid(pool2, slot2),
    runningTid: (slot2) => wasiThreadPoolRunningTid(pool2, slot2),
    release: (slot2, tid) => releaseWasiThreadPoolSlotIfRunning(pool2, slot2, tid),
    serve: (slot2, runThread, osThreadId = 0) => serveWasiThreadPoolSlot(pool2, slot2, { runThread, osThreadId }),
    report: () => readWasiThreadPoolReport(pool2),
    terminate: () => terminateWasiThreadPool(pool2),
    createSpawn: (options) => createTwinSpawn(pool2, control, spawnWaitMs, options)
  };
}
function bindWasiThreadPool(pool2) {
  const control = checkPool(pool2);
  const spawnWaitMs = checkPoolSpawnWaitMs(pool2);
  return isNative(control) ? nativeOperations(control, spawnWaitMs) : twinOperations(pool2, control, spawnWaitMs);
}

// lib/worker/runtime.js
var runtime_exports = {};
__export(runtime_exports, {
  HOSTCALL_IMPORT_MODULE: () => HOSTCALL_IMPORT_MODULE,
  WASI_THREAD_HOSTCALL_MESSAGE: () => WASI_THREAD_HOSTCALL_MESSAGE,
  WasiExitError: () => WasiExitError,
  createThreadRunner: () => createThreadRunner,
  createWasiThreadWorkerRuntime: () => createWasiThreadWorkerRuntime,
  mergeImportFragments: () => mergeImportFragments,
  resolveExtraImports: () => resolveExtraImports,
  resolveModuleExtraImports: () => resolveModuleExtraImports
});

// node_modules/@bjorn3/browser_wasi_shim/dist/wasi_defs.js
var wasi_defs_exports = {};
__export(wasi_defs_exports, {
  ADVICE_DONTNEED: () => ADVICE_DONTNEED,
  ADVICE_NOREUSE: () => ADVICE_NOREUSE,
  ADVICE_NORMAL: () => ADVICE_NORMAL,
  ADVICE_RANDOM: () => ADVICE_RANDOM,
  ADVICE_SEQUENTIAL: () => ADVICE_SEQUENTIAL,
  ADVICE_WILLNEED: () => ADVICE_WILLNEED,
  CLOCKID_MONOTONIC: () => CLOCKID_MONOTONIC,
  CLOCKID_PROCESS_CPUTIME_ID: () => CLOCKID_PROCESS_CPUTIME_ID,
  CLOCKID_REALTIME: () => CLOCKID_REALTIME,
  CLOCKID_THREAD_CPUTIME_ID: () => CLOCKID_THREAD_CPUTIME_ID,
  Ciovec: () => Ciovec,
  Dirent: () => Dirent,
  ERRNO_2BIG: () => ERRNO_2BIG,
  ERRNO_ACCES: () => ERRNO_ACCES,
  ERRNO_ADDRINUSE: () => ERRNO_ADDRINUSE,
  ERRNO_ADDRNOTAVAIL: () => ERRNO_ADDRNOTAVAIL,
  ERRNO_AFNOSUPPORT: () => ERRNO_AFNOSUPPORT,
  ERRNO_AGAIN: () => ERRNO_AGAIN,
  ERRNO_ALREADY: () => ERRNO_ALREADY,
  ERRNO_BADF: () => ERRNO_BADF,
  ERRNO_BADMSG: () => ERRNO_BADMSG,
  ERRNO_BUSY: () => ERRNO_BUSY,
  ERRNO_CANCELED: () => ERRNO_CANCELED,
  ERRNO_CHILD: () => ERRNO_CHILD,
  ERRNO_CONNABORTED: () => ERRNO_CONNABORTED,
  ERRNO_CONNREFUSED: () => ERRNO_CONNREFUSED,
  ERRNO_CONNRESET: () => ERRNO_CONNRESET,
  ERRNO_DEADLK: () => ERRNO_DEADLK,
  ERRNO_DESTADDRREQ: () => ERRNO_DESTADDRREQ,
  ERRNO_DOM: () => ERRNO_DOM,
  ERRNO_DQUOT: () => ERRNO_DQUOT,
  ERRNO_EXIST: () => ERRNO_EXIST,
  ERRNO_FAULT: () => ERRNO_FAULT,
  ERRNO_FBIG: () => ERRNO_FBIG,
  ERRNO_HOSTUNREACH: () => ERRNO_HOSTUNREACH,
  ERRNO_IDRM: () => ERRNO_IDRM,
  ERRNO_ILSEQ: () => ERRNO_ILSEQ,
  ERRNO_INPROGRESS: () => ERRNO_INPROGRESS,
  ERRNO_INTR: () => ERRNO_INTR,
  ERRNO_INVAL: () => ERRNO_INVAL,
  ERRNO_IO: () => ERRNO_IO,
  ERRNO_ISCONN: () => ERRNO_ISCONN,
  ERRNO_ISDIR: () => ERRNO_ISDIR,
  ERRNO_LOOP: () => ERRNO_LOOP,
  ERRNO_MFILE: () => ERRNO_MFILE,
  ERRNO_MLINK: () => ERRNO_MLINK,
  ERRNO_MSGSIZE: () => ERRNO_MSGSIZE,
  ERRNO_MULTIHOP: () => ERRNO_MULTIHOP,
  ERRNO_NAMETOOLONG: () => ERRNO_NAMETOOLONG,
  ERRNO_NETDOWN: () => ERRNO_NETDOWN,
  ERRNO_NETRESET: () => ERRNO_NETRESET,
  ERRNO_NETUNREACH: () => ERRNO_NETUNREACH,
  ERRNO_NFILE: () => ERRNO_NFILE,
  ERRNO_NOBUFS: () => ERRNO_NOBUFS,
  ERRNO_NODEV: () => ERRNO_NODEV,
  ERRNO_NOENT: () => ERRNO_NOENT,
  ERRNO_NOEXEC: () => ERRNO_NOEXEC,
  ERRNO_NOLCK: () => ERRNO_NOLCK,
  ERRNO_NOLINK: () => ERRNO_NOLINK,
  ERRNO_NOMEM: () => ERRNO_NOMEM,
  ERRNO_NOMSG: () => ERRNO_NOMSG,
  ERRNO_NOPROTOOPT: () => ERRNO_NOPROTOOPT,
  ERRNO_NOSPC: () => ERRNO_NOSPC,
  ERRNO_NOSYS: () => ERRNO_NOSYS,
  ERRNO_NOTCAPABLE: () => ERRNO_NOTCAPABLE,
  ERRNO_NOTCONN: () => ERRNO_NOTCONN,
  ERRNO_NOTDIR: () => ERRNO_NOTDIR,
  ERRNO_NOTEMPTY: () => ERRNO_NOTEMPTY,
  ERRNO_NOTRECOVERABLE: () => ERRNO_NOTRECOVERABLE,
  ERRNO_NOTSOCK: () => ERRNO_NOTSOCK,
  ERRNO_NOTSUP: () => ERRNO_NOTSUP,
  ERRNO_NOTTY: () => ERRNO_NOTTY,
  ERRNO_NXIO: () => ERRNO_NXIO,
  ERRNO_OVERFLOW: () => ERRNO_OVERFLOW,
  ERRNO_OWNERDEAD: () => ERRNO_OWNERDEAD,
  ERRNO_PERM: () => ERRNO_PERM,
  ERRNO_PIPE: () => ERRNO_PIPE,
  ERRNO_PROTO: () => ERRNO_PROTO,
  ERRNO_PROTONOSUPPORT: () => ERRNO_PROTONOSUPPORT,
  ERRNO_PROTOTYPE: () => ERRNO_PROTOTYPE,
  ERRNO_RANGE: () => ERRNO_RANGE,
  ERRNO_ROFS: () => ERRNO_ROFS,
  ERRNO_SPIPE: () => ERRNO_SPIPE,
  ERRNO_SRCH: () => ERRNO_SRCH,
  ERRNO_STALE: () => ERRNO_STALE,
  ERRNO_SUCCESS: () => ERRNO_SUCCESS,
  ERRNO_TIMEDOUT: () => ERRNO_TIMEDOUT,
  ERRNO_TXTBSY: () => ERRNO_TXTBSY,
  ERRNO_XDEV: () => ERRNO_XDEV,
  EVENTRWFLAGS_FD_READWRITE_HANGUP: () => EVENTRWFLAGS_FD_READWRITE_HANGUP,
  EVENTTYPE_CLOCK: () => EVENTTYPE_CLOCK,
  EVENTTYPE_FD_READ: () => EVENTTYPE_FD_READ,
  EVENTTYPE_FD_WRITE: () => EVENTTYPE_FD_WRITE,
  Event: () => Event,
  FDFLAGS_APPEND: () => FDFLAGS_APPEND,
  FDFLAGS_DSYNC: () => FDFLAGS_DSYNC,
  FDFLAGS_NONBLOCK: () => FDFLAGS_NONBLOCK,
  FDFLAGS_RSYNC: () => FDFLAGS_RSYNC,
  FDFLAGS_SYNC: () => FDFLAGS_SYNC,
  FD_STDERR: () => FD_STDERR,
  FD_STDIN: () => FD_STDIN,
  FD_STDOUT: () => FD_STDOUT,
  FILETYPE_BLOCK_DEVICE: () => FILETYPE_BLOCK_DEVICE,
  FILETYPE_CHARACTER_DEVICE: () => FILETYPE_CHARACTER_DEVICE,
  FILETYPE_DIRECTORY: () => FILETYPE_DIRECTORY,
  FILETYPE_REGULAR_FILE: () => FILETYPE_REGULAR_FILE,
  FILETYPE_SOCKET_DGRAM: () => FILETYPE_SOCKET_DGRAM,
  FILETYPE_SOCKET_STREAM: () => FILETYPE_SOCKET_STREAM,
  FILETYPE_SYMBOLIC_LINK: () => FILETYPE_SYMBOLIC_LINK,
  FILETYPE_UNKNOWN: () => FILETYPE_UNKNOWN,
  FSTFLAGS_ATIM: () => FSTFLAGS_ATIM,
  FSTFLAGS_ATIM_NOW: () => FSTFLAGS_ATIM_NOW,
  FSTFLAGS_MTIM: () => FSTFLAGS_MTIM,
  FSTFLAGS_MTIM_NOW: () => FSTFLAGS_MTIM_NOW,
  Fdstat: () => Fdstat,
  Filestat: () => Filestat,
  Iovec: () => Iovec,
  OFLAGS_CREAT: () => OFLAGS_CREAT,
  OFLAGS_DIRECTORY: () => OFLAGS_DIRECTORY,
  OFLAGS_EXCL: () => OFLAGS_EXCL,
  OFLAGS_TRUNC: () => OFLAGS_TRUNC,
  PREOPENTYPE_DIR: () => PREOPENTYPE_DIR,
  Prestat: () => Prestat,
  PrestatDir: () => PrestatDir,
  RIFLAGS_RECV_PEEK: () => RIFLAGS_RECV_PEEK,
  RIFLAGS_RECV_WAITALL: () => RIFLAGS_RECV_WAITALL,
  RIGHTS_FD_ADVISE: () => RIGHTS_FD_ADVISE,
  RIGHTS_FD_ALLOCATE: () => RIGHTS_FD_ALLOCATE,
  RIGHTS_FD_DATASYNC: () => RIGHTS_FD_DATASYNC,
  RIGHTS_FD_FDSTAT_SET_FLAGS: () => RIGHTS_FD_FDSTAT_SET_FLAGS,
  RIGHTS_FD_FILESTAT_GET: () => RIGHTS_FD_FILESTAT_GET,
  RIGHTS_FD_FILESTAT_SET_SIZE: () => RIGHTS_FD_FILESTAT_SET_SIZE,
  RIGHTS_FD_FILESTAT_SET_TIMES: () => RIGHTS_FD_FILESTAT_SET_TIMES,
  RIGHTS_FD_READ: () => RIGHTS_FD_READ,
  RIGHTS_FD_READDIR: () => RIGHTS_FD_READDIR,
  RIGHTS_FD_SEEK: () => RIGHTS_FD_SEEK,
  RIGHTS_FD_SYNC: () => RIGHTS_FD_SYNC,
  RIGHTS_FD_TELL: () => RIGHTS_FD_TELL,
  RIGHTS_FD_WRITE: () => RIGHTS_FD_WRITE,
  RIGHTS_PATH_CREATE_DIRECTORY: () => RIGHTS_PATH_CREATE_DIRECTORY,
  RIGHTS_PATH_CREATE_FILE: () => RIGHTS_PATH_CREATE_FILE,
  RIGHTS_PATH_FILESTAT_GET: () => RIGHTS_PATH_FILESTAT_GET,
  RIGHTS_PATH_FILESTAT_SET_SIZE: () => RIGHTS_PATH_FILESTAT_SET_SIZE,
  RIGHTS_PATH_FILESTAT_SET_TIMES: () => RIGHTS_PATH_FILESTAT_SET_TIMES,
  RIGHTS_PATH_LINK_SOURCE: () => RIGHTS_PATH_LINK_SOURCE,
  RIGHTS_PATH_LINK_TARGET: () => RIGHTS_PATH_LINK_TARGET,
  RIGHTS_PATH_OPEN: () => RIGHTS_PATH_OPEN,
  RIGHTS_PATH_READLINK: () => RIGHTS_PATH_READLINK,
  RIGHTS_PATH_REMOVE_DIRECTORY: () => RIGHTS_PATH_REMOVE_DIRECTORY,
  RIGHTS_PATH_RENAME_SOURCE: () => RIGHTS_PATH_RENAME_SOURCE,
  RIGHTS_PATH_RENAME_TARGET: () => RIGHTS_PATH_RENAME_TARGET,
  RIGHTS_PATH_SYMLINK: () => RIGHTS_PATH_SYMLINK,
  RIGHTS_PATH_UNLINK_FILE: () => RIGHTS_PATH_UNLINK_FILE,
  RIGHTS_POLL_FD_READWRITE: () => RIGHTS_POLL_FD_READWRITE,
  RIGHTS_SOCK_SHUTDOWN: () => RIGHTS_SOCK_SHUTDOWN,
  ROFLAGS_RECV_DATA_TRUNCATED: () => ROFLAGS_RECV_DATA_TRUNCATED,
  SDFLAGS_RD: () => SDFLAGS_RD,
  SDFLAGS_WR: () => SDFLAGS_WR,
  SIGNAL_ABRT: () => SIGNAL_ABRT,
  SIGNAL_ALRM: () => SIGNAL_ALRM,
  SIGNAL_BUS: () => SIGNAL_BUS,
  SIGNAL_CHLD: () => SIGNAL_CHLD,
  SIGNAL_CONT: () => SIGNAL_CONT,
  SIGNAL_FPE: () => SIGNAL_FPE,
  SIGNAL_HUP: () => SIGNAL_HUP,
  SIGNAL_ILL: () => SIGNAL_ILL,
  SIGNAL_INT: () => SIGNAL_INT,
  SIGNAL_KILL: () => SIGNAL_KILL,
  SIGNAL_NONE: () => SIGNAL_NONE,
  SIGNAL_PIPE: () => SIGNAL_PIPE,
  SIGNAL_POLL: () => SIGNAL_POLL,
  SIGNAL_PROF: () => SIGNAL_PROF,
  SIGNAL_PWR: () => SIGNAL_PWR,
  SIGNAL_QUIT: () => SIGNAL_QUIT,
  SIGNAL_SEGV: () => SIGNAL_SEGV,
  SIGNAL_STOP: () => SIGNAL_STOP,
  SIGNAL_SYS: () => SIGNAL_SYS,
  SIGNAL_TERM: () => SIGNAL_TERM,
  SIGNAL_TRAP: () => SIGNAL_TRAP,
  SIGNAL_TSTP: () => SIGNAL_TSTP,
  SIGNAL_TTIN: () => SIGNAL_TTIN,
  SIGNAL_TTOU: () => SIGNAL_TTOU,
  SIGNAL_URG: () => SIGNAL_URG,
  SIGNAL_USR1: () => SIGNAL_USR1,
  SIGNAL_USR2: () => SIGNAL_USR2,
  SIGNAL_VTALRM: () => SIGNAL_VTALRM,
  SIGNAL_WINCH: () => SIGNAL_WINCH,
  SIGNAL_XCPU: () => SIGNAL_XCPU,
  SIGNAL_XFSZ: () => SIGNAL_XFSZ,
  SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME: () => SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
  Subscription: () => Subscription,
  WHENCE_CUR: () => WHENCE_CUR,
  WHENCE_END: () => WHENCE_END,
  WHENCE_SET: () => WHENCE_SET
});
var FD_STDIN = 0;
var FD_STDOUT = 1;
var FD_STDERR = 2;
var CLOCKID_REALTIME = 0;
var CLOCKID_MONOTONIC = 1;
var CLOCKID_PROCESS_CPUTIME_ID = 2;
var CLOCKID_THREAD_CPUTIME_ID = 3;
var ERRNO_SUCCESS = 0;
var ERRNO_2BIG = 1;
var ERRNO_ACCES = 2;
var ERRNO_ADDRINUSE = 3;
var ERRNO_ADDRNOTAVAIL = 4;
var ERRNO_AFNOSUPPORT = 5;
var ERRNO_AGAIN = 6;
var ERRNO_ALREADY = 7;
var ERRNO_BADF = 8;
var ERRNO_BADMSG = 9;
var ERRNO_BUSY = 10;
var ERRNO_CANCELED = 11;
var ERRNO_CHILD = 12;
var ERRNO_CONNABORTED = 13;
var ERRNO_CONNREFUSED = 14;
var ERRNO_CONNRESET = 15;
var ERRNO_DEADLK = 16;
var ERRNO_DESTADDRREQ = 17;
var ERRNO_DOM = 18;
var ERRNO_DQUOT = 19;
var ERRNO_EXIST = 20;
var ERRNO_FAULT = 21;
var ERRNO_FBIG = 22;
var ERRNO_HOSTUNREACH = 23;
var ERRNO_IDRM = 24;
var ERRNO_ILSEQ = 25;
var ERRNO_INPROGRESS = 26;
var ERRNO_INTR = 27;
var ERRNO_INVAL = 28;
var ERRNO_IO = 29;
var ERRNO_ISCONN = 30;
var ERRNO_ISDIR = 31;
var ERRNO_LOOP = 32;
var ERRNO_MFILE = 33;
var ERRNO_MLINK = 34;
var ERRNO_MSGSIZE = 35;
var ERRNO_MULTIHOP = 36;
var ERRNO_NAMETOOLONG = 37;
var ERRNO_NETDOWN = 38;
var ERRNO_NETRESET = 39;
var ERRNO_NETUNREACH = 40;
var ERRNO_NFILE = 41;
var ERRNO_NOBUFS = 42;
var ERRNO_NODEV = 43;
var ERRNO_NOENT = 44;
var ERRNO_NOEXEC = 45;
var ERRNO_NOLCK = 46;
var ERRNO_NOLINK = 47;
var ERRNO_NOMEM = 48;
var ERRNO_NOMSG = 49;
var ERRNO_NOPROTOOPT = 50;
var ERRNO_NOSPC = 51;
var ERRNO_NOSYS = 52;
var ERRNO_NOTCONN = 53;
var ERRNO_NOTDIR = 54;
var ERRNO_NOTEMPTY = 55;
var ERRNO_NOTRECOVERABLE = 56;
var ERRNO_NOTSOCK = 57;
var ERRNO_NOTSUP = 58;
var ERRNO_NOTTY = 59;
var ERRNO_NXIO = 60;
var ERRNO_OVERFLOW = 61;
var ERRNO_OWNERDEAD = 62;
var ERRNO_PERM = 63;
var ERRNO_PIPE = 64;
var ERRNO_PROTO = 65;
var ERRNO_PROTONOSUPPORT = 66;
var ERRNO_PROTOTYPE = 67;
var ERRNO_RANGE = 68;
var ERRNO_ROFS = 69;
var ERRNO_SPIPE = 70;
var ERRNO_SRCH = 71;
var ERRNO_STALE = 72;
var ERRNO_TIMEDOUT = 73;
var ERRNO_TXTBSY = 74;
var ERRNO_XDEV = 75;
var ERRNO_NOTCAPABLE = 76;
var RIGHTS_FD_DATASYNC = 1 << 0;
var RIGHTS_FD_READ = 1 << 1;
var RIGHTS_FD_SEEK = 1 << 2;
var RIGHTS_FD_FDSTAT_SET_FLAGS = 1 << 3;
var RIGHTS_FD_SYNC = 1 << 4;
var RIGHTS_FD_TELL = 1 << 5;
var RIGHTS_FD_WRITE = 1 << 6;
var RIGHTS_FD_ADVISE = 1 << 7;
var RIGHTS_FD_ALLOCATE = 1 << 8;
var RIGHTS_PATH_CREATE_DIRECTORY = 1 << 9;
var RIGHTS_PATH_CREATE_FILE = 1 << 10;
var RIGHTS_PATH_LINK_SOURCE = 1 << 11;
var RIGHTS_PATH_LINK_TARGET = 1 << 12;
var RIGHTS_PATH_OPEN = 1 << 13;
var RIGHTS_FD_READDIR = 1 << 14;
var RIGHTS_PATH_READLINK = 1 << 15;
var RIGHTS_PATH_RENAME_SOURCE = 1 << 16;
var RIGHTS_PATH_RENAME_TARGET = 1 << 17;
var RIGHTS_PATH_FILESTAT_GET = 1 << 18;
var RIGHTS_PATH_FILESTAT_SET_SIZE = 1 << 19;
var RIGHTS_PATH_FILESTAT_SET_TIMES = 1 << 20;
var RIGHTS_FD_FILESTAT_GET = 1 << 21;
var RIGHTS_FD_FILESTAT_SET_SIZE = 1 << 22;
var RIGHTS_FD_FILESTAT_SET_TIMES = 1 << 23;
var RIGHTS_PATH_SYMLINK = 1 << 24;
var RIGHTS_PATH_REMOVE_DIRECTORY = 1 << 25;
var RIGHTS_PATH_UNLINK_FILE = 1 << 26;
var RIGHTS_POLL_FD_READWRITE = 1 << 27;
var RIGHTS_SOCK_SHUTDOWN = 1 << 28;
var Iovec = class _Iovec {
  static read_bytes(view, ptr) {
    const iovec = new _Iovec();
    iovec.buf = view.getUint32(ptr, true);
    iovec.buf_len = view.getUint32(ptr + 4, true);
    return iovec;
  }
  static read_bytes_array(view, ptr, len) {
    const iovecs = [];
    for (let i = 0; i < len; i++) {
      iovecs.push(_Iovec.read_bytes(view, ptr + 8 * i));
    }
    return iovecs;
  }
};
var Ciovec = class _Ciovec {
  static read_bytes(view, ptr) {
    const iovec = new _Ciovec();
    iovec.buf = view.getUint32(ptr, true);
    iovec.buf_len = view.getUint32(ptr + 4, true);
    return iovec;
  }
  static read_bytes_array(view, ptr, len) {
    const iovecs = [];
    for (let i = 0; i < len; i++) {
      iovecs.push(_Ciovec.read_bytes(view, ptr + 8 * i));
    }
    return iovecs;
  }
};
var WHENCE_SET = 0;
var WHENCE_CUR = 1;
var WHENCE_END = 2;
var FILETYPE_UNKNOWN = 0;
var FILETYPE_BLOCK_DEVICE = 1;
var FILETYPE_CHARACTER_DEVICE = 2;
var FILETYPE_DIRECTORY = 3;
var FILETYPE_REGULAR_FILE = 4;
var FILETYPE_SOCKET_DGRAM = 5;
var FILETYPE_SOCKET_STREAM = 6;
var FILETYPE_SYMBOLIC_LINK = 7;
var Dirent = class {
  head_length() {
    return 24;
  }
  name_length() {
    return this.dir_name.byteLength;
  }
  write_head_bytes(view, ptr) {
    view.setBigUint64(ptr, this.d_next, true);
    view.setBigUint64(ptr + 8, this.d_ino, true);
    view.setUint32(ptr + 16, this.dir_name.length, true);
    view.setUint8(ptr + 20, this.d_type);
  }
  write_name_bytes(view8, ptr, buf_len) {
    view8.set(this.dir_name.slice(0, Math.min(this.dir_name.byteLength, buf_len)), ptr);
  }
  constructor(next_cookie, d_ino, name, type) {
    const encoded_name = new TextEncoder().encode(name);
    this.d_next = next_cookie;
    this.d_ino = d_ino;
    this.d_namlen = encoded_name.byteLength;
    this.d_type = type;
    this.dir_name = encoded_name;
  }
};
var ADVICE_NORMAL = 0;
var ADVICE_SEQUENTIAL = 1;
var ADVICE_RANDOM = 2;
var ADVICE_WILLNEED = 3;
var ADVICE_DONTNEED = 4;
var ADVICE_NOREUSE = 5;
var FDFLAGS_APPEND = 1 << 0;
var FDFLAGS_DSYNC = 1 << 1;
var FDFLAGS_NONBLOCK = 1 << 2;
var FDFLAGS_RSYNC = 1 << 3;
var FDFLAGS_SYNC = 1 << 4;
var Fdstat = class {
  write_bytes(view, ptr) {
    view.setUint8(ptr, this.fs_filetype);
    view.setUint16(ptr + 2, this.fs_flags, true);
    view.setBigUint64(ptr + 8, this.fs_rights_base, true);
    view.setBigUint64(ptr + 16, this.fs_rights_inherited, true);
  }
  constructor(filetype, flags) {
    this.fs_rights_base = 0n;
    this.fs_rights_inherited = 0n;
    this.fs_filetype = filetype;
    this.fs_flags = flags;
  }
};
var FSTFLAGS_ATIM = 1 << 0;
var FSTFLAGS_ATIM_NOW = 1 << 1;
var FSTFLAGS_MTIM = 1 << 2;
var FSTFLAGS_MTIM_NOW = 1 << 3;
var OFLAGS_CREAT = 1 << 0;
var OFLAGS_DIRECTORY = 1 << 1;
var OFLAGS_EXCL = 1 << 2;
var OFLAGS_TRUNC = 1 << 3;
var Filestat = class {
  write_bytes(view, ptr) {
    view.setBigUint64(ptr, this.dev, true);
    view.setBigUint64(ptr + 8, this.ino, true);
    view.setUint8(ptr + 16, this.filetype);
    view.setBigUint64(ptr + 24, this.nlink, true);
    view.setBigUint64(ptr + 32, this.size, true);
    view.setBigUint64(ptr + 38, this.atim, true);
    view.setBigUint64(ptr + 46, this.mtim, true);
    view.setBigUint64(ptr + 52, this.ctim, true);
  }
  constructor(ino, filetype, size) {
    this.dev = 0n;
    this.nlink = 0n;
    this.atim = 0n;
    this.mtim = 0n;
    this.ctim = 0n;
    this.ino = ino;
    this.filetype = filetype;
    this.size = size;
  }
};
var EVENTTYPE_CLOCK = 0;
var EVENTTYPE_FD_READ = 1;
var EVENTTYPE_FD_WRITE = 2;
var EVENTRWFLAGS_FD_READWRITE_HANGUP = 1 << 0;
var SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME = 1 << 0;
var Subscription = class _Subscription {
  static read_bytes(view, ptr) {
    return new _Subscription(view.getBigUint64(ptr, true), view.getUint8(ptr + 8), view.getUint32(ptr + 16, true), view.getBigUint64(ptr + 24, true), view.getUint16(ptr + 36, true));
  }
  constructor(userdata, eventtype, clockid, timeout, flags) {
    this.userdata = userdata;
    this.eventtype = eventtype;
    this.clockid = clockid;
    this.timeout = timeout;
    this.flags = flags;
  }
};
var Event = class {
  write_bytes(view, ptr) {
    view.setBigUint64(ptr, this.userdata, true);
    view.setUint16(ptr + 8, this.error, true);
    view.setUint8(ptr + 10, this.eventtype);
  }
  constructor(userdata, error, eventtype) {
    this.userdata = userdata;
    this.error = error;
    this.eventtype = eventtype;
  }
};
var SIGNAL_NONE = 0;
var SIGNAL_HUP = 1;
var SIGNAL_INT = 2;
var SIGNAL_QUIT = 3;
var SIGNAL_ILL = 4;
var SIGNAL_TRAP = 5;
var SIGNAL_ABRT = 6;
var SIGNAL_BUS = 7;
var SIGNAL_FPE = 8;
var SIGNAL_KILL = 9;
var SIGNAL_USR1 = 10;
var SIGNAL_SEGV = 11;
var SIGNAL_USR2 = 12;
var SIGNAL_PIPE = 13;
var SIGNAL_ALRM = 14;
var SIGNAL_TERM = 15;
var SIGNAL_CHLD = 16;
var SIGNAL_CONT = 17;
var SIGNAL_STOP = 18;
var SIGNAL_TSTP = 19;
var SIGNAL_TTIN = 20;
var SIGNAL_TTOU = 21;
var SIGNAL_URG = 22;
var SIGNAL_XCPU = 23;
var SIGNAL_XFSZ = 24;
var SIGNAL_VTALRM = 25;
var SIGNAL_PROF = 26;
var SIGNAL_WINCH = 27;
var SIGNAL_POLL = 28;
var SIGNAL_PWR = 29;
var SIGNAL_SYS = 30;
var RIFLAGS_RECV_PEEK = 1 << 0;
var RIFLAGS_RECV_WAITALL = 1 << 1;
var ROFLAGS_RECV_DATA_TRUNCATED = 1 << 0;
var SDFLAGS_RD = 1 << 0;
var SDFLAGS_WR = 1 << 1;
var PREOPENTYPE_DIR = 0;
var PrestatDir = class {
  write_bytes(view, ptr) {
    view.setUint32(ptr, this.pr_name.byteLength, true);
  }
  constructor(name) {
    this.pr_name = new TextEncoder().encode(name);
  }
};
var Prestat = class _Prestat {
  static dir(name) {
    const prestat = new _Prestat();
    prestat.tag = PREOPENTYPE_DIR;
    prestat.inner = new PrestatDir(name);
    return prestat;
  }
  write_bytes(view, ptr) {
    view.setUint32(ptr, this.tag, true);
    this.inner.write_bytes(view, ptr + 4);
  }
};

// node_modules/@bjorn3/browser_wasi_shim/dist/debug.js
var Debug = class Debug2 {
  enable(enabled) {
    this.log = createLogger(enabled === void 0 ? true : enabled, this.prefix);
  }
  get enabled() {
    return this.isEnabled;
  }
  constructor(isEnabled) {
    this.isEnabled = isEnabled;
    this.prefix = "wasi:";
    this.enable(isEnabled);
  }
};
function createLogger(enabled, prefix) {
  if (enabled) {
    const a = console.log.bind(console, "%c%s", "color: #265BA0", prefix);
    return a;
  } else {
    return () => {
    };
  }
}
var debug = new Debug(false);

// node_modules/@bjorn3/browser_wasi_shim/dist/wasi.js
var WASIProcExit = class extends Error {
  constructor(code) {
    super("exit with exit code " + code);
    this.code = code;
  }
};
var WASI = class WASI2 {
  start(instance) {
    this.inst = instance;
    try {
      instance.exports._start();
      return 0;
    } catch (e) {
      if (e instanceof WASIProcExit) {
        return e.code;
      } else {
        throw e;
      }
    }
  }
  initialize(instance) {
    this.inst = instance;
    if (instance.exports._initialize) {
      instance.exports._initialize();
    }
  }
  constructor(args, env, fds, options = {}) {
    this.args = [];
    this.env = [];
    this.fds = [];
    debug.enable(options.debug);
    this.args = args;
    this.env = env;
    this.fds = fds;
    const self = this;
    this.wasiImport = { args_sizes_get(argc, argv_buf_size) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      buffer.setUint32(argc, self.args.length, true);
      let buf_size = 0;
      for (const arg of self.args) {
        buf_size += arg.length + 1;
      }
      buffer.setUint32(argv_buf_size, buf_size, true);
      debug.log(buffer.getUint32(argc, true), buffer.getUint32(argv_buf_size, true));
      return 0;
    }, args_get(argv, argv_buf) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      const orig_argv_buf = argv_buf;
      for (let i = 0; i < self.args.length; i++) {
        buffer.setUint32(argv, argv_buf, true);
        argv += 4;
        const arg = new TextEncoder().encode(self.args[i]);
        buffer8.set(arg, argv_buf);
        buffer.setUint8(argv_buf + arg.length, 0);
        argv_buf += arg.length + 1;
      }
      if (debug.enabled) {
        debug.log(new TextDecoder("utf-8").decode(buffer8.slice(orig_argv_buf, argv_buf)));
      }
      return 0;
    }, environ_sizes_get(environ_count, environ_size) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      buffer.setUint32(environ_count, self.env.length, true);
      let buf_size = 0;
      for (const environ of self.env) {
        buf_size += new TextEncoder().encode(environ).length + 1;
      }
      buffer.setUint32(environ_size, buf_size, true);
      debug.log(buffer.getUint32(environ_count, true), buffer.getUint32(environ_size, true));
      return 0;
    }, environ_get(environ, environ_buf) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      const orig_environ_buf = environ_buf;
      for (let i = 0; i < self.env.length; i++) {
        buffer.setUint32(environ, environ_buf, true);
        environ += 4;
        const e = new TextEncoder().encode(self.env[i]);
        buffer8.set(e, environ_buf);
        buffer.setUint8(environ_buf + e.length, 0);
        environ_buf += e.length + 1;
      }
      if (debug.enabled) {
        debug.log(new TextDecoder("utf-8").decode(buffer8.slice(orig_environ_buf, environ_buf)));
      }
      return 0;
    }, clock_res_get(id, res_ptr) {
      let resolutionValue;
      switch (id) {
        case CLOCKID_MONOTONIC: {
          resolutionValue = 5000n;
          break;
        }
        case CLOCKID_REALTIME: {
          resolutionValue = 1000000n;
          break;
        }
        default:
          return ERRNO_NOSYS;
      }
      const view = new DataView(self.inst.exports.memory.buffer);
      view.setBigUint64(res_ptr, resolutionValue, true);
      return ERRNO_SUCCESS;
    }, clock_time_get(id, precision, time) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      if (id === CLOCKID_REALTIME) {
        buffer.setBigUint64(time, BigInt((/* @__PURE__ */ new Date()).getTime()) * 1000000n, true);
      } else if (id == CLOCKID_MONOTONIC) {
        let monotonic_time;
        try {
          monotonic_time = BigInt(Math.round(performance.now() * 1e6));
        } catch (e) {
          monotonic_time = 0n;
        }
        buffer.setBigUint64(time, monotonic_time, true);
      } else {
        buffer.setBigUint64(time, 0n, true);
      }
      return 0;
    }, fd_advise(fd, offset, len, advice) {
      if (self.fds[fd] != void 0) {
        return ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, fd_allocate(fd, offset, len) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_allocate(offset, len);
      } else {
        return ERRNO_BADF;
      }
    }, fd_close(fd) {
      if (self.fds[fd] != void 0) {
        const ret = self.fds[fd].fd_close();
        self.fds[fd] = void 0;
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_datasync(fd) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_sync();
      } else {
        return ERRNO_BADF;
      }
    }, fd_fdstat_get(fd, fdstat_ptr) {
      if (self.fds[fd] != void 0) {
        const { ret, fdstat } = self.fds[fd].fd_fdstat_get();
        if (fdstat != null) {
          fdstat.write_bytes(new DataView(self.inst.exports.memory.buffer), fdstat_ptr);
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_fdstat_set_flags(fd, flags) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_fdstat_set_flags(flags);
      } else {
        return ERRNO_BADF;
      }
    }, fd_fdstat_set_rights(fd, fs_rights_base, fs_rights_inheriting) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_fdstat_set_rights(fs_rights_base, fs_rights_inheriting);
      } else {
        return ERRNO_BADF;
      }
    }, fd_filestat_get(fd, filestat_ptr) {
      if (self.fds[fd] != void 0) {
        const { ret, filestat } = self.fds[fd].fd_filestat_get();
        if (filestat != null) {
          filestat.write_bytes(new DataView(self.inst.exports.memory.buffer), filestat_ptr);
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_filestat_set_size(fd, size) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_filestat_set_size(size);
      } else {
        return ERRNO_BADF;
      }
    }, fd_filestat_set_times(fd, atim, mtim, fst_flags) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_filestat_set_times(atim, mtim, fst_flags);
      } else {
        return ERRNO_BADF;
      }
    }, fd_pread(fd, iovs_ptr, iovs_len, offset, nread_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const iovecs = Iovec.read_bytes_array(buffer, iovs_ptr, iovs_len);
        let nread = 0;
        for (const iovec of iovecs) {
          const { ret, data } = self.fds[fd].fd_pread(iovec.buf_len, offset);
          if (ret != ERRNO_SUCCESS) {
            buffer.setUint32(nread_ptr, nread, true);
            return ret;
          }
          buffer8.set(data, iovec.buf);
          nread += data.length;
          offset += BigInt(data.length);
          if (data.length != iovec.buf_len) {
            break;
          }
        }
        buffer.setUint32(nread_ptr, nread, true);
        return ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, fd_prestat_get(fd, buf_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const { ret, prestat } = self.fds[fd].fd_prestat_get();
        if (prestat != null) {
          prestat.write_bytes(buffer, buf_ptr);
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_prestat_dir_name(fd, path_ptr, path_len) {
      if (self.fds[fd] != void 0) {
        const { ret, prestat } = self.fds[fd].fd_prestat_get();
        if (prestat == null) {
          return ret;
        }
        const prestat_dir_name = prestat.inner.pr_name;
        const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
        buffer8.set(prestat_dir_name.slice(0, path_len), path_ptr);
        return prestat_dir_name.byteLength > path_len ? ERRNO_NAMETOOLONG : ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, fd_pwrite(fd, iovs_ptr, iovs_len, offset, nwritten_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const iovecs = Ciovec.read_bytes_array(buffer, iovs_ptr, iovs_len);
        let nwritten = 0;
        for (const iovec of iovecs) {
          const data = buffer8.slice(iovec.buf, iovec.buf + iovec.buf_len);
          const { ret, nwritten: nwritten_part } = self.fds[fd].fd_pwrite(data, offset);
          if (ret != ERRNO_SUCCESS) {
            buffer.setUint32(nwritten_ptr, nwritten, true);
            return ret;
          }
          nwritten += nwritten_part;
          offset += BigInt(nwritten_part);
          if (nwritten_part != data.byteLength) {
            break;
          }
        }
        buffer.setUint32(nwritten_ptr, nwritten, true);
        return ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, fd_read(fd, iovs_ptr, iovs_len, nread_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const iovecs = Iovec.read_bytes_array(buffer, iovs_ptr, iovs_len);
        let nread = 0;
        for (const iovec of iovecs) {
          const { ret, data } = self.fds[fd].fd_read(iovec.buf_len);
          if (ret != ERRNO_SUCCESS) {
            buffer.setUint32(nread_ptr, nread, true);
            return ret;
          }
          buffer8.set(data, iovec.buf);
          nread += data.length;
          if (data.length != iovec.buf_len) {
            break;
          }
        }
        buffer.setUint32(nread_ptr, nread, true);
        return ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, fd_readdir(fd, buf, buf_len, cookie, bufused_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        let bufused = 0;
        while (true) {
          const { ret, dirent } = self.fds[fd].fd_readdir_single(cookie);
          if (ret != 0) {
            buffer.setUint32(bufused_ptr, bufused, true);
            return ret;
          }
          if (dirent == null) {
            break;
          }
          if (buf_len - bufused < dirent.head_length()) {
            bufused = buf_len;
            break;
          }
          const head_bytes = new ArrayBuffer(dirent.head_length());
          dirent.write_head_bytes(new DataView(head_bytes), 0);
          buffer8.set(new Uint8Array(head_bytes).slice(0, Math.min(head_bytes.byteLength, buf_len - bufused)), buf);
          buf += dirent.head_length();
          bufused += dirent.head_length();
          if (buf_len - bufused < dirent.name_length()) {
            bufused = buf_len;
            break;
          }
          dirent.write_name_bytes(buffer8, buf, buf_len - bufused);
          buf += dirent.name_length();
          bufused += dirent.name_length();
          cookie = dirent.d_next;
        }
        buffer.setUint32(bufused_ptr, bufused, true);
        return 0;
      } else {
        return ERRNO_BADF;
      }
    }, fd_renumber(fd, to) {
      if (self.fds[fd] != void 0 && self.fds[to] != void 0) {
        const ret = self.fds[to].fd_close();
        if (ret != 0) {
          return ret;
        }
        self.fds[to] = self.fds[fd];
        self.fds[fd] = void 0;
        return 0;
      } else {
        return ERRNO_BADF;
      }
    }, fd_seek(fd, offset, whence, offset_out_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const { ret, offset: offset_out } = self.fds[fd].fd_seek(offset, whence);
        buffer.setBigInt64(offset_out_ptr, offset_out, true);
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_sync(fd) {
      if (self.fds[fd] != void 0) {
        return self.fds[fd].fd_sync();
      } else {
        return ERRNO_BADF;
      }
    }, fd_tell(fd, offset_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const { ret, offset } = self.fds[fd].fd_tell();
        buffer.setBigUint64(offset_ptr, offset, true);
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, fd_write(fd, iovs_ptr, iovs_len, nwritten_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const iovecs = Ciovec.read_bytes_array(buffer, iovs_ptr, iovs_len);
        let nwritten = 0;
        for (const iovec of iovecs) {
          const data = buffer8.slice(iovec.buf, iovec.buf + iovec.buf_len);
          const { ret, nwritten: nwritten_part } = self.fds[fd].fd_write(data);
          if (ret != ERRNO_SUCCESS) {
            buffer.setUint32(nwritten_ptr, nwritten, true);
            return ret;
          }
          nwritten += nwritten_part;
          if (nwritten_part != data.byteLength) {
            break;
          }
        }
        buffer.setUint32(nwritten_ptr, nwritten, true);
        return ERRNO_SUCCESS;
      } else {
        return ERRNO_BADF;
      }
    }, path_create_directory(fd, path_ptr, path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        return self.fds[fd].path_create_directory(path);
      } else {
        return ERRNO_BADF;
      }
    }, path_filestat_get(fd, flags, path_ptr, path_len, filestat_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        const { ret, filestat } = self.fds[fd].path_filestat_get(flags, path);
        if (filestat != null) {
          filestat.write_bytes(buffer, filestat_ptr);
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, path_filestat_set_times(fd, flags, path_ptr, path_len, atim, mtim, fst_flags) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        return self.fds[fd].path_filestat_set_times(flags, path, atim, mtim, fst_flags);
      } else {
        return ERRNO_BADF;
      }
    }, path_link(old_fd, old_flags, old_path_ptr, old_path_len, new_fd, new_path_ptr, new_path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[old_fd] != void 0 && self.fds[new_fd] != void 0) {
        const old_path = new TextDecoder("utf-8").decode(buffer8.slice(old_path_ptr, old_path_ptr + old_path_len));
        const new_path = new TextDecoder("utf-8").decode(buffer8.slice(new_path_ptr, new_path_ptr + new_path_len));
        const { ret, inode_obj } = self.fds[old_fd].path_lookup(old_path, old_flags);
        if (inode_obj == null) {
          return ret;
        }
        return self.fds[new_fd].path_link(new_path, inode_obj, false);
      } else {
        return ERRNO_BADF;
      }
    }, path_open(fd, dirflags, path_ptr, path_len, oflags, fs_rights_base, fs_rights_inheriting, fd_flags, opened_fd_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        debug.log(path);
        const { ret, fd_obj } = self.fds[fd].path_open(dirflags, path, oflags, fs_rights_base, fs_rights_inheriting, fd_flags);
        if (ret != 0) {
          return ret;
        }
        self.fds.push(fd_obj);
        const opened_fd = self.fds.length - 1;
        buffer.setUint32(opened_fd_ptr, opened_fd, true);
        return 0;
      } else {
        return ERRNO_BADF;
      }
    }, path_readlink(fd, path_ptr, path_len, buf_ptr, buf_len, nread_ptr) {
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        debug.log(path);
        const { ret, data } = self.fds[fd].path_readlink(path);
        if (data != null) {
          const data_buf = new TextEncoder().encode(data);
          if (data_buf.length > buf_len) {
            buffer.setUint32(nread_ptr, 0, true);
            return ERRNO_BADF;
          }
          buffer8.set(data_buf, buf_ptr);
          buffer.setUint32(nread_ptr, data_buf.length, true);
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, path_remove_directory(fd, path_ptr, path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        return self.fds[fd].path_remove_directory(path);
      } else {
        return ERRNO_BADF;
      }
    }, path_rename(fd, old_path_ptr, old_path_len, new_fd, new_path_ptr, new_path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0 && self.fds[new_fd] != void 0) {
        const old_path = new TextDecoder("utf-8").decode(buffer8.slice(old_path_ptr, old_path_ptr + old_path_len));
        const new_path = new TextDecoder("utf-8").decode(buffer8.slice(new_path_ptr, new_path_ptr + new_path_len));
        let { ret, inode_obj } = self.fds[fd].path_unlink(old_path);
        if (inode_obj == null) {
          return ret;
        }
        ret = self.fds[new_fd].path_link(new_path, inode_obj, true);
        if (ret != ERRNO_SUCCESS) {
          if (self.fds[fd].path_link(old_path, inode_obj, true) != ERRNO_SUCCESS) {
            throw "path_link should always return success when relinking an inode back to the original place";
          }
        }
        return ret;
      } else {
        return ERRNO_BADF;
      }
    }, path_symlink(old_path_ptr, old_path_len, fd, new_path_ptr, new_path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const old_path = new TextDecoder("utf-8").decode(buffer8.slice(old_path_ptr, old_path_ptr + old_path_len));
        const new_path = new TextDecoder("utf-8").decode(buffer8.slice(new_path_ptr, new_path_ptr + new_path_len));
        return ERRNO_NOTSUP;
      } else {
        return ERRNO_BADF;
      }
    }, path_unlink_file(fd, path_ptr, path_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer);
      if (self.fds[fd] != void 0) {
        const path = new TextDecoder("utf-8").decode(buffer8.slice(path_ptr, path_ptr + path_len));
        return self.fds[fd].path_unlink_file(path);
      } else {
        return ERRNO_BADF;
      }
    }, poll_oneoff(in_ptr, out_ptr, nsubscriptions) {
      if (nsubscriptions === 0) {
        return ERRNO_INVAL;
      }
      if (nsubscriptions > 1) {
        debug.log("poll_oneoff: only a single subscription is supported");
        return ERRNO_NOTSUP;
      }
      const buffer = new DataView(self.inst.exports.memory.buffer);
      const s = Subscription.read_bytes(buffer, in_ptr);
      const eventtype = s.eventtype;
      const clockid = s.clockid;
      const timeout = s.timeout;
      if (eventtype !== EVENTTYPE_CLOCK) {
        debug.log("poll_oneoff: only clock subscriptions are supported");
        return ERRNO_NOTSUP;
      }
      let getNow = void 0;
      if (clockid === CLOCKID_MONOTONIC) {
        getNow = () => BigInt(Math.round(performance.now() * 1e6));
      } else if (clockid === CLOCKID_REALTIME) {
        getNow = () => BigInt((/* @__PURE__ */ new Date()).getTime()) * 1000000n;
      } else {
        return ERRNO_INVAL;
      }
      const endTime = (s.flags & SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0 ? timeout : getNow() + timeout;
      while (endTime > getNow()) {
      }
      const event = new Event(s.userdata, ERRNO_SUCCESS, eventtype);
      event.write_bytes(buffer, out_ptr);
      return ERRNO_SUCCESS;
    }, proc_exit(exit_code) {
      throw new WASIProcExit(exit_code);
    }, proc_raise(sig) {
      throw "raised signal " + sig;
    }, sched_yield() {
    }, random_get(buf, buf_len) {
      const buffer8 = new Uint8Array(self.inst.exports.memory.buffer).subarray(buf, buf + buf_len);
      if ("crypto" in globalThis && (typeof SharedArrayBuffer === "undefined" || !(self.inst.exports.memory.buffer instanceof SharedArrayBuffer))) {
        for (let i = 0; i < buf_len; i += 65536) {
          crypto.getRandomValues(buffer8.subarray(i, i + 65536));
        }
      } else {
        for (let i = 0; i < buf_len; i++) {
          buffer8[i] = Math.random() * 256 | 0;
        }
      }
    }, sock_recv(fd, ri_data, ri_flags) {
      throw "sockets not supported";
    }, sock_send(fd, si_data, si_flags) {
      throw "sockets not supported";
    }, sock_shutdown(fd, how) {
      throw "sockets not supported";
    }, sock_accept(fd, flags) {
      throw "sockets not supported";
    } };
  }
};

// node_modules/@bjorn3/browser_wasi_shim/dist/fd.js
var Fd = class {
  fd_allocate(offset, len) {
    return ERRNO_NOTSUP;
  }
  fd_close() {
    return 0;
  }
  fd_fdstat_get() {
    return { ret: ERRNO_NOTSUP, fdstat: null };
  }
  fd_fdstat_set_flags(flags) {
    return ERRNO_NOTSUP;
  }
  fd_fdstat_set_rights(fs_rights_base, fs_rights_inheriting) {
    return ERRNO_NOTSUP;
  }
  fd_filestat_get() {
    return { ret: ERRNO_NOTSUP, filestat: null };
  }
  fd_filestat_set_size(size) {
    return ERRNO_NOTSUP;
  }
  fd_filestat_set_times(atim, mtim, fst_flags) {
    return ERRNO_NOTSUP;
  }
  fd_pread(size, offset) {
    return { ret: ERRNO_NOTSUP, data: new Uint8Array() };
  }
  fd_prestat_get() {
    return { ret: ERRNO_NOTSUP, prestat: null };
  }
  fd_pwrite(data, offset) {
    return { ret: ERRNO_NOTSUP, nwritten: 0 };
  }
  fd_read(size) {
    return { ret: ERRNO_NOTSUP, data: new Uint8Array() };
  }
  fd_readdir_single(cookie) {
    return { ret: ERRNO_NOTSUP, dirent: null };
  }
  fd_seek(offset, whence) {
    return { ret: ERRNO_NOTSUP, offset: 0n };
  }
  fd_sync() {
    return 0;
  }
  fd_tell() {
    return { ret: ERRNO_NOTSUP, offset: 0n };
  }
  fd_write(data) {
    return { ret: ERRNO_NOTSUP, nwritten: 0 };
  }
  path_create_directory(path) {
    return ERRNO_NOTSUP;
  }
  path_filestat_get(flags, path) {
    return { ret: ERRNO_NOTSUP, filestat: null };
  }
  path_filestat_set_times(flags, path, atim, mtim, fst_flags) {
    return ERRNO_NOTSUP;
  }
  path_link(path, inode, allow_dir) {
    return ERRNO_NOTSUP;
  }
  path_unlink(path) {
    return { ret: ERRNO_NOTSUP, inode_obj: null };
  }
  path_lookup(path, dirflags) {
    return { ret: ERRNO_NOTSUP, inode_obj: null };
  }
  path_open(dirflags, path, oflags, fs_rights_base, fs_rights_inheriting, fd_flags) {
    return { ret: ERRNO_NOTDIR, fd_obj: null };
  }
  path_readlink(path) {
    return { ret: ERRNO_NOTSUP, data: null };
  }
  path_remove_directory(path) {
    return ERRNO_NOTSUP;
  }
  path_rename(old_path, new_fd, new_path) {
    return ERRNO_NOTSUP;
  }
  path_unlink_file(path) {
    return ERRNO_NOTSUP;
  }
};
var Inode = class _Inode {
  static issue_ino() {
    return _Inode.next_ino++;
  }
  static root_ino() {
    return 0n;
  }
  constructor() {
    this.ino = _Inode.issue_ino();
  }
};
Inode.next_ino = 1n;

// node_modules/@bjorn3/browser_wasi_shim/dist/fs_mem.js
var OpenFile = class extends Fd {
  fd_allocate(offset, len) {
    if (this.file.size > offset + len) {
    } else {
      const new_data = new Uint8Array(Number(offset + len));
      new_data.set(this.file.data, 0);
      this.file.data = new_data;
    }
    return ERRNO_SUCCESS;
  }
  fd_fdstat_get() {
    return { ret: 0, fdstat: new Fdstat(FILETYPE_REGULAR_FILE, 0) };
  }
  fd_filestat_set_size(size) {
    if (this.file.size > size) {
      this.file.data = new Uint8Array(this.file.data.buffer.slice(0, Number(size)));
    } else {
      const new_data = new Uint8Array(Number(size));
      new_data.set(this.file.data, 0);
      this.file.data = new_data;
    }
    return ERRNO_SUCCESS;
  }
  fd_read(size) {
    const slice = this.file.data.slice(Number(this.file_pos), Number(this.file_pos + BigInt(size)));
    this.file_pos += BigInt(slice.length);
    return { ret: 0, data: slice };
  }
  fd_pread(size, offset) {
    const slice = this.file.data.slice(Number(offset), Number(offset + BigInt(size)));
    return { ret: 0, data: slice };
  }
  fd_seek(offset, whence) {
    let calculated_offset;
    switch (whence) {
      case WHENCE_SET:
        calculated_offset = offset;
        break;
      case WHENCE_CUR:
        calculated_offset = this.file_pos + offset;
        break;
      case WHENCE_END:
        calculated_offset = BigInt(this.file.data.byteLength) + offset;
        break;
      default:
        return { ret: ERRNO_INVAL, offset: 0n };
    }
    if (calculated_offset < 0) {
      return { ret: ERRNO_INVAL, offset: 0n };
    }
    this.file_pos = calculated_offset;
    return { ret: 0, offset: this.file_pos };
  }
  fd_tell() {
    return { ret: 0, offset: this.file_pos };
  }
  fd_write(data) {
    if (this.file.readonly) return { ret: ERRNO_BADF, nwritten: 0 };
    if (this.file_pos + BigInt(data.byteLength) > this.file.size) {
      const old = this.file.data;
      this.file.data = new Uint8Array(Number(this.file_pos + BigInt(data.byteLength)));
      this.file.data.set(old);
    }
    this.file.data.set(data, Number(this.file_pos));
    this.file_pos += BigInt(data.byteLength);
    return { ret: 0, nwritten: data.byteLength };
  }
  fd_pwrite(data, offset) {
    if (this.file.readonly) return { ret: ERRNO_BADF, nwritten: 0 };
    if (offset + BigInt(data.byteLength) > this.file.size) {
      const old = this.file.data;
      this.file.data = new Uint8Array(Number(offset + BigInt(data.byteLength)));
      this.file.data.set(old);
    }
    this.file.data.set(data, Number(offset));
    return { ret: 0, nwritten: data.byteLength };
  }
  fd_filestat_get() {
    return { ret: 0, filestat: this.file.stat() };
  }
  constructor(file) {
    super();
    this.file_pos = 0n;
    this.file = file;
  }
};
var File = class extends Inode {
  path_open(oflags, fs_rights_base, fd_flags) {
    if (this.readonly && (fs_rights_base & BigInt(RIGHTS_FD_WRITE)) == BigInt(RIGHTS_FD_WRITE)) {
      return { ret: ERRNO_PERM, fd_obj: null };
    }
    if ((oflags & OFLAGS_TRUNC) == OFLAGS_TRUNC) {
      if (this.readonly) return { ret: ERRNO_PERM, fd_obj: null };
      this.data = new Uint8Array([]);
    }
    const file = new OpenFile(this);
    if (fd_flags & FDFLAGS_APPEND) file.fd_seek(0n, WHENCE_END);
    return { ret: ERRNO_SUCCESS, fd_obj: file };
  }
  get size() {
    return BigInt(this.data.byteLength);
  }
  stat() {
    return new Filestat(this.ino, FILETYPE_REGULAR_FILE, this.size);
  }
  constructor(data, options) {
    super();
    this.data = new Uint8Array(data);
    this.readonly = !!options?.readonly;
  }
};
var ConsoleStdout = class _ConsoleStdout extends Fd {
  fd_filestat_get() {
    const filestat = new Filestat(this.ino, FILETYPE_CHARACTER_DEVICE, BigInt(0));
    return { ret: 0, filestat };
  }
  fd_fdstat_get() {
    const fdstat = new Fdstat(FILETYPE_CHARACTER_DEVICE, 0);
    fdstat.fs_rights_base = BigInt(RIGHTS_FD_WRITE);
    return { ret: 0, fdstat };
  }
  fd_write(data) {
    this.write(data);
    return { ret: 0, nwritten: data.byteLength };
  }
  static lineBuffered(write) {
    const dec = new TextDecoder("utf-8", { fatal: false });
    let line_buf = "";
    return new _ConsoleStdout((buffer) => {
      line_buf += dec.decode(buffer, { stream: true });
      const lines = line_buf.split("\n");
      for (const [i, line] of lines.entries()) {
        if (i < lines.length - 1) {
          write(line);
        } else {
          line_buf = line;
        }
      }
    });
  }
  constructor(write) {
    super();
    this.ino = Inode.issue_ino();
    this.write = write;
  }
};

// lib/worker/thread-runner.js
function createThreadRunner(runtime, { freshInstances: freshInstances2 = false } = {}) {
  const fresh = freshInstances2 === true;
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

// lib/wasm/reader.js
var Reader = class {
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

// lib/worker/wasm-memory.js
var SECTION_TYPE = 1;
var SECTION_IMPORT = 2;
var SECTION_MEMORY = 5;
var KIND_FUNC = 0;
var KIND_TABLE = 1;
var KIND_MEMORY = 2;
var KIND_GLOBAL = 3;
var KIND_TAG = 4;
var Reader2 = class extends Reader {
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
var VALUE_TYPES = { 127: "i32", 126: "i64", 125: "f32", 124: "f64", 123: "v128", 112: "funcref", 111: "externref" };
var KIND_NAMES = ["function", "table", "memory", "global", "tag"];
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
var compiled = /* @__PURE__ */ new WeakMap();
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

// lib/wasm/memory-counter.js
var MEMORY_IMPORT_MODULE = "wasi-thread-pool";
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
var counters = /* @__PURE__ */ new WeakMap();
function registerMemoryCounter(memory, counter) {
  counters.set(memory, counter);
}
function memoryCounterOf(memory) {
  return (memory && counters.get(memory)) ?? null;
}
var PAGE = 65536;
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

// lib/worker/runtime.js
var WASI_THREAD_HOSTCALL_MESSAGE = "sdm.thread-hostcall";
var HOSTCALL_IMPORT_MODULE = "space_data_module_host";
var WasiExitError = class extends Error {
  constructor(code) {
    super(`WASI proc_exit(${code})`);
    this.name = "WasiExitError";
    this.code = code;
  }
};
var UNRESOLVABLE_HINT = '; pass a factory function, a { provider: "flatsql-io" } descriptor, or (module workers) a { moduleUrl } descriptor.';
var encoder = new TextEncoder();
async function resolveModuleExtraImports(entries) {
  const list = Array.isArray(entries) ? entries : entries == null ? [] : [entries];
  const resolved = [];
  for (const entry of list) {
    if (entry && typeof entry === "object" && typeof entry.factory !== "function" && entry.moduleUrl) {
      const url = String(entry.moduleUrl);
      const exportName = entry.exportName ?? "default";
      const mod = await import(url);
      const factory = mod?.[exportName];
      if (typeof factory !== "function") {
        throw new TypeError(`extraImports module ${url} exports no factory "${exportName}".`);
      }
      resolved.push({ factory, config: entry.config ?? null });
    } else {
      resolved.push(entry);
    }
  }
  return resolved;
}
function describeEntry(entry) {
  if (entry === null || typeof entry !== "object") return String(entry);
  try {
    return JSON.stringify(
      entry,
      (key, value) => value instanceof SharedArrayBuffer || ArrayBuffer.isView(value) ? `[${value.constructor.name}]` : value
    );
  } catch {
    return Object.prototype.toString.call(entry);
  }
}
function isImportsWithClose(result) {
  if (!result || typeof result !== "object") return false;
  if (!result.imports || typeof result.imports !== "object") return false;
  return typeof result.close === "function" || Object.keys(result).every((key) => key === "imports" || key === "close");
}
function resolveExtraImports(entries, ctx) {
  const fragments = [];
  const closers = [];
  const close = () => {
    for (const closer of closers.splice(0).reverse()) {
      try {
        closer();
      } catch {
      }
    }
  };
  try {
    for (const entry of entries ?? []) {
      let result;
      if (typeof entry === "function") {
        result = entry({ ...ctx, config: null });
      } else if (entry && typeof entry === "object" && typeof entry.factory === "function") {
        result = entry.factory({ ...ctx, config: entry.config ?? null });
      } else if (entry && typeof entry === "object" && typeof entry.provider === "string") {
        throw new TypeError(
          `Unresolvable extraImports entry ${describeEntry(entry)}: the "${entry.provider}" provider belongs to space-data-module-sdk's worker runtime. Pass runtimeModule (the URL of a module exporting createWasiThreadWorkerRuntime, such as the SDK's) to createWasiThreadSpawn so that workers use that runtime, or use a { moduleUrl } factory instead.`
        );
      } else if (entry && typeof entry === "object" && entry.moduleUrl) {
        throw new TypeError(
          `Unresolvable extraImports entry ${describeEntry(entry)}: { moduleUrl } entries must be resolved first with resolveModuleExtraImports()` + UNRESOLVABLE_HINT
        );
      } else {
        throw new TypeError(`Unresolvable extraImports entry ${describeEntry(entry)}${UNRESOLVABLE_HINT}`);
      }
      if (isImportsWithClose(result)) {
        fragments.push(result.imports);
        if (typeof result.close === "function") closers.push(() => result.close());
      } else if (result) {
        fragments.push(result);
      }
    }
  } catch (error) {
    close();
    throw error;
  }
  return { fragments, close };
}
function mergeImportFragments(imports, fragments) {
  for (const fragment of fragments ?? []) {
    if (!fragment || typeof fragment !== "object") continue;
    for (const [moduleName, values] of Object.entries(fragment)) {
      imports[moduleName] = { ...imports[moduleName], ...values };
    }
  }
  return imports;
}
function argsOf(processState) {
  return Array.isArray(processState?.args) ? processState.args.map(String) : [];
}
function envOf(processState) {
  const env = processState?.env;
  if (Array.isArray(env)) return env.map(String);
  if (env && typeof env === "object") {
    return Object.entries(env).map(([key, value]) => `${key}=${value}`);
  }
  return [];
}
var PS_STDIN_CURSOR = 0;
var PS_EXITED = 3;
var PS_EXIT_CODE = 4;
function sharedControlOf(processState) {
  const control = processState?.control;
  return control instanceof Int32Array && control.length >= 5 ? control : null;
}
var SharedStdin = class extends Fd {
  constructor(input, control) {
    super();
    this.input = input;
    this.control = control;
  }
  fd_fdstat_get() {
    return { ret: 0, fdstat: new wasi_defs_exports.Fdstat(wasi_defs_exports.FILETYPE_CHARACTER_DEVICE, 0) };
  }
  fd_read(size) {
    for (; ; ) {
      const start = Atomics.load(this.control, PS_STDIN_CURSOR);
      const end = Math.min(this.input.length, start + Number(size));
      if (end <= start) return { ret: 0, data: new Uint8Array(0) };
      if (Atomics.compareExchange(this.control, PS_STDIN_CURSOR, start, end) === start) {
        return { ret: 0, data: this.input.slice(start, end) };
      }
    }
  }
};
function stdinOf(processState) {
  const control = sharedControlOf(processState);
  if (control && processState.input instanceof Uint8Array) {
    return new SharedStdin(processState.input, control);
  }
  return new OpenFile(new File(new Uint8Array(0), { readonly: true }));
}
var OutputFd = class extends ConsoleStdout {
  fd_write(data) {
    try {
      this.write(data);
      return { ret: wasi_defs_exports.ERRNO_SUCCESS, nwritten: data.byteLength };
    } catch (error) {
      return { ret: error?.code === "EPIPE" ? wasi_defs_exports.ERRNO_PIPE : wasi_defs_exports.ERRNO_IO, nwritten: 0 };
    }
  }
};
function consoleOutput(fd) {
  const log = fd === 2 ? console.error.bind(console) : console.log.bind(console);
  const dec = new TextDecoder("utf-8", { fatal: false });
  let pending = "";
  return (bytes) => {
    pending += dec.decode(bytes, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) log(line);
  };
}
function outputFd(fd, writeOutput) {
  const write = typeof writeOutput === "function" ? (bytes) => writeOutput(fd, bytes) : consoleOutput(fd);
  return new OutputFd(write);
}
var monotonicNowMs = typeof performance !== "undefined" && typeof performance.now === "function" ? () => performance.now() : () => Date.now();
var sleepCell = null;
function sleepMs(ms) {
  if (!(ms > 0)) return;
  try {
    sleepCell ??= new Int32Array(new SharedArrayBuffer(4));
    Atomics.wait(sleepCell, 0, 0, ms);
  } catch {
    const end = monotonicNowMs() + ms;
    while (monotonicNowMs() < end) {
    }
  }
}
function fillRandom(target) {
  const cryptoApi = globalThis.crypto;
  if (cryptoApi && typeof cryptoApi.getRandomValues === "function") {
    const chunk = new Uint8Array(Math.min(target.length, 65536));
    for (let offset = 0; offset < target.length; offset += chunk.length) {
      const view = chunk.subarray(0, Math.min(chunk.length, target.length - offset));
      cryptoApi.getRandomValues(view);
      target.set(view, offset);
    }
    return;
  }
  for (let i = 0; i < target.length; i++) target[i] = Math.random() * 256 | 0;
}
function createThreadWasi({ processState, getMemory, writeOutput }) {
  const args = argsOf(processState);
  const fds = [stdinOf(processState), outputFd(1, writeOutput), outputFd(2, writeOutput)];
  const wasi = new WASI(args, envOf(processState), fds, { debug: false });
  wasi.inst = {
    get exports() {
      return { memory: getMemory() };
    }
  };
  const control = sharedControlOf(processState);
  const imports = wasi.wasiImport;
  const view = () => new DataView(getMemory().buffer);
  imports.proc_exit = (code) => {
    if (control) {
      Atomics.store(control, PS_EXIT_CODE, code | 0);
      Atomics.store(control, PS_EXITED, 1);
    }
    throw new WasiExitError(code);
  };
  imports.random_get = (ptr, length) => {
    fillRandom(new Uint8Array(getMemory().buffer, ptr >>> 0, length >>> 0));
    return wasi_defs_exports.ERRNO_SUCCESS;
  };
  imports.args_sizes_get = (argcPtr, bufSizePtr) => {
    const memory = view();
    let size = 0;
    for (const arg of args) size += encoder.encode(arg).length + 1;
    memory.setUint32(argcPtr, args.length, true);
    memory.setUint32(bufSizePtr, size, true);
    return wasi_defs_exports.ERRNO_SUCCESS;
  };
  const shimPollOneoff = imports.poll_oneoff;
  imports.poll_oneoff = (inPtr, outPtr, nsubscriptions, neventsPtr) => {
    if (nsubscriptions !== 1) return shimPollOneoff(inPtr, outPtr, nsubscriptions, neventsPtr);
    const memory = view();
    const sub = wasi_defs_exports.Subscription.read_bytes(memory, inPtr);
    if (sub.eventtype !== wasi_defs_exports.EVENTTYPE_CLOCK) return wasi_defs_exports.ERRNO_NOTSUP;
    const absolute = (sub.flags & wasi_defs_exports.SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
    let waitMs;
    if (sub.clockid === wasi_defs_exports.CLOCKID_MONOTONIC) {
      waitMs = absolute ? Number(sub.timeout) / 1e6 - monotonicNowMs() : Number(sub.timeout) / 1e6;
    } else if (sub.clockid === wasi_defs_exports.CLOCKID_REALTIME) {
      waitMs = absolute ? Number(sub.timeout) / 1e6 - Date.now() : Number(sub.timeout) / 1e6;
    } else {
      return wasi_defs_exports.ERRNO_INVAL;
    }
    sleepMs(waitMs);
    new wasi_defs_exports.Event(sub.userdata, wasi_defs_exports.ERRNO_SUCCESS, wasi_defs_exports.EVENTTYPE_CLOCK).write_bytes(memory, outPtr);
    if (neventsPtr !== void 0) memory.setUint32(neventsPtr, 1, true);
    return wasi_defs_exports.ERRNO_SUCCESS;
  };
  return { wasi, imports };
}
function memoryImportOf(wasmModule) {
  try {
    const entry = WebAssembly.Module.imports(wasmModule).find((e) => e.kind === "memory");
    if (entry) return { module: entry.module, name: entry.name };
  } catch {
  }
  return { module: "env", name: "memory" };
}
function importsModule(wasmModule, moduleName) {
  try {
    return WebAssembly.Module.imports(wasmModule).some((entry) => entry.module === moduleName);
  } catch {
    return false;
  }
}
function createWasiThreadWorkerRuntime({
  wasmModule,
  memory,
  hostcallChannel = null,
  processState,
  extraImports = [],
  workerIndex,
  tid,
  threadSpawn,
  writeOutput,
  freshInstances: freshInstances2 = false
} = {}) {
  let instance = null;
  let currentMemory = memory;
  const getMemory = () => instance?.exports?.memory ?? currentMemory;
  const { imports: wasiImports } = createThreadWasi({
    processState,
    getMemory: () => currentMemory,
    writeOutput
  });
  const memoryImport = memoryImportOf(wasmModule);
  const imports = {
    wasi_snapshot_preview1: wasiImports,
    env: {},
    wasi: { "thread-spawn": typeof threadSpawn === "function" ? threadSpawn : () => -1 }
  };
  imports[memoryImport.module] = { ...imports[memoryImport.module], [memoryImport.name]: memory };
  const memoryPages = guestMemoryCounter(wasmModule, memory, declaredSharedMaximum(wasmModule));
  if (memoryPages) imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(memoryPages);
  const extras = resolveExtraImports(extraImports, {
    memory,
    getMemory,
    workerIndex: workerIndex ?? null,
    tid: tid ?? null
  });
  mergeImportFragments(imports, extras.fragments);
  imports[memoryImport.module] = { ...imports[memoryImport.module], [memoryImport.name]: memory };
  if (importsModule(wasmModule, HOSTCALL_IMPORT_MODULE) && !imports[HOSTCALL_IMPORT_MODULE]) {
    extras.close();
    void hostcallChannel;
    throw new Error(
      `A threaded guest that imports ${HOSTCALL_IMPORT_MODULE} needs space-data-module-sdk's hostcall bridge, which wasi-thread-pool's worker runtime does not provide. Pass runtimeModule (the URL of the SDK's wasiThreadWorkerRuntime.js, or any module exporting createWasiThreadWorkerRuntime) to createWasiThreadSpawn, or provide the ${HOSTCALL_IMPORT_MODULE} imports through an extraImports factory.`
    );
  }
  const runtime = {
    imports,
    freshInstances: freshInstances2 === true,
    // A fresh instance over the same imports and the same memory; the caller
    // runs wasi_thread_start on it. No _initialize: the owner's instance
    // initialised the shared memory once.
    instantiate() {
      const made = new WebAssembly.Instance(wasmModule, imports);
      instance = made;
      currentMemory = made.exports.memory ?? memory;
      return made;
    },
    runThread(tid2, startArg) {
      runner.run(tid2, startArg);
    },
    close() {
      runner.discard();
      extras.close();
    }
  };
  const runner = createThreadRunner(runtime, { freshInstances: freshInstances2 });
  return runtime;
}

// lib/worker/shared.js
async function loadRuntime(runtimeModule) {
  if (!runtimeModule) return runtime_exports;
  const plugged = await import(runtimeModule);
  if (typeof plugged.createWasiThreadWorkerRuntime !== "function") {
    throw new TypeError(`runtimeModule ${runtimeModule} exports no createWasiThreadWorkerRuntime function.`);
  }
  return plugged;
}
function startRuntime({
  runtimeModule,
  extraImports = [],
  options,
  ownOptions = {},
  freshInstances: freshInstances2 = false,
  nodeDescriptors = false
}) {
  return startThreadRunner(
    async () => {
      const runtimeApi = await loadRuntime(runtimeModule);
      const own = runtimeApi === runtime_exports;
      const resolveModules = typeof runtimeApi.resolveModuleExtraImports === "function" ? runtimeApi.resolveModuleExtraImports : resolveModuleExtraImports;
      let resolved = await resolveModules(extraImports ?? []);
      if (nodeDescriptors && typeof runtimeApi.resolveNodeFlatsqlIoDescriptors === "function") {
        resolved = runtimeApi.resolveNodeFlatsqlIoDescriptors(resolved);
      }
      const all = { ...options, extraImports: resolved };
      if (own) Object.assign(all, ownOptions, { freshInstances: freshInstances2 });
      const runtime = await runtimeApi.createWasiThreadWorkerRuntime(all);
      const pages = memoryCounterOf(options.memory);
      if (pages && runtime?.imports && !runtime.imports[MEMORY_IMPORT_MODULE]) {
        runtime.imports[MEMORY_IMPORT_MODULE] = memoryGrowthImports(pages);
      }
      return runtime;
    },
    { freshInstances: freshInstances2 }
  );
}

// lib/worker/slot.js
var import_node_worker_threads3 = require("node:worker_threads");

// lib/worker/write-sync.js
var import_node_fs2 = require("node:fs");
var backoff = new Int32Array(new SharedArrayBuffer(4));
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

// lib/worker/slot.js
function writeLine(text) {
  try {
    writeAllSync(2, Buffer.from(text));
  } catch {
  }
}
function describe(error) {
  return error?.stack ?? String(error);
}
async function startOrRetire(poolOps2, slot2, start) {
  try {
    return await start();
  } catch (error) {
    writeLine(`[wasi-thread] guest thread ${poolOps2.lastTid(slot2)} failed to instantiate: ${describe(error)}
`);
    poolOps2.retire(slot2);
    throw error;
  }
}
function serveSlot(poolOps2, slot2, { runtime, runner }) {
  let fault = null;
  const runThread = createRunThread(runner, (tid, error) => {
    writeLine(`[wasi-thread] guest thread ${tid} trapped: ${describe(error)}
`);
    fault = error;
  });
  try {
    poolOps2.serve(slot2, runThread, import_node_worker_threads3.threadId);
  } finally {
    try {
      runtime.close();
    } catch {
    }
  }
  return fault;
}

// lib/worker/node.js
var { pool, slot, execArgv } = import_node_worker_threads4.workerData;
if (import_node_worker_threads4.workerData.memoryPages) registerMemoryCounter(import_node_worker_threads4.workerData.memory, import_node_worker_threads4.workerData.memoryPages);
var freshInstances = import_node_worker_threads4.workerData.freshInstances === true;
var poolOps = bindWasiThreadPool(pool);
checkSlot(pool.control, slot);
var children = /* @__PURE__ */ new Map();
var CHILD_GRACE_MS = 1e3;
function grow(nextSlot) {
  if (import_node_worker_threads4.workerData.lineage && nextSlot < import_node_worker_threads4.workerData.lineage.length) Atomics.store(import_node_worker_threads4.workerData.lineage, nextSlot, slot + 1);
  const worker = new import_node_worker_threads4.Worker(new URL(__wtpImportMetaUrl), {
    execArgv,
    workerData: { ...import_node_worker_threads4.workerData, slot: nextSlot }
  });
  worker.unref();
  worker.on("error", () => {
  });
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  children.set(nextSlot, { worker, exited });
}
function retireChildren() {
  for (const childSlot of children.keys()) poolOps.retire(childSlot);
}
async function settleChildren() {
  retireChildren();
  if (children.size === 0) return;
  let timer;
  await Promise.race([
    Promise.all([...children.values()].map((child) => child.exited)),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CHILD_GRACE_MS);
    })
  ]);
  clearTimeout(timer);
  children.clear();
}
async function servePoolSlot() {
  const started = await startOrRetire(poolOps, slot, () => {
    const spawn = poolOps.createSpawn({ grow });
    return startRuntime({
      runtimeModule: import_node_worker_threads4.workerData.runtimeModule,
      extraImports: import_node_worker_threads4.workerData.extraImports,
      options: {
        wasmModule: import_node_worker_threads4.workerData.wasmModule,
        memory: import_node_worker_threads4.workerData.memory,
        hostcallChannel: import_node_worker_threads4.workerData.hostcallChannel ?? null,
        processState: import_node_worker_threads4.workerData.processState,
        workerIndex: slot,
        threadSpawn: (startArg) => spawn(startArg).tid
      },
      // Our runtime writes fds 1 and 2 straight to the process's.
      ownOptions: { writeOutput: writeAllSync },
      freshInstances,
      nodeDescriptors: true
    });
  });
  let fault;
  try {
    fault = serveSlot(poolOps, slot, started);
  } catch (error) {
    retireChildren();
    throw error;
  }
  await settleChildren();
  if (fault) throw fault;
}
servePoolSlot();
