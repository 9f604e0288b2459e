// createWasiThreadSpawn: the wasi-threads host of one guest instance
// (SDK-CONTRACT section 2), a drop-in for space-data-module-sdk 0.8.25's
// src/host/wasiThreadHost.js.
//
// The room: lib/host/ owns the wasi-threads host (createWasiThreadSpawn): its options, the Node
// host, the browser host, the spawn ledger and the browser worker's URL. It may import lib/pool/
// and lib/worker/; the Node host (node.js), which reaches lib/native/, is imported only on Node and
// only dynamically, so the browser graph never reaches the addon.
//
// This file validates the options, answers the hostcall stub (2.5), and then
// hands over to one of the two hosts: the Node host (lib/host/node.js, loaded
// only under Node) or the browser host (lib/host/browser.js: 2.7, 2.8, 2.11, a
// fixed pool of pre-started Workers, armed by a probe, over the pure-JS pool
// protocol).

import { createBrowserHost } from "./browser.js";
import { createSpawnLedger } from "./ledger.js";
import { DECLINE } from "../pool/reasons.js";
import { resolveSpawnWaitMs } from "../pool/validate.js";

export { BROWSER_POOL_PROBE_TIMEOUT_MS } from "./browser.js";
export { DEFAULT_WASI_THREAD_SPAWN_WAIT_MS } from "../pool/layout.js";
export {
  DEFAULT_BROWSER_WORKER_URL,
  WasiThreadWorkerUnreachableError,
  getBrowserWasiThreadWorkerBase,
  resolveBrowserWorkerUrl,
  setBrowserWasiThreadWorkerBase,
} from "./worker-url.js";

// Chosen once: tests mask process.release before importing to get the
// browser branch under Node.
const IS_NODE = typeof process !== "undefined" && !!process.release && process.release.name === "node";

// Built at run time so that no bundler follows it into the browser build
// (the same reason the SDK spells "node:" as "no" + "de:").
const NODE_HOST_MODULE = ["./node", "js"].join(".");

const IMPLEMENTATIONS = ["native", "js"];

const EXTRA_IMPORTS_FUNCTION_MESSAGE =
  'createWasiThreadSpawn extraImports must be structured-cloneable descriptors (e.g. { provider: "flatsql-io", instanceId, channels }) or { moduleUrl } entries: a function cannot cross into a worker thread.';

export function isWasiThreadsModule(wasmModule) {
  return WebAssembly.Module.imports(wasmModule).some((entry) => entry.module === "wasi" && entry.name === "thread-spawn");
}

// ---------------------------------------------------------------------------
// Options.

// A non-finite or non-number poolSize counts as absent (the SDK's rule), so
// only a real number is checked.
function normalizePoolSize(poolSize) {
  if (!Number.isFinite(poolSize)) return undefined;
  if (poolSize < 0 || !Number.isInteger(poolSize)) {
    throw new RangeError("poolSize must be a non-negative integer.");
  }
  return poolSize;
}

function normalizeExtraImports(extraImports) {
  if (extraImports === undefined || extraImports === null) return [];
  if (!Array.isArray(extraImports)) {
    throw new TypeError("createWasiThreadSpawn extraImports must be an array of descriptors.");
  }
  if (extraImports.some((entry) => typeof entry === "function")) {
    throw new TypeError(EXTRA_IMPORTS_FUNCTION_MESSAGE);
  }
  return extraImports;
}

function normalizeImplementation(implementation) {
  if (implementation === undefined) return undefined;
  if (!IMPLEMENTATIONS.includes(implementation)) {
    throw new RangeError(`implementation must be "native" or "js" (got ${describe(implementation)}).`);
  }
  return implementation;
}

function normalizeRuntimeModule(runtimeModule) {
  if (runtimeModule === undefined) return undefined;
  if (typeof runtimeModule === "string") return runtimeModule;
  if (typeof URL === "function" && runtimeModule instanceof URL) return runtimeModule.href;
  throw new TypeError("runtimeModule must be a string or URL naming a module that exports createWasiThreadWorkerRuntime.");
}

// Ours: the instance policy of the workers (lib/worker/runtime.js
// createThreadRunner). Only a boolean (or absent) is accepted.
function normalizeFreshInstances(freshInstances) {
  if (freshInstances === undefined || freshInstances === null) return false;
  if (typeof freshInstances !== "boolean") {
    throw new TypeError(`freshInstances must be a boolean (got ${describe(freshInstances)}).`);
  }
  return freshInstances;
}

function describe(value) {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

// Validation order is the SDK's (2.2): poolSize, spawnWaitMs, extraImports;
// then our own options. Every throw rejects the createWasiThreadSpawn promise.
function normalizeOptions(options) {
  const poolSize = normalizePoolSize(options.poolSize);
  const spawnWaitMs = resolveSpawnWaitMs(options.spawnWaitMs);
  const extraImports = normalizeExtraImports(options.extraImports);
  const implementation = normalizeImplementation(options.implementation);
  const runtimeModule = normalizeRuntimeModule(options.runtimeModule);
  const freshInstances = normalizeFreshInstances(options.freshInstances);
  return {
    ...options,
    poolSize,
    spawnWaitMs,
    extraImports,
    implementation,
    runtimeModule,
    freshInstances,
    hostcallChannel: options.hostcallChannel ?? null,
    instanceId: options.instanceId ?? null,
  };
}

// ---------------------------------------------------------------------------
// Entry point.

export async function createWasiThreadSpawn(options = {}) {
  const opts = normalizeOptions(options ?? {});
  if (opts.requiresHostcalls && !opts.hostcallChannel) return createHostcallStub(opts);
  if (IS_NODE) {
    const { createNodeWasiThreadHost } = await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_HOST_MODULE);
    return createNodeWasiThreadHost(opts);
  }
  return createBrowserHost(opts);
}

// 2.5: a guest that makes hostcalls cannot run on a worker without the
// owner's hostcall broker, so no worker is ever started for it.
function createHostcallStub(opts) {
  const { decline, report } = createSpawnLedger({
    poolSize: opts.poolSize ?? 0,
    onSpawnDeclined: opts.onSpawnDeclined,
  });
  return {
    threadSpawn: () => decline(DECLINE.HOSTCALL_CHANNEL_MISSING),
    activeThreadCount: () => 0,
    spawnCount: () => 0,
    distinctOsThreadCount: () => 0,
    spawnReport: () => ({ ...report(), active: 0 }),
    terminateAll: async () => {},
  };
}
