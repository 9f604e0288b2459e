// The example page: pick a wasi-threads program, give its arguments, drop
// files into its /data (a directory of the in-memory file system), run it
// with runWasiThreadsProgram, see stdout and stderr as they come, download
// what it wrote. Served by serve.js (the two headers that make the page
// cross-origin isolated); the pool's workers load the package's bundled
// worker (dist/, `npm run build:browser-worker`).

import { runWasiThreadsProgram } from "/lib/index.browser.js";

const $ = (id) => document.getElementById(id);
const data = {}; // the program's /data: name -> Uint8Array (or a directory object)
let wasmBytes = null;

$("isolation").textContent = crossOriginIsolated
  ? "This page is cross-origin isolated: programs can run."
  : "This page is NOT cross-origin isolated: serve it with serve.js (COOP and COEP headers).";

function listing() {
  const list = $("listing");
  list.replaceChildren();
  for (const [name, value] of Object.entries(data)) {
    const item = document.createElement("li");
    if (value instanceof Uint8Array) {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([value]));
      link.download = name;
      link.textContent = `${name} (${value.length} bytes)`;
      item.append(link);
    } else {
      item.textContent = `${name}/ (a directory)`;
    }
    list.append(item);
  }
}

async function addFiles(files) {
  for (const file of files) data[file.name] = new Uint8Array(await file.arrayBuffer());
  listing();
}

$("wasm").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  wasmBytes = file ? new Uint8Array(await file.arrayBuffer()) : null;
  $("run").disabled = wasmBytes === null;
  $("status").textContent = file ? `${file.name}: ${wasmBytes.length} bytes` : "";
});
$("files").addEventListener("change", (event) => addFiles(event.target.files));
const drop = $("drop");
drop.addEventListener("dragover", (event) => {
  event.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  addFiles(event.dataTransfer.files);
});

function appender(className) {
  const decoder = new TextDecoder();
  return (bytes) => {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = decoder.decode(bytes, { stream: true });
    $("output").append(span);
  };
}

$("run").addEventListener("click", async () => {
  const name = $("wasm").files[0]?.name.replace(/\.wasm$/, "") ?? "program";
  const args = [name, ...$("args").value.split(" ").filter(Boolean)];
  $("output").replaceChildren();
  $("run").disabled = true;
  $("status").textContent = `running ${args.join(" ")}`;
  const started = performance.now();
  try {
    const { exitCode } = await runWasiThreadsProgram(wasmBytes, {
      args,
      preopens: { "/data": data },
      stdout: appender("stdout"),
      stderr: appender("stderr"),
      workerUrl: new URL("/dist/wasiThreadBrowserWorker.mjs", location.href),
    });
    $("status").textContent = `exit code ${exitCode} after ${Math.round(performance.now() - started)} ms`;
  } catch (error) {
    $("status").textContent = `could not run: ${error.message}`;
  } finally {
    $("run").disabled = false;
    listing();
  }
});
