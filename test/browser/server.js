// The local server of the browser thread-wave test: 127.0.0.1, an ephemeral
// port, every response cross-origin isolating (COOP same-origin, COEP
// require-corp, CORP same-origin) and never cached.
//
// Routes:
//   /                   the page (page.html)
//   /page.js            the page script: starts an owner worker per run
//   /owner.js           the owner (module Worker): host + the guest's main thread
//   /growth-owner.js    the owner of test/browser-memory-growth.test.js's runs
//   /wave-abi.js        test/support/wave-abi.js (the guest's ABI)
//   /thread-wave.wasm   guest/out/thread-wave.wasm
//   /lib/<file>.js|mjs  this package's lib/ as a directory (the host and, in
//                       directory mode, the worker chain); the runtime's bare
//                       specifier "@bjorn3/browser_wasi_shim" is rewritten to
//                       the served copy below, because a module worker has no
//                       import map
//   /vendor/browser_wasi_shim/<file>.js   node_modules/@bjorn3/browser_wasi_shim/dist
//   /dist/<file>        this package's dist/ (the bundled browser worker)
//   /wasi-programs/<name>.wasm  .tmp/wasi-programs (scripts/build-wasi-programs.sh)
//   /real-programs/<name>.wasm  ../shared/real-programs (pigz, zstd)
//   /not-isolated       the page without COOP and COEP (not cross-origin
//                       isolated: no SharedArrayBuffer)
//
// Standalone: `node test/browser/server.js` prints the URL and serves until
// interrupted (for looking at the page by hand).

import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { readFile, realpath } from "node:fs/promises";
import { extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HERE = fileURLToPath(new URL("./", import.meta.url));
const SHIM_DIR = join(ROOT, "node_modules/@bjorn3/browser_wasi_shim/dist");
const SHIM_SPECIFIER = "@bjorn3/browser_wasi_shim";
const SHIM_URL = "/vendor/browser_wasi_shim/index.js";

const PROGRAM_DIRS = {
  "wasi-programs": join(ROOT, ".tmp/wasi-programs"),
  "real-programs": join(ROOT, "../shared/real-programs"),
};

export const BUNDLED_WORKER_PATH = join(ROOT, "dist/wasiThreadBrowserWorker.mjs");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

const ISOLATION = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

// A file strictly inside `dir` (after symlinks), or null.
async function inside(dir, relative) {
  if (!relative || relative.includes("\0")) return null;
  const base = await realpath(dir).catch(() => null);
  if (!base) return null;
  const path = await realpath(join(base, relative)).catch(() => null);
  return path && path.startsWith(base + sep) ? path : null;
}

function rewriteBareSpecifiers(source) {
  return source.replaceAll(`"${SHIM_SPECIFIER}"`, `"${SHIM_URL}"`).replaceAll(`'${SHIM_SPECIFIER}'`, `'${SHIM_URL}'`);
}

async function resolve(pathname) {
  const fixed = {
    "/": join(HERE, "page.html"),
    "/page.js": join(HERE, "page.js"),
    "/owner.js": join(HERE, "owner.js"),
    "/growth-owner.js": join(HERE, "growth-owner.js"),
    "/wave-abi.js": join(ROOT, "test/support/wave-abi.js"),
    "/thread-wave.wasm": join(ROOT, "guest/out/thread-wave.wasm"),
  };
  if (fixed[pathname]) return { path: fixed[pathname] };
  if (pathname === "/not-isolated") return { path: join(HERE, "page.html"), isolated: false };
  const programs = /^\/(wasi-programs|real-programs)\/([a-z_]+\.wasm)$/.exec(pathname);
  if (programs) return { path: await inside(PROGRAM_DIRS[programs[1]], programs[2]) };
  const match = /^\/(lib|vendor\/browser_wasi_shim|dist)\/(.+)$/.exec(pathname);
  if (!match) return null;
  const [, area, rest] = match;
  if (![".js", ".mjs", ".map"].includes(extname(rest))) return null;
  const dir = area === "lib" ? join(ROOT, "lib") : area === "dist" ? join(ROOT, "dist") : SHIM_DIR;
  const path = await inside(dir, rest);
  return path ? { path, rewrite: area === "lib" } : null;
}

export async function startWaveServer({ port = 0 } = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    let status = 200;
    try {
      const { pathname } = new URL(req.url, "http://127.0.0.1");
      const found = req.method === "GET" || req.method === "HEAD" ? await resolve(pathname) : null;
      if (!found?.path || !existsSync(found.path)) {
        status = 404;
        res.writeHead(404, { ...ISOLATION, "Content-Type": "text/plain" });
        res.end("not found\n");
        return;
      }
      let body = await readFile(found.path);
      if (found.rewrite) body = Buffer.from(rewriteBareSpecifiers(body.toString("utf8")));
      res.writeHead(200, {
        ...(found.isolated === false ? { "Cache-Control": "no-store" } : ISOLATION),
        "Content-Type": TYPES[extname(found.path)] ?? "application/octet-stream",
        "Content-Length": body.length,
      });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (error) {
      status = 500;
      res.writeHead(500, { ...ISOLATION, "Content-Type": "text/plain" });
      res.end(String(error?.stack ?? error));
    } finally {
      requests.push(`${status} ${req.url}`);
    }
  });
  await new Promise((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolveListen);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections?.();
        server.close(() => resolveClose());
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === (await realpath(process.argv[1]).catch(() => ""))) {
  const { origin } = await startWaveServer({ port: Number(process.env.PORT ?? 0) });
  console.log(`thread-wave page at ${origin}/`);
}
