// wtp-redirect-hooks.mjs
// The SDK's wasi-threads host and pool become wasi-thread-pool's, whichever
// specifier reached them.
export const REDIRECTS = [
  [/\/space-data-module-sdk\/src\/host\/wasiThreadHost\.js$/, "wasi-thread-pool/host"],
  [/\/space-data-module-sdk\/src\/host\/wasiThreadPool\.js$/, "wasi-thread-pool/pool"],
];

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  for (const [pattern, target] of REDIRECTS) {
    if (pattern.test(resolved.url)) {
      // Resolve from this file, so that the application's copy of wasi-thread-pool is used.
      return nextResolve(target, { ...context, parentURL: import.meta.url });
    }
  }
  return resolved;
}
