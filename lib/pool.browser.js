// The pool API for browsers (the package's "browser" export condition): the
// JS twin only. This module never reaches the addon nor any node: module.

export * from "./pool/api.js";
