// The Liftoff guard's API for browsers, so that code shared between Node and
// the browser can compile guests the same way. The bug it guards against is
// V8 11.3's (Node 20); the browsers this package serves compile correctly
// (Chromium 156 checked, FINDINGS), and a page cannot set V8 flags anyway.

export function liftoffHazardAffected() {
  return false;
}

export function protectFromLiftoffHazard() {
  return true;
}

export function liftoffHazardState() {
  return { affected: false, protected: false };
}

export function compileWasiThreadGuest(bytes) {
  return WebAssembly.compile(bytes);
}

export function compileWasiThreadGuestSync(bytes) {
  return new WebAssembly.Module(bytes);
}
