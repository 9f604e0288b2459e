// The page: a window's main thread may not block (Atomics.wait throws), so
// every run happens in a module Worker (owner.js) that owns the host and runs
// the guest's main thread. One owner per run; it answers with one message.

function runWaveOwner(config) {
  return new Promise((resolve) => {
    const owner = new Worker("/owner.js", { type: "module", name: "thread-wave owner" });
    const done = (result) => {
      owner.terminate();
      resolve(result);
    };
    owner.onmessage = (event) => done(event.data);
    owner.onerror = (event) => done({ ok: false, error: `owner worker error: ${event.message ?? event}` });
    owner.postMessage(config);
  });
}

globalThis.runWaveOwner = runWaveOwner;
globalThis.pageInfo = () => ({
  crossOriginIsolated: globalThis.crossOriginIsolated === true,
  hardwareConcurrency: navigator.hardwareConcurrency,
  userAgent: navigator.userAgent,
});
globalThis.waveReady = true;
