// The pool API for Node: the native core when the addon loads, the JS twin
// otherwise (lib/pool/api.js says how a pool's implementation is chosen and
// followed; lib/native/backend.js hands it the addon).

import "./native/backend.js";

export * from "./pool/api.js";
