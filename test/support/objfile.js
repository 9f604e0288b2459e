// A small reader of the three shared-library formats the prebuilds come in
// (ELF, Mach-O, PE), and the rules each prebuild must follow. Used by
// test/prebuilds.test.js and scripts/prebuild.sh; no tools needed.
//
//   inspect(buffer) -> {
//     format: "elf" | "macho" | "pe", arch: "x64" | "arm64", shared: bool,
//     exports: [name],                      dynamic exports (ELF .dynsym, Mach-O export trie, PE export table)
//     imports: [{ name, from, version }],   undefined symbols and where they bind:
//                                           ELF: from = null, version "GLIBC_2.17" or null;
//                                           Mach-O: from = a dylib path or "flat" (-undefined dynamic_lookup);
//                                           PE: from = the DLL name
//     libraries: [name],                    ELF DT_NEEDED, Mach-O LC_LOAD_DYLIB, PE import DLLs
//     macho: { minos, uuid, signature: null | { ok, slots } }   (Mach-O only)
//     pe: { timestamp }                                        (PE only)
//   }
//   problems(target, info) -> [string]      what breaks the rules below for a target of
//                                           scripts/cross-prebuild.js (ALL_TARGETS)
//
//   node test/support/objfile.js --check [prebuilds-dir]   checks every prebuild, prints a table
//   node test/support/objfile.js FILE...                    prints what inspect() sees

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------------------
// ELF (64-bit, little-endian)

function cstring(buf, at) {
  const end = buf.indexOf(0, at);
  return buf.toString("latin1", at, end < 0 ? buf.length : end);
}

function inspectElf(buf) {
  if (buf[4] !== 2 || buf[5] !== 1) throw new Error("only 64-bit little-endian ELF is read");
  const type = buf.readUInt16LE(16);
  const machine = buf.readUInt16LE(18);
  const shoff = Number(buf.readBigUInt64LE(40));
  const shentsize = buf.readUInt16LE(58);
  const shnum = buf.readUInt16LE(60);
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    sections.push({
      type: buf.readUInt32LE(at + 4),
      offset: Number(buf.readBigUInt64LE(at + 24)),
      size: Number(buf.readBigUInt64LE(at + 32)),
      link: buf.readUInt32LE(at + 40),
      entsize: Number(buf.readBigUInt64LE(at + 56)),
    });
  }
  const SHT_DYNAMIC = 6,
    SHT_DYNSYM = 11,
    SHT_VERNEED = 0x6ffffffe,
    SHT_VERSYM = 0x6fffffff;
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  if (!dynsym) throw new Error("ELF file without .dynsym");
  const strtab = sections[dynsym.link].offset;
  // Version needs: index -> "GLIBC_2.17".
  const versionNames = new Map();
  const verneed = sections.find((s) => s.type === SHT_VERNEED);
  if (verneed) {
    const vstr = sections[verneed.link].offset;
    let at = verneed.offset;
    for (;;) {
      const cnt = buf.readUInt16LE(at + 2);
      let aux = at + buf.readUInt32LE(at + 8);
      for (let i = 0; i < cnt; i++) {
        versionNames.set(buf.readUInt16LE(aux + 6), cstring(buf, vstr + buf.readUInt32LE(aux + 8)));
        const next = buf.readUInt32LE(aux + 12);
        if (next === 0) break;
        aux += next;
      }
      const next = buf.readUInt32LE(at + 12);
      if (next === 0) break;
      at += next;
    }
  }
  const versym = sections.find((s) => s.type === SHT_VERSYM);
  const exports = [];
  const imports = [];
  const count = dynsym.size / dynsym.entsize;
  for (let i = 1; i < count; i++) {
    const at = dynsym.offset + i * dynsym.entsize;
    const name = cstring(buf, strtab + buf.readUInt32LE(at));
    const info = buf[at + 4];
    const bind = info >> 4; // 1 global, 2 weak
    const shndx = buf.readUInt16LE(at + 6);
    if (bind !== 1 && bind !== 2) continue;
    if (shndx === 0) {
      const v = versym ? buf.readUInt16LE(versym.offset + i * 2) & 0x7fff : 0;
      imports.push({ name, from: null, version: versionNames.get(v) ?? null, weak: bind === 2 });
    } else {
      exports.push(name);
    }
  }
  const libraries = [];
  const dynamic = sections.find((s) => s.type === SHT_DYNAMIC);
  if (dynamic) {
    const dstr = sections[dynamic.link].offset;
    for (let at = dynamic.offset; at < dynamic.offset + dynamic.size; at += 16) {
      const tag = Number(buf.readBigInt64LE(at));
      if (tag === 0) break;
      if (tag === 1) libraries.push(cstring(buf, dstr + Number(buf.readBigUInt64LE(at + 8))));
    }
  }
  const arch = { 62: "x64", 183: "arm64" }[machine] ?? `e_machine ${machine}`;
  return { format: "elf", arch, shared: type === 3, exports, imports, libraries };
}

// ---------------------------------------------------------------------------
// Mach-O (64-bit, little-endian, thin)

function uleb(buf, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buf[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

function exportTrie(buf, start, size) {
  const names = [];
  (function walk(at, prefix) {
    const [terminal, afterSize] = uleb(buf, at);
    if (terminal > 0) names.push(prefix);
    let p = afterSize + terminal;
    const children = buf[p++];
    for (let i = 0; i < children; i++) {
      const edge = cstring(buf, p);
      p += Buffer.byteLength(edge, "latin1") + 1;
      const [child, next] = uleb(buf, p);
      p = next;
      if (child >= size) throw new Error("bad export trie");
      walk(start + child, prefix + edge);
    }
  })(start, "");
  return names;
}

function verifySignature(buf, offset) {
  if (buf.readUInt32BE(offset) !== 0xfade0cc0) return { ok: false, why: "no SuperBlob" };
  const count = buf.readUInt32BE(offset + 8);
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32BE(offset + 12 + i * 8) !== 0) continue;
    const cd = offset + buf.readUInt32BE(offset + 16 + i * 8);
    if (buf.readUInt32BE(cd) !== 0xfade0c02) return { ok: false, why: "no CodeDirectory" };
    const hashOffset = buf.readUInt32BE(cd + 16);
    const slots = buf.readUInt32BE(cd + 28);
    const codeLimit = buf.readUInt32BE(cd + 32);
    const hashSize = buf[cd + 36];
    const pageSize = 2 ** buf[cd + 39];
    if (buf[cd + 37] !== 2 || hashSize !== 32) return { ok: false, why: "not SHA-256" };
    if (codeLimit !== offset) return { ok: false, why: `code limit ${codeLimit} is not the signature offset ${offset}` };
    for (let s = 0; s < slots; s++) {
      const page = buf.subarray(s * pageSize, Math.min((s + 1) * pageSize, codeLimit));
      const stored = buf.subarray(cd + hashOffset + s * 32, cd + hashOffset + s * 32 + 32);
      if (!createHash("sha256").update(page).digest().equals(stored)) return { ok: false, why: `page ${s} hash differs` };
    }
    return { ok: true, slots };
  }
  return { ok: false, why: "no CodeDirectory slot" };
}

function inspectMachO(buf) {
  const cputype = buf.readUInt32LE(4);
  const filetype = buf.readUInt32LE(12);
  const ncmds = buf.readUInt32LE(16);
  const libraries = [];
  let symtab = null;
  let trie = null;
  let minos = null;
  let uuid = null;
  let signature = null;
  for (let i = 0, at = 32; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const size = buf.readUInt32LE(at + 4);
    if (cmd === 0x2)
      symtab = { symoff: buf.readUInt32LE(at + 8), nsyms: buf.readUInt32LE(at + 12), stroff: buf.readUInt32LE(at + 16) };
    else if (cmd === 0xc) libraries.push(cstring(buf, at + buf.readUInt32LE(at + 8)));
    else if (cmd === 0x80000022 || cmd === 0x22) trie = { off: buf.readUInt32LE(at + 40), size: buf.readUInt32LE(at + 44) };
    else if (cmd === 0x80000033) trie = { off: buf.readUInt32LE(at + 8), size: buf.readUInt32LE(at + 12) };
    else if (cmd === 0x32) {
      const v = buf.readUInt32LE(at + 12);
      minos = `${v >>> 16}.${(v >> 8) & 0xff}${v & 0xff ? `.${v & 0xff}` : ""}`;
    } else if (cmd === 0x1b) uuid = buf.toString("hex", at + 8, at + 24);
    else if (cmd === 0x1d) signature = verifySignature(buf, buf.readUInt32LE(at + 8));
    at += size;
  }
  const imports = [];
  if (symtab) {
    for (let i = 0; i < symtab.nsyms; i++) {
      const at = symtab.symoff + i * 16;
      const type = buf[at + 4];
      if (type & 0xe0) continue; // stabs
      if ((type & 0x0e) !== 0 || !(type & 0x01)) continue; // N_UNDF | N_EXT only
      const name = cstring(buf, symtab.stroff + buf.readUInt32LE(at));
      const ordinal = buf.readUInt16LE(at + 6) >> 8;
      const from =
        ordinal === 0xfe ? "flat" : ordinal >= 1 && ordinal <= libraries.length ? libraries[ordinal - 1] : `ordinal ${ordinal}`;
      imports.push({ name, from, version: null });
    }
  }
  const exports = trie && trie.size > 0 ? exportTrie(buf, trie.off, trie.size) : [];
  const arch = { 0x01000007: "x64", 0x0100000c: "arm64" }[cputype] ?? `cputype ${cputype}`;
  return {
    format: "macho",
    arch,
    shared: filetype === 6 || filetype === 8,
    exports,
    imports,
    libraries,
    macho: { minos, uuid, signature },
  };
}

// ---------------------------------------------------------------------------
// PE32+

function inspectPe(buf) {
  const pe = buf.readUInt32LE(0x3c);
  if (buf.readUInt32LE(pe) !== 0x00004550) throw new Error("MZ file without a PE header");
  const machine = buf.readUInt16LE(pe + 4);
  const nsections = buf.readUInt16LE(pe + 6);
  const timestamp = buf.readUInt32LE(pe + 8);
  const optSize = buf.readUInt16LE(pe + 20);
  const characteristics = buf.readUInt16LE(pe + 22);
  const opt = pe + 24;
  if (buf.readUInt16LE(opt) !== 0x20b) throw new Error("not PE32+");
  const dirs = opt + 112;
  const dir = (i) => ({ rva: buf.readUInt32LE(dirs + i * 8), size: buf.readUInt32LE(dirs + i * 8 + 4) });
  const sections = [];
  for (let i = 0, at = opt + optSize; i < nsections; i++, at += 40) {
    sections.push({
      va: buf.readUInt32LE(at + 12),
      vsize: buf.readUInt32LE(at + 8),
      raw: buf.readUInt32LE(at + 20),
      rawSize: buf.readUInt32LE(at + 16),
    });
  }
  const off = (rva) => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + Math.max(x.vsize, x.rawSize));
    if (!s) throw new Error(`RVA 0x${rva.toString(16)} in no section`);
    return rva - s.va + s.raw;
  };
  const exports = [];
  const ed = dir(0);
  if (ed.size > 0) {
    const at = off(ed.rva);
    const n = buf.readUInt32LE(at + 24);
    const names = off(buf.readUInt32LE(at + 32));
    for (let i = 0; i < n; i++) exports.push(cstring(buf, off(buf.readUInt32LE(names + i * 4))));
  }
  const imports = [];
  const libraries = [];
  const id = dir(1);
  if (id.size > 0) {
    for (let at = off(id.rva); ; at += 20) {
      const lookup = buf.readUInt32LE(at) || buf.readUInt32LE(at + 16);
      const nameRva = buf.readUInt32LE(at + 12);
      if (lookup === 0 && nameRva === 0) break;
      const dll = cstring(buf, off(nameRva));
      libraries.push(dll);
      for (let t = off(lookup); ; t += 8) {
        const entry = buf.readBigUInt64LE(t);
        if (entry === 0n) break;
        if (entry >> 63n) imports.push({ name: `#${Number(entry & 0xffffn)}`, from: dll, version: null });
        else imports.push({ name: cstring(buf, off(Number(entry & 0x7fffffffn)) + 2), from: dll, version: null });
      }
    }
  }
  const arch = { 0x8664: "x64", 0xaa64: "arm64" }[machine] ?? `machine 0x${machine.toString(16)}`;
  return { format: "pe", arch, shared: (characteristics & 0x2000) !== 0, exports, imports, libraries, pe: { timestamp } };
}

export function inspect(buf) {
  if (buf.readUInt32BE(0) === 0x7f454c46) return inspectElf(buf);
  if (buf.readUInt32LE(0) === 0xfeedfacf) return inspectMachO(buf);
  if (buf.readUInt16LE(0) === 0x5a4d) return inspectPe(buf);
  throw new Error(`unknown file format (magic 0x${buf.readUInt32BE(0).toString(16)})`);
}

// ---------------------------------------------------------------------------
// The rules.
//
// Exports: napi_register_module_v1 (the entry Node looks up),
// node_api_module_get_api_version_v1 (the Node-API version the module was
// built for, which node_api.h's NAPI_MODULE_INIT adds), wtp_addon_marker
// (binding.c: how two copies of the addon in one process find each other);
// on musl x64 also the _init/_fini of the C runtime's crti.o. Nothing of
// the core.
//
// Imports: Node-API (napi_*, node_api_*) and libuv (uv_*, exported by every
// Node: binding.c uses uv_once and uv_mutex), which bind to the node binary;
// and the C library / system functions listed below, nothing else. A new
// libc call in src/ fails this test until it is added here, on purpose: it
// must exist on every platform's libc (and, for glibc, at version 2.17).

const NODE = /^(?:napi_|node_api_|uv_)/;

// C library functions a Linux prebuild may import (glibc and musl).
const LIBC = new Set([
  "__errno_location",
  "__sched_cpucount",
  "__stack_chk_fail",
  "__cxa_finalize",
  "__gmon_start__",
  "_ITM_deregisterTMCloneTable",
  "_ITM_registerTMCloneTable",
  "abort",
  "calloc",
  "malloc",
  "realloc",
  "free",
  "memcpy",
  "memmove",
  "memset",
  "memcmp",
  "strlen",
  "strcmp",
  "strncmp",
  "strerror",
  "strdup",
  "snprintf",
  "vsnprintf",
  "getenv",
  "floor",
  "dlopen",
  "dlsym",
  "dlclose",
  "dlerror",
  "dladdr",
  "dl_iterate_phdr",
  "clock_gettime",
  "clock_nanosleep",
  "nanosleep",
  "sched_yield",
  "sched_getaffinity",
  "sysconf",
  "syscall",
  "pthread_once",
  "pthread_mutex_init",
  "pthread_mutex_lock",
  "pthread_mutex_unlock",
  "pthread_mutex_destroy",
  "pthread_cond_init",
  "pthread_cond_wait",
  "pthread_cond_timedwait",
  "pthread_cond_signal",
  "pthread_cond_broadcast",
  "pthread_cond_destroy",
  "pthread_condattr_init",
  "pthread_condattr_setclock",
  "pthread_condattr_destroy",
  "pthread_self",
  "pthread_key_create",
  "pthread_getspecific",
  "pthread_setspecific",
  // The program's C WASI (src/wasi/): file, directory, socket and poll calls.
  "accept",
  "accept4", // sock_accept's close-on-exec (glibc 2.10)
  "inotify_add_watch", // a FIFO's reader waits for a writer's open (glibc 2.4)
  "inotify_init1", // (glibc 2.9)
  "isatty", // stdio that is a character device but no terminal
  "clock_getres",
  "close",
  "closedir",
  "dirfd",
  "eventfd",
  "fcntl",
  "fdatasync",
  "fdopendir",
  "fstat",
  "fstatat",
  "fsync",
  "ftruncate",
  "futimens",
  "getsockopt",
  "ioctl",
  "linkat",
  "lseek",
  "memchr",
  "mkdirat",
  "open",
  "openat",
  "pipe",
  "pipe2",
  "poll",
  "posix_fadvise",
  "posix_fallocate",
  "pread",
  "preadv",
  "pwrite",
  "pwritev",
  "read",
  "readdir",
  "readlinkat",
  "readv",
  "recvmsg",
  "renameat",
  "rewinddir",
  "sendmsg",
  "shutdown",
  "strcpy",
  "symlinkat",
  "tee",
  "unlinkat",
  "utimensat",
  "write",
  "writev",
  // The CLI's exitProcess (src/node/binding_wasi.c): the program's end on a thread other than the main one.
  "_exit",
  // A program's memory advised for huge pages (src/os/memory_linux.c; glibc 2.2.5 / 2.17 on arm64).
  "madvise",
  // Whether the kernel hands free huge pages back to its hypervisor: the virtio balloons' sysfs
  // folders listed and their feature bits read (src/os/memory_linux.c).
  "opendir",
  "strcspn",
]);
const LINUX_LIBRARIES = {
  glibc: new Set(["libc.so.6", "libpthread.so.0", "libm.so.6", "libdl.so.2"]),
  // musl's loader treats any libc.so / libc.musl-<arch>.so.1 name as itself.
  musl: new Set(["libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]),
};
// The oldest glibc the Linux glibc prebuilds support (docs/packaging.md).
const GLIBC_MAX = [2, 17];
// Weak references every ELF shared object carries, unversioned by nature.
const GLIBC_WEAK_UNVERSIONED = new Set(["__gmon_start__", "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable"]);

// libSystem functions a macOS prebuild may import (all from libSystem.B.dylib).
const LIBSYSTEM = new Set([
  "___error",
  "___ulock_wait",
  "___ulock_wake",
  "___stack_chk_fail",
  "___stack_chk_guard",
  "_abort",
  "_calloc",
  "_malloc",
  "_realloc",
  "_free",
  "_memcpy",
  "_memmove",
  "_memset",
  "_memcmp",
  "_bzero",
  "_strlen",
  "_strcmp",
  "_strncmp",
  "_strerror",
  "_snprintf",
  "_vsnprintf",
  "_getenv",
  "_floor",
  "_clock_gettime",
  "_clock_gettime_nsec_np",
  "_mach_absolute_time",
  "_nanosleep",
  "_sched_yield",
  "_sysconf",
  "_sysctlbyname",
  "_dlsym",
  "_dlopen",
  "_dlclose",
  "_dladdr",
  "__dyld_image_count",
  "__dyld_get_image_name",
  "__dyld_get_image_header",
  "_strdup",
  "_pthread_once",
  "_pthread_mutex_init",
  "_pthread_mutex_lock",
  "_pthread_mutex_unlock",
  "_pthread_mutex_destroy",
  "_pthread_cond_init",
  "_pthread_cond_wait",
  "_pthread_cond_timedwait_relative_np",
  "_pthread_cond_signal",
  "_pthread_cond_broadcast",
  "_pthread_cond_destroy",
  "dyld_stub_binder",
  // The spin policy's machine signal (src/os/wait_darwin.c) and the CLI's exitProcess (src/node/binding_wasi.c).
  "_getloadavg",
  "__exit",
  // The program's C WASI (src/wasi/); $INODE64 are x86-64's 64-bit-inode names.
  "___bzero",
  "___memcpy_chk",
  "_accept",
  "_isatty",
  "_arc4random_buf",
  "_clock_getres",
  "_close",
  "_closedir",
  "_dirfd",
  "_fcntl",
  "_fdopendir",
  "_fdopendir$INODE64",
  "_fstat",
  "_fstat$INODE64",
  "_fstatat",
  "_fstatat$INODE64",
  "_fsync",
  "_ftruncate",
  "_futimens",
  "_getsockopt",
  "_ioctl",
  "_linkat",
  "_lseek",
  "_memchr",
  "_mkdirat",
  "_open",
  "_openat",
  "_pipe",
  "_poll",
  "_pread",
  "_pwrite",
  "_read",
  "_readdir",
  "_readdir$INODE64",
  "_readlinkat",
  "_readv",
  "_recvmsg",
  "_renameat",
  "_rewinddir",
  "_rewinddir$INODE64",
  "_sendmsg",
  "_shutdown",
  "_symlinkat",
  "_unlinkat",
  "_utimensat",
  "_write",
  "_writev",
]);
const LIBSYSTEM_PATH = "/usr/lib/libSystem.B.dylib";

// What a Windows prebuild may import, by DLL (names are case-insensitive).
const WINDOWS = {
  "node.exe": null, // NODE names only
  "kernel32.dll": new Set([
    "GetLastError",
    "SetLastError",
    "GetSystemInfo",
    "QueryPerformanceCounter",
    "QueryPerformanceFrequency",
    "Sleep",
    "SwitchToThread",
    "TlsAlloc",
    "TlsGetValue",
    "TlsSetValue",
    "TlsFree",
    "VirtualProtect",
    "VirtualQuery",
    "IsDBCSLeadByteEx",
    "MultiByteToWideChar",
    "WideCharToMultiByte",
    "InitializeCriticalSection",
    "EnterCriticalSection",
    "LeaveCriticalSection",
    "DeleteCriticalSection",
    "GetActiveProcessorCount",
    "GetCurrentProcess",
    "GetCurrentThreadId",
    "GetProcessAffinityMask",
    "RtlCaptureContext",
    "GetModuleFileNameA",
    "GetModuleFileNameW",
    "GetModuleHandleA",
    "GetModuleHandleW",
    "GetProcAddress",
    "K32EnumProcessModules",
    "RtlLookupFunctionEntry",
    "RtlVirtualUnwind",
    "UnhandledExceptionFilter",
    "SetUnhandledExceptionFilter",
    // The program's WASI (src/wasi/*_windows.c): handles, files, pipes,
    // consoles, the stop's canceller thread, clocks, exitProcess.
    "CancelSynchronousIo",
    "CloseHandle",
    "CompareStringOrdinal",
    "CreateFileW",
    "CreatePipe",
    "CreateThread",
    "DeviceIoControl",
    "DuplicateHandle",
    "FlushFileBuffers",
    "GetConsoleMode",
    "GetCurrentThread",
    "GetFileInformationByHandle",
    "GetFileInformationByHandleEx",
    "GetFileSizeEx",
    "GetFileType",
    "GetNumberOfConsoleInputEvents",
    "GetProcessTimes",
    "GetSystemTimeAsFileTime",
    "GetSystemTimePreciseAsFileTime",
    "GetThreadTimes",
    "OpenThread",
    "PeekNamedPipe",
    "ReadFile",
    "SetFileInformationByHandle",
    "SetFilePointerEx",
    "TerminateProcess",
    "WaitForMultipleObjects",
    "WriteFile",
  ]),
  // The WASI's sandbox and path calls (src/wasi/wasi_path*_windows.c): opens
  // relative to a directory handle, listings, rename/link/delete by handle.
  "ntdll.dll": new Set([
    "NtCreateFile",
    "NtQueryDirectoryFile",
    "NtQueryInformationFile",
    "NtQueryObject",
    "NtSetInformationFile",
    "RtlNtStatusToDosError",
  ]),
  // random_get (src/wasi/wasi_clock_windows.c).
  "bcrypt.dll": new Set(["BCryptGenRandom"]),
  // WaitOnAddress and its wakes (MSVC: Synchronization.lib); the linker also
  // takes the other synchronization functions of this API set from it.
  "api-ms-win-core-synch-l1-2-0.dll": new Set([
    "WaitOnAddress",
    "WakeByAddressSingle",
    "WakeByAddressAll",
    "Sleep",
    "InitializeCriticalSection",
    "EnterCriticalSection",
    "LeaveCriticalSection",
    "DeleteCriticalSection",
    "InitOnceExecuteOnce",
    "AcquireSRWLockExclusive",
    "ReleaseSRWLockExclusive",
    // The WASI's locks and its stop event (src/os/wtp_mutex.h, wasi_host_windows.c).
    "InitializeSRWLock",
    "CreateEventW",
    "SetEvent",
    "WaitForSingleObject",
  ]),
  // MinGW-w64's C runtime DLL, present on every Windows.
  "msvcrt.dll": new Set([
    "___lc_codepage_func",
    "___mb_cur_max_func",
    "__iob_func",
    "_amsg_exit",
    "_errno",
    "_initterm",
    "_lock",
    "_unlock",
    "abort",
    "calloc",
    "malloc",
    "realloc",
    "free",
    "fputc",
    "fwrite",
    "localeconv",
    "strerror",
    "strlen",
    "strncmp",
    "memcpy",
    "memmove",
    "memset",
    "vfprintf",
    "wcslen",
    "floor",
    "_vsnprintf",
    "getenv",
    "_strdup",
    "strdup",
    "memchr",
    "strcmp",
  ]),
};

const ARCH_OF = { x64: "x64", arm64: "arm64" };

/** The rules a prebuild for `target` (scripts/cross-prebuild.js) breaks, as sentences. */
export function problems(target, info) {
  const out = [];
  const want = { linux: "elf", darwin: "macho", win32: "pe" }[target.platform];
  if (info.format !== want) out.push(`format ${info.format}, expected ${want}`);
  if (info.arch !== ARCH_OF[target.arch]) out.push(`architecture ${info.arch}, expected ${target.arch}`);
  if (!info.shared) out.push("not a shared library");
  const prefix = info.format === "macho" ? "_" : "";
  const entry = `${prefix}napi_register_module_v1`;
  if (!info.exports.includes(entry)) out.push(`does not export ${entry}`);
  const allowedExports = new Set([
    entry,
    `${prefix}node_api_module_get_api_version_v1`,
    `${prefix}wtp_addon_marker`,
    "_init",
    "_fini",
  ]);
  const extra = info.exports.filter((e) => !allowedExports.has(e));
  if (extra.length)
    out.push(
      `exports more than the module entry: ${extra.slice(0, 12).join(", ")}${extra.length > 12 ? ` (+${extra.length - 12})` : ""}`,
    );

  const bad = [];
  if (info.format !== want) {
    // The format's own rules do not apply.
  } else if (info.format === "elf") {
    const libs = LINUX_LIBRARIES[target.libc];
    for (const lib of info.libraries) if (!libs.has(lib)) bad.push(`needs ${lib}`);
    for (const imp of info.imports) {
      if (NODE.test(imp.name)) continue;
      if (!LIBC.has(imp.name)) bad.push(`imports ${imp.name}${imp.version ? `@${imp.version}` : ""}`);
      if (target.libc === "musl" && imp.version) bad.push(`${imp.name} carries a symbol version (${imp.version}) on musl`);
      // glibc: a libc function without a symbol version is one glibc 2.17
      // does not export (getrandom is 2.25; fstat is a libc_nonshared.a
      // wrapper before 2.33): the prebuild would not load there.
      if (target.libc === "glibc" && !imp.version && !GLIBC_WEAK_UNVERSIONED.has(imp.name)) {
        bad.push(`${imp.name} carries no glibc symbol version (not exported by glibc ${GLIBC_MAX.join(".")})`);
      }
      const m = /^GLIBC_(\d+)\.(\d+)/.exec(imp.version ?? "");
      if (m && (Number(m[1]) > GLIBC_MAX[0] || (Number(m[1]) === GLIBC_MAX[0] && Number(m[2]) > GLIBC_MAX[1]))) {
        bad.push(`${imp.name}@${imp.version} is newer than glibc ${GLIBC_MAX.join(".")}`);
      }
    }
  } else if (info.format === "macho") {
    for (const lib of info.libraries) if (lib !== LIBSYSTEM_PATH) bad.push(`links ${lib}`);
    for (const imp of info.imports) {
      if (NODE.test(imp.name.slice(1))) {
        if (imp.from !== "flat")
          bad.push(`${imp.name} binds to ${imp.from}, not to the loading process (-undefined dynamic_lookup)`);
      } else if (!LIBSYSTEM.has(imp.name)) bad.push(`imports ${imp.name}`);
      else if (imp.from !== LIBSYSTEM_PATH) bad.push(`${imp.name} binds to ${imp.from}`);
    }
    if (target.arch === "arm64" && !(info.macho.signature && info.macho.signature.ok)) {
      bad.push(`no valid ad-hoc code signature (arm64 macOS runs only signed code): ${info.macho.signature?.why ?? "none"}`);
    }
  } else if (info.format === "pe") {
    for (const imp of info.imports) {
      const dll = imp.from.toLowerCase();
      if (!(dll in WINDOWS)) bad.push(`imports ${imp.name} from ${imp.from}`);
      else if (WINDOWS[dll] === null ? !NODE.test(imp.name) : !WINDOWS[dll].has(imp.name))
        bad.push(`imports ${imp.name} from ${imp.from}`);
    }
  }
  return [...out, ...new Set(bad)];
}

// ---------------------------------------------------------------------------

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === "--check") {
    const { ALL_TARGETS, prebuildPath } = await import("../../scripts/cross-prebuild.js");
    const root = resolve(args[1] ?? "prebuilds", "..");
    let failed = 0;
    for (const target of ALL_TARGETS) {
      const file = join(root, prebuildPath(target));
      let info;
      try {
        info = inspect(readFileSync(file));
      } catch (error) {
        console.log(`FAIL ${prebuildPath(target)}: ${error.message}`);
        failed++;
        continue;
      }
      const p = problems(target, info);
      const napi = info.imports.filter((i) => /napi_|node_api_/.test(i.name)).length;
      const sys = info.imports.length - napi - info.imports.filter((i) => /^_?uv_/.test(i.name)).length;
      console.log(
        `${p.length ? "FAIL" : "ok  "} ${prebuildPath(target).padEnd(50)} ${info.format.padEnd(5)} ${info.arch.padEnd(5)} ` +
          `${napi} napi, ${sys} system imports from ${info.libraries.join(" ") || "-"}`,
      );
      for (const line of p) console.log(`     ${line}`);
      if (p.length) failed++;
    }
    process.exit(failed ? 1 : 0);
  }
  for (const file of args) console.log(file, JSON.stringify(inspect(readFileSync(file)), null, 1));
}
