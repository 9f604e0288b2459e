// Types of wasi-thread-pool/liftoff: the guard against Node 20's Liftoff bug
// across memory.atomic.wait32 (lib/worker/liftoff.js; in browsers the no-op
// lib/worker/liftoff.browser.js).

/** Whether this engine loses a wasm local across an atomic wait under Liftoff (probed once). */
export declare function liftoffHazardAffected(): boolean;

/** Applies --no-liftoff when, and only when, the engine is affected; returns whether it is now protected. */
export declare function protectFromLiftoffHazard(): boolean;

export declare function liftoffHazardState(): { affected: boolean; protected: boolean };

/**
 * Options of compileWasiThreadGuest (Node and browsers): reserveMemory false compiles the module
 * as it is; true or absent applies the memory pass to a wasi-threads guest that grows its memory
 * (docs/api.md, "Memory growth"), unless WASI_THREAD_POOL_RESERVE_MEMORY=0 (Node).
 */
export interface CompileWasiThreadGuestOptions {
  reserveMemory?: boolean;
}
/** Protects the engine (Node), applies the memory pass (unless options.reserveMemory is false), then compiles the guest. */
export declare function compileWasiThreadGuest(
  bytes: BufferSource,
  options?: CompileWasiThreadGuestOptions,
): Promise<WebAssembly.Module>;
export declare function compileWasiThreadGuestSync(
  bytes: BufferSource,
  options?: CompileWasiThreadGuestOptions,
): WebAssembly.Module;
