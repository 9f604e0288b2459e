// wtp-redirect-sync.mjs (Node 22.15 and later: module.registerHooks, in the
// loading thread, with no deprecation warning)
import { registerHooks } from "node:module";
import { REDIRECTS } from "./wtp-redirect-hooks.mjs";

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    for (const [pattern, target] of REDIRECTS) {
      if (pattern.test(resolved.url)) return nextResolve(target, { ...context, parentURL: import.meta.url });
    }
    return resolved;
  },
});
