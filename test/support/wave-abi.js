// The thread-wave guest's ABI, knobs and expected outputs: browser-safe (no
// node: imports), so the browser owner script loads it as is. See
// guest/README.md; Node code imports it through wave-guest.js.

// Limits the guest declares for its imported memory (scripts/build-guest.sh:
// --initial-memory=4194304 --max-memory=16777216). The imported shared memory
// must have exactly this maximum and at least this initial size.
export const GUEST_MEMORY = Object.freeze({ initial: 64, maximum: 256, shared: true });

export const EXPECTED_OUTPUT_HEX = "ecbe247c0e7e1dec"; // 3 waves x 2048 rounds
export const EXPECTED_14K_OUTPUT_HEX = "67b092ecfada4a65"; // 2000 waves x 16 rounds
export const WAVE_MODES = Object.freeze(["", "all", "nested"]);

// SDK-CONTRACT 5: threadWaveSpawns.
export function threadWaveSpawns(lanes, { mode = "", waves = 3 } = {}) {
  return waves * (mode === "all" ? lanes : lanes - 1);
}

// SDK-CONTRACT 5: threadWaveEnv. SDM_PARITY_THREADS always; the others only
// when truthy.
export function threadWaveEnv(lanes, { mode, waves, rounds } = {}) {
  const env = { SDM_PARITY_THREADS: String(lanes) };
  if (mode) env.SDM_WAVE_MODE = String(mode);
  if (waves) env.SDM_WAVES = String(waves);
  if (rounds) env.SDM_WAVE_ROUNDS = String(rounds);
  return env;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Reads what `waves()` left behind. Shared memory: copy before decoding.
export function readWaveResult(exports, memory, status) {
  const heap = new Uint8Array(memory.buffer);
  const cString = (ptr) => {
    let end = ptr;
    while (end < heap.length && heap[end] !== 0) end++;
    return String.fromCharCode(...heap.slice(ptr, end));
  };
  const out = exports.wave_output_ptr() >>> 0;
  const stat = (i) => exports.wave_stat(i) >>> 0;
  return {
    status,
    output: status === 0 ? toHex(heap.slice(out, out + 8)) : null,
    errorCode: cString(exports.wave_error_code_ptr() >>> 0) || null,
    errorMessage: cString(exports.wave_error_ptr() >>> 0) || null,
    guest: {
      spawned: stat(0),
      declined: stat(1),
      lanes: stat(2),
      waves: stat(3),
      rounds: stat(4),
      mode: ["", "all", "nested"][stat(5)] ?? String(stat(5)),
      peakThreadRecords: stat(6),
    },
  };
}

// Minimal WASI environ for a main instance (threads never read it).
export function environImports(getMemory, env) {
  const encoder = new TextEncoder();
  const entries = Object.entries(env ?? {}).map(([k, v]) => encoder.encode(`${k}=${v}\0`));
  const total = entries.reduce((n, e) => n + e.length, 0);
  return {
    environ_sizes_get(countPtr, sizePtr) {
      const view = new DataView(getMemory().buffer);
      view.setUint32(countPtr, entries.length, true);
      view.setUint32(sizePtr, total, true);
      return 0;
    },
    environ_get(environPtr, bufPtr) {
      const memory = getMemory();
      const view = new DataView(memory.buffer);
      const heap = new Uint8Array(memory.buffer);
      let at = bufPtr;
      entries.forEach((entry, i) => {
        view.setUint32(environPtr + 4 * i, at, true);
        heap.set(entry, at);
        at += entry.length;
      });
      return 0;
    },
  };
}
