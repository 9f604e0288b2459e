// The thread-wave guest's bytes (built on demand), plus everything of
// wave-abi.js (its ABI, knobs and expected outputs), for the harnesses
// (wave-harness.js, wave-direct.js), the tests, the benchmarks and the browser
// page server. See guest/README.md.
//
// Node only (reads the file system; builds the guest when it is missing).

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

export * from "./wave-abi.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const GUEST_WASM_PATH = fileURLToPath(new URL("../../guest/out/thread-wave.wasm", import.meta.url));
export const BUILD_SCRIPT = fileURLToPath(new URL("../../scripts/build-guest.sh", import.meta.url));
const GUEST_SOURCES = ["wave.c", "wave_math.h", "start.s"].map((name) =>
  fileURLToPath(new URL(`../../guest/${name}`, import.meta.url)),
);

function stale() {
  if (!existsSync(GUEST_WASM_PATH)) return true;
  const built = statSync(GUEST_WASM_PATH).mtimeMs;
  return GUEST_SOURCES.some((path) => existsSync(path) && statSync(path).mtimeMs > built);
}

// The guest's bytes; runs scripts/build-guest.sh first when the output is
// missing or older than a source (needs clang + lld).
export function readWaveGuest({ build = true } = {}) {
  if (build && stale()) {
    execFileSync("sh", [BUILD_SCRIPT], { stdio: ["ignore", "ignore", "inherit"] });
  }
  return new Uint8Array(readFileSync(GUEST_WASM_PATH));
}
