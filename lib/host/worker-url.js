// Where the browser pool worker script lives (SDK-CONTRACT 2.10).
//
// The worker is a separate script that imports its siblings (the runtime and
// the pool), so it must be fetched from a directory that serves the whole
// chain. By default that directory is this package's lib/, anchored by
// import.meta.url; bundling this file breaks that anchor, which is why a base
// or a full URL can be given, per call or process-wide.

export const BROWSER_WORKER_FILE = "wasiThreadBrowserWorker.mjs";

const NO_ANCHOR = "(no packaged anchor: this host source was bundled without import.meta.url)";

// null when import.meta.url is missing or not a URL (IIFE/CJS/blob bundles):
// evaluating this module must never throw, whatever the bundle format.
export const DEFAULT_BROWSER_WORKER_URL = (() => {
  try {
    return new URL("../wasiThreadBrowserWorker.mjs", import.meta.url);
  } catch {
    return null;
  }
})();

export class WasiThreadWorkerUnreachableError extends Error {
  constructor(workerUrl, cause) {
    super(
      `[wasi-thread] pooled browser worker asset is unreachable at ${workerUrl}. ` +
        "The anchor must name a directory that serves wasiThreadBrowserWorker.mjs and the " +
        "modules it imports (wasiThreadWorkerRuntime.js, wasiThreadPool.js). When this host " +
        "source is bundled, pass browserWorkerBaseUrl / browserWorkerUrl to createWasiThreadSpawn " +
        "(or call setBrowserWasiThreadWorkerBase) — import.meta.url anchors to the bundle, not to " +
        "the package layout.",
    );
    this.name = "WasiThreadWorkerUnreachableError";
    this.workerUrl = String(workerUrl);
    if (cause !== undefined) this.cause = cause;
  }
}

let workerBase = null;

function asDirectory(base) {
  const text = String(base);
  return text.endsWith("/") ? text : `${text}/`;
}

// Process-wide base directory; null or undefined clears it.
export function setBrowserWasiThreadWorkerBase(baseUrl) {
  workerBase = baseUrl === null || baseUrl === undefined ? null : asDirectory(baseUrl);
}

export function getBrowserWasiThreadWorkerBase() {
  return workerBase;
}

// First match wins: the file itself, a per-call base, the process-wide base,
// the packaged anchor. Never fetches anything.
export function resolveBrowserWorkerUrl({ browserWorkerUrl, browserWorkerBaseUrl } = {}) {
  if (browserWorkerUrl) return String(browserWorkerUrl);
  const base = browserWorkerBaseUrl ? asDirectory(browserWorkerBaseUrl) : workerBase;
  if (base) {
    // A relative base ("/static/wasi/") means relative to the document, the
    // way a <script src> would; new Worker() would resolve it the same way,
    // but the error message and the Worker should name the absolute URL.
    const href = globalThis.location?.href;
    return typeof href === "string" ? new URL(base + BROWSER_WORKER_FILE, href).href : base + BROWSER_WORKER_FILE;
  }
  if (DEFAULT_BROWSER_WORKER_URL === null) throw new WasiThreadWorkerUnreachableError(NO_ANCHOR);
  return String(DEFAULT_BROWSER_WORKER_URL);
}
