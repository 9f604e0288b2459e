// Serves the example page from a clone of the package with the two headers
// that make it cross-origin isolated (SharedArrayBuffer, so threads):
//   Cross-Origin-Opener-Policy: same-origin
//   Cross-Origin-Embedder-Policy: require-corp
// Any static server that sends them does the same.
//
//   npm run build:browser-worker        (once: dist/wasiThreadBrowserWorker.mjs)
//   node docs/examples/program-page/serve.js [port]
//   then open http://127.0.0.1:8080/docs/examples/program-page/

import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(fileURLToPath(new URL("../../../", import.meta.url))).replace(/[\\/]$/, "");
const PORT = Number(process.argv[2] ?? 8080);
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };
const HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cache-Control": "no-store",
};

createServer(async (req, res) => {
  const { pathname } = new URL(req.url, "http://localhost");
  const path = join(ROOT, normalize(decodeURIComponent(pathname)), pathname.endsWith("/") ? "index.html" : "");
  if (!path.startsWith(ROOT + sep)) {
    res.writeHead(404, HEADERS).end("not found\n");
    return;
  }
  try {
    const body = await readFile(path);
    res.writeHead(200, { ...HEADERS, "Content-Type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404, HEADERS).end("not found\n");
  }
}).listen(PORT, "127.0.0.1", () => console.log(`http://127.0.0.1:${PORT}/docs/examples/program-page/`));
