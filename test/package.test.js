// The package as a user gets it: `npm pack`, then installs of the tarball into
// fresh projects under os.tmpdir(), each followed by a smoke run of the
// installed copy (test/support/package-smoke.js):
//
//   a. a plain install: the committed prebuild serves (native); the types
//      check with tsc through the package name; the SDK switch-over example
//      (docs/examples/sdk-switch) runs its guest against the tarball
//   b. no C compiler on PATH (only `node`): the prebuild loads, native
//   c. no prebuild in the tarball and no compiler: the install still
//      succeeds, prints the install script's warning, and the JS twin runs
//      and says why
//   d. no prebuild, with a compiler: built from source offline (node-gyp with
//      the local headers), native from build/Release
//   e. install scripts disabled (--ignore-scripts): the prebuild still serves
//
// Dependencies come from the registry or npm's cache (--prefer-offline).
// If the registry cannot be reached the installs are tried with --offline;
// if that fails too, the suite fails in CI (CI=true) and skips elsewhere.
//
// WTP_PACKAGE_KEEP=1 keeps the temporary folder (its path is printed).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { ALL_TARGETS, prebuildPath } from "../scripts/cross-prebuild.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUPPORT = join(ROOT, "test", "support");
const EXAMPLE = join(ROOT, "docs", "examples", "sdk-switch");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const IN_CI = process.env.CI === "true";
const PLATFORM = `${process.platform}-${process.arch}`;
const HAS_PREBUILD =
  existsSync(join(ROOT, "prebuilds", PLATFORM)) &&
  readdirSync(join(ROOT, "prebuilds", PLATFORM)).some((f) => f.endsWith(".node"));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const WABT = join(ROOT, "node_modules", "wabt");

// What a user needs, and nothing else.
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^binding\.gyp$/,
  /^scripts\/install\.js$/,
  /^lib\/(?:(?:pool|native|host|worker|program|program\/browser|wasm)\/)?[^/]+\.(?:js|mjs|cjs)$/,
  /^bin\/[^/]+\.js$/,
  /^bin\/package\.json$/, // bin/ is CommonJS (the CLI's start-up)
  /^dist\/[^/]+\.(?:mjs|cjs)$/, // the built workers (browser; the Node pool workers, scripts/bundle-workers.js)
  /^src\/(?:core|os|node|wasi)\/[^/]+\.[ch]$/, // the C rooms: the core, the OS waits, the WASI, the Node-API glue
  /^src\/wasm\/[^/]+\.c$/, // the source of lib/wasm/code-rewriter-wasm.js (scripts/build-code-rewriter.js)
  /^prebuilds\/[^/]+\/[^/]+\.node$/,
  /^types\/[^/]+\.d\.ts$/,
];
const REQUIRED = [
  "package.json",
  "README.md",
  "LICENSE",
  "CHANGELOG.md",
  "binding.gyp",
  "scripts/install.js",
  "lib/index.js",
  "lib/pool.js",
  "lib/host/host.js",
  "lib/native/binding.js",
  "lib/host/node.js",
  "lib/wasm/memory-pass.js",
  "lib/worker/node.js",
  "dist/node-worker.cjs",
  "lib/program/run.js",
  "lib/program/browser/run.js",
  "lib/program/main-worker.js",
  "dist/pool-worker.cjs",
  "lib/program/wasi-node.js",
  "lib/program/cli.js",
  "lib/program/link.js",
  "bin/wasi-thread-pool.js",
  "bin/package.json",
  "dist/cli-main.cjs",
  "lib/program/cli-main.js",
  "lib/wasm/liftoff-pass.js",
  "lib/wasm/code-rewriter-wasm.js",
  "src/node/binding.c",
  "types/index.d.ts",
  "types/pool.d.ts",
  "types/host.d.ts",
];

// The guest: 3 threads, thread i sums 0..(i+1)*1000.
function expectedTotal(threads) {
  let total = 0;
  for (let i = 0; i < threads; i++) {
    const n = (i + 1) * 1000;
    total += (n * (n + 1)) / 2;
  }
  return total | 0;
}

// ---------------------------------------------------------------------------
// npm, run as `node npm-cli.js` so that a PATH without npm still works.

function findNpmCli() {
  const candidates = [
    process.env.npm_execpath,
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js"),
  ];
  const which = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) candidates.push(realpathSync(which.stdout.trim()));
  return candidates.find((p) => p && p.endsWith("npm-cli.js") && existsSync(p)) ?? null;
}

const NPM_CLI = findNpmCli();

// The environment of a child npm: ours, without what an enclosing `npm test`
// set for /work/main (npm_package_*, npm_lifecycle_*, local prefix...), but
// keeping the settings a user may have pointed at a registry or a cache.
const KEEP_NPM_VARS = new Set([
  "npm_config_registry",
  "npm_config_cache",
  "npm_config_userconfig",
  "npm_config_globalconfig",
  "npm_config_proxy",
  "npm_config_https_proxy",
  "npm_config_noproxy",
  "npm_config_strict_ssl",
  "npm_config_cafile",
]);
function baseEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !KEEP_NPM_VARS.has(key.toLowerCase())) continue;
    env[key] = value;
  }
  delete env.WASI_THREAD_POOL_NO_ADDON;
  delete env.WASI_THREAD_POOL_IMPLEMENTATION;
  return env;
}

// PATH = a folder holding only a `node` symlink: no cc, gcc, c++, make,
// python3 (node-gyp finds neither a compiler nor Python). npm runs lifecycle
// scripts with `sh` from PATH, so those installs pass --script-shell=/bin/sh
// (NO_COMPILER_NPM_ARGS).
function noCompilerEnv(binDir) {
  const env = baseEnv();
  for (const key of ["CC", "CXX", "LINK", "MAKE", "PYTHON", "npm_config_python"]) delete env[key];
  env.PATH = binDir;
  return env;
}

const NO_COMPILER_NPM_ARGS = ["--script-shell=/bin/sh"];

function run(command, args, { cwd, env = baseEnv(), timeout = 180_000 } = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout, maxBuffer: 64 << 20 });
  return {
    status: result.status,
    signal: result.signal,
    error: result.error ?? null,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    seconds: (Date.now() - started) / 1000,
  };
}

function npm(args, options) {
  return run(process.execPath, [NPM_CLI, ...args], options);
}

function explain(label, r) {
  return `${label} exited with ${r.status}${r.signal ? ` (${r.signal})` : ""}${r.error ? ` (${r.error.message})` : ""}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

// node:test escapes newlines inside one diagnostic: one line each.
function note(t, text) {
  for (const line of String(text).split("\n")) t.diagnostic(line);
}

function tail(text, lines = 6) {
  return text.trim().split("\n").slice(-lines).join("\n");
}

// ---------------------------------------------------------------------------

describe("the npm package", { timeout: 600_000 }, () => {
  let work; // the temporary root
  let tarball; // the packed tarball
  let noPrebuildTarball; // the same without prebuilds/
  let noCompilerBin; // PATH without a compiler
  let guestWasm; // the tiny wasi-threads guest, or null without wabt
  let offline = false; // registry unreachable: installs use --offline
  let unavailable = null; // why installs cannot run here, or null
  let packed; // npm pack --json's entry

  before(() => {
    work = mkdtempSync(join(tmpdir(), "wtp-package-"));
    if (NPM_CLI === null) {
      unavailable = "npm-cli.js not found next to this node";
      return;
    }
    const ping = npm(["ping", "--fetch-timeout=15000", "--fetch-retries=0"], { cwd: work, timeout: 30_000 });
    if (ping.status !== 0) offline = true;

    noCompilerBin = join(work, "no-compiler-bin");
    mkdirSync(noCompilerBin);
    symlinkSync(process.execPath, join(noCompilerBin, "node"));

    // The tarball, and the same without prebuilds/ for the build and fallback paths.
    const r = npm(["pack", "--json", "--pack-destination", work], { cwd: ROOT, timeout: 60_000 });
    assert.equal(r.status, 0, explain("npm pack", r));
    // (prepack's own output may precede the JSON on some npm versions)
    const json = r.stdout.slice(Math.max(0, r.stdout.search(/^\[\s*$/m)));
    packed = JSON.parse(json)[0];
    tarball = join(work, packed.filename);
    assert.ok(existsSync(tarball));
    const unpacked = join(work, "unpacked");
    mkdirSync(unpacked);
    const x = run("tar", ["-xzf", tarball, "-C", unpacked]);
    assert.equal(x.status, 0, explain("tar -x", x));
    rmSync(join(unpacked, "package", "prebuilds"), { recursive: true, force: true });
    noPrebuildTarball = join(work, "no-prebuild.tgz");
    const c = run("tar", ["-czf", noPrebuildTarball, "-C", unpacked, "package"]);
    assert.equal(c.status, 0, explain("tar -c", c));

    if (existsSync(WABT)) {
      guestWasm = join(work, "guest.wasm");
      const built = run(process.execPath, [join(EXAMPLE, "build-guest.js"), guestWasm], { cwd: EXAMPLE });
      assert.equal(built.status, 0, explain("build-guest.js", built));
    } else {
      guestWasm = null;
    }
  });

  after(() => {
    if (work === undefined) return;
    if (process.env.WTP_PACKAGE_KEEP === "1") console.log(`# kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  });

  // A fresh consumer project with the tarball installed. Returns the npm
  // result (stdout, stderr). allowScripts names the tarball, so npm versions
  // that gate dependency install scripts run ours without a notice.
  function install(t, name, tgz, { env, extraArgs = [], files = {}, packageJson = {} } = {}) {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    const manifest = {
      name: `wtp-consumer-${name}`,
      version: "0.0.0",
      private: true,
      type: "module",
      allowScripts: { [`file:${tgz}`]: true },
      ...packageJson,
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    for (const [file, source] of Object.entries(files)) cpSync(source, join(dir, file));
    const args = [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
      "--foreground-scripts",
      offline ? "--offline" : "--prefer-offline",
      ...extraArgs,
      tgz,
    ];
    const r = npm(args, { cwd: dir, env });
    if (r.status !== 0 && offline) {
      const code = /npm error code (\S+)/.exec(r.stderr)?.[1] ?? `exit ${r.status}`;
      const why = `the npm registry cannot be reached (npm ping failed) and npm install --offline could not take the dependencies from npm's cache (${code})`;
      if (IN_CI) assert.fail(`npm install failed in CI: ${why}`);
      unavailable = why;
      t.skip(why);
      return null;
    }
    assert.equal(r.status, 0, explain(`npm ${args.join(" ")}`, r));
    note(t, `${name}: npm install took ${r.seconds.toFixed(1)} s; output ends:\n${tail(r.stdout + r.stderr, 8)}`);
    return { dir, ...r };
  }

  function smoke(t, dir, env) {
    for (const f of ["package-smoke.js", "package-smoke-worker.js"]) cpSync(join(SUPPORT, f), join(dir, f));
    if (guestWasm) cpSync(guestWasm, join(dir, "guest.wasm"));
    const r = run(process.execPath, ["package-smoke.js"], { cwd: dir, env, timeout: 60_000 });
    assert.equal(r.status, 0, explain("package-smoke.js", r));
    const line = r.stdout.trim().split("\n").pop();
    const result = JSON.parse(line);
    t.diagnostic(`implementation: ${JSON.stringify(result.implementation)}`);
    return result;
  }

  // What every install must give, whichever implementation serves.
  function checkSmoke(t, result, implementation) {
    assert.equal(result.implementation.implementation, implementation, result.implementation.reason);
    assert.equal(result.pool.error, undefined, result.pool.error);
    assert.equal(result.pool.implementation, implementation);
    assert.deepEqual(result.pool.spawned, { tid: 1, slot: 0, reason: null });
    assert.equal(result.pool.waited, "ok");
    assert.deepEqual(result.pool.ran, { tid: 1, startArg: 42 });
    assert.equal(result.pool.report.spawned, 1);
    assert.equal(result.pool.report.workers, 1);
    assert.equal(result.pool.stateAfter, 5, "the retired slot stays RETIRED");

    assert.equal(result.host.error, undefined, result.host.error);
    assert.deepEqual(result.host.surface, {
      createWasiThreadSpawn: "function",
      isWasiThreadsModule: "function",
      resolveBrowserWorkerUrl: "function",
      setBrowserWasiThreadWorkerBase: "function",
      getBrowserWasiThreadWorkerBase: "function",
      WasiThreadWorkerUnreachableError: "function",
      DEFAULT_WASI_THREAD_SPAWN_WAIT_MS: 250,
      rootHasHost: true,
      rootHasPool: true,
    });
    if (guestWasm) {
      const guest = result.host.guest;
      assert.ok(guest, "the guest ran");
      assert.equal(guest.isWasiThreadsModule, true);
      assert.equal(guest.total, expectedTotal(3));
      assert.equal(guest.ranInline, 0, "every guest thread ran on a pool worker");
      assert.equal(new Set(guest.tids).size, 3);
      assert.ok(
        guest.tids.every((tid) => tid > 0),
        `tids ${guest.tids}`,
      );
      assert.equal(guest.report.spawned, 3);
    }
  }

  function ready(t) {
    if (unavailable !== null) {
      if (IN_CI) assert.fail(`cannot install the tarball: ${unavailable}`);
      t.skip(unavailable);
      return false;
    }
    return true;
  }

  it("npm pack holds what a user needs and nothing else", (t) => {
    if (!ready(t)) return;
    note(
      t,
      offline
        ? "npm registry: unreachable, installs use --offline (npm's cache)"
        : "npm registry: reachable, installs use --prefer-offline",
    );
    const files = packed.files.map((f) => f.path).sort();
    note(
      t,
      `${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files:\n` +
        packed.files.map((f) => `  ${String(f.size).padStart(6)}  ${f.path}`).join("\n"),
    );

    const unexpected = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
    assert.deepEqual(unexpected, [], "files a user does not need");
    const missing = REQUIRED.filter((f) => !files.includes(f));
    assert.deepEqual(missing, [], "files a user needs");
    for (const dir of ["test/", "bench/", "guest/", "docs/", "node_modules/", "build/", ".ci/"]) {
      assert.ok(!files.some((f) => f.startsWith(dir)), `${dir} is not packed`);
    }
    if (HAS_PREBUILD)
      assert.ok(
        files.some((f) => f.startsWith(`prebuilds/${PLATFORM}/`)),
        "the prebuild is packed",
      );
    // Every platform's prebuild (scripts/cross-prebuild.js), and no other.
    assert.deepEqual(
      files.filter((f) => f.startsWith("prebuilds/")).sort(),
      ALL_TARGETS.map(prebuildPath).sort(),
      "the tarball holds one prebuild per platform",
    );

    // Every file the manifest points at is in the tarball.
    const targets = [PKG.main, PKG.browser, PKG.types, ...Object.values(PKG.bin ?? {})];
    (function collect(value) {
      if (typeof value === "string") targets.push(value);
      else if (value && typeof value === "object") Object.values(value).forEach(collect);
    })(PKG.exports);
    const dangling = targets
      .filter(Boolean)
      .map((p) => p.replace(/^\.\//, ""))
      .filter((p) => p !== "package.json" && !files.includes(p));
    assert.deepEqual(dangling, [], "package.json names files the tarball does not hold");

    // Every relative import of a packed module resolves inside the tarball.
    const broken = [];
    for (const file of files.filter((f) => /^lib\/.*\.(?:js|mjs)$/.test(f))) {
      const source = readFileSync(join(ROOT, file), "utf8");
      for (const m of source.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = join(dirname(file), m[1]).replace(/\\/g, "/");
        if (!files.includes(target)) broken.push(`${file} -> ${m[1]}`);
      }
    }
    assert.deepEqual(broken, [], "relative imports missing from the tarball");

    // The size budget, all seven prebuilds included.
    assert.ok(packed.size < 1_000_000, `packed size ${packed.size} bytes: the budget is 1 MB`);
  });

  it("(a) a plain install runs on the prebuild; the types check; the SDK switch-over example runs", (t) => {
    if (!ready(t) || !tarball) return;
    const installed = install(t, "a-plain", tarball);
    if (installed === null) return;
    const result = smoke(t, installed.dir);
    const expected = HAS_PREBUILD ? "native" : result.implementation.implementation;
    checkSmoke(t, result, expected);
    if (HAS_PREBUILD) {
      assert.match(result.implementation.reason, new RegExp(`prebuilds/${PLATFORM}/[^/]+\\.node`));
    }

    // The types, as a consumer sees them: through the package name.
    if (existsSync(TSC)) {
      cpSync(join(SUPPORT, "package-consumer.ts"), join(installed.dir, "consumer.ts"));
      writeFileSync(
        join(installed.dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "es2022",
            module: "nodenext",
            moduleResolution: "nodenext",
            lib: ["es2022", "dom"],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
          },
          files: ["consumer.ts"],
        }),
      );
      const tsc = run(process.execPath, [TSC, "--noEmit", "-p", "tsconfig.json"], { cwd: installed.dir, timeout: 120_000 });
      note(t, `tsc --noEmit: exit ${tsc.status} in ${tsc.seconds.toFixed(1)} s ${tsc.stdout.trim()}`);
      assert.equal(tsc.status, 0, explain("tsc --noEmit", tsc));
    } else {
      t.diagnostic("typescript is not installed in the repository: type check skipped");
    }
  });

  it("(a') the SDK switch-over example runs its guest against the tarball", (t) => {
    if (!ready(t) || !tarball) return;
    // A copy of docs/examples/sdk-switch whose dependency is the tarball.
    const dir = join(work, "a-sdk-switch");
    cpSync(EXAMPLE, dir, {
      recursive: true,
      filter: (src) => !/[/\\](node_modules|guest\.wasm|package-lock\.json)$/.test(src),
    });
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    assert.deepEqual(manifest.imports, {
      "#sdk/host/wasiThreadHost.js": "wasi-thread-pool/host",
      "#sdk/host/wasiThreadPool.js": "wasi-thread-pool/pool",
    });
    manifest.dependencies["wasi-thread-pool"] = `file:${tarball}`;
    manifest.allowScripts = { [`file:${tarball}`]: true };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    const args = ["install", "--no-audit", "--no-fund", "--no-update-notifier", offline ? "--offline" : "--prefer-offline"];
    const r = npm(args, { cwd: dir });
    if (r.status !== 0 && offline) {
      if (IN_CI) assert.fail(`npm install of the example failed offline in CI:\n${tail(r.stderr, 10)}`);
      t.skip("registry unreachable and wabt not in npm's cache");
      return;
    }
    assert.equal(r.status, 0, explain("npm install (example)", r));
    const built = run(process.execPath, ["build-guest.js"], { cwd: dir });
    assert.equal(built.status, 0, explain("node build-guest.js", built));
    const ran = run(process.execPath, ["main.js", "4"], { cwd: dir, timeout: 60_000 });
    assert.equal(ran.status, 0, explain("node main.js 4", ran));
    const result = JSON.parse(ran.stdout.trim().split("\n").pop());
    note(t, `example: ${JSON.stringify(result)}`);
    if (ran.stderr.trim()) note(t, `example stderr: ${ran.stderr.trim()}`);
    // The example compiles through the package's Liftoff guard, so the host
    // has nothing to warn about.
    assert.doesNotMatch(ran.stderr, /WASI_THREAD_LIFTOFF/);
    if (HAS_PREBUILD) assert.equal(result.implementation, "native");
    assert.equal(result.total, expectedTotal(4));
    assert.equal(result.total, result.expected);
    assert.equal(result.ranInline, 0, "every guest thread ran on a pool worker");
    assert.equal(new Set(result.tids).size, 4);
    assert.equal(result.spawned, 4);
    assert.equal(result.report.declined, 0);
    assert.deepEqual(result.constants, { spawnWaitMs: 250, retired: 5 });
  });

  it("(b) with no C compiler on PATH the prebuild loads", { skip: !HAS_PREBUILD && `no prebuild for ${PLATFORM}` }, (t) => {
    if (!ready(t) || !tarball) return;
    const env = noCompilerEnv(noCompilerBin);
    for (const tool of ["cc", "gcc", "c++", "g++", "make", "python3", "python"]) {
      assert.ok(!existsSync(join(noCompilerBin, tool)), `${tool} is not on PATH`);
    }
    const installed = install(t, "b-no-compiler", tarball, { env, extraArgs: NO_COMPILER_NPM_ARGS });
    if (installed === null) return;
    assert.ok(!existsSync(join(installed.dir, "node_modules", "wasi-thread-pool", "build")), "nothing was built");
    const result = smoke(t, installed.dir, env);
    checkSmoke(t, result, "native");
    assert.match(result.implementation.reason, new RegExp(`prebuilds/${PLATFORM}/[^/]+\\.node`));
  });

  it("(c) without a prebuild or a compiler the install succeeds, warns, and the JS twin runs", (t) => {
    if (!ready(t) || !noPrebuildTarball) return;
    const env = noCompilerEnv(noCompilerBin);
    const installed = install(t, "c-no-prebuild-no-compiler", noPrebuildTarball, { env, extraArgs: NO_COMPILER_NPM_ARGS });
    if (installed === null) return;
    assert.match(
      installed.stdout + installed.stderr,
      /wasi-thread-pool: could not build the native addon \(node-gyp exited with \d+\); the pure-JavaScript pool will be used/,
    );
    const result = smoke(t, installed.dir, env);
    checkSmoke(t, result, "js");
    assert.equal(result.implementation.native.available, false);
    // The loader names this platform, the prebuilds present (none) and why.
    assert.match(
      result.implementation.reason,
      /^the native addon did not load: no prebuild for \S+ (?:\(\w+\) )?\(the package has prebuilds for: none\) and no local build \(build\/Release\).*No native build was found/,
    );
    assert.match(installed.stdout + installed.stderr, /wasi-thread-pool: before the build: no prebuild for /);
  });

  it("(d) without a prebuild, with a compiler, the install builds the addon from source offline", (t) => {
    if (!ready(t) || !noPrebuildTarball) return;
    const installed = install(t, "d-build-from-source", noPrebuildTarball);
    if (installed === null) return;
    const output = installed.stdout + installed.stderr;
    if (/could not build the native addon/.test(output)) {
      // No toolchain or headers here: the fallback is the documented outcome.
      assert.ok(!IN_CI, `CI must be able to build the addon:\n${tail(output, 30)}`);
      t.skip("this machine cannot build the addon (no toolchain)");
      return;
    }
    assert.ok(!/gyp http GET|gyp info download/i.test(output), "node-gyp did not download headers");
    const addon = join(installed.dir, "node_modules", "wasi-thread-pool", "build", "Release", "wasi_thread_pool.node");
    assert.ok(existsSync(addon), "build/Release/wasi_thread_pool.node exists");
    const result = smoke(t, installed.dir);
    checkSmoke(t, result, "native");
    assert.match(result.implementation.reason, /build\/Release\/wasi_thread_pool\.node$/);

    // The committed linux-x64 glibc prebuild is not this build: it is made
    // with zig cc against glibc 2.17's symbols (a gcc build here binds
    // dlopen to GLIBC_2.34), and test/prebuilds.test.js checks that it is a
    // fresh build of src/, byte for byte.
  });

  it(
    "(e) with install scripts disabled the prebuild still serves",
    { skip: !HAS_PREBUILD && `no prebuild for ${PLATFORM}` },
    (t) => {
      if (!ready(t) || !tarball) return;
      const installed = install(t, "e-ignore-scripts", tarball, { extraArgs: ["--ignore-scripts"] });
      if (installed === null) return;
      const result = smoke(t, installed.dir);
      checkSmoke(t, result, "native");
    },
  );
});
