// The C files' formatting (.clang-format): `node scripts/format-c.js --check`
// (run by npm test) fails, listing the files, if clang-format would change any
// C file of src/, test/c, test/fuzz, test/wasi-c, bench/c, bench/guest,
// test/wasi-programs (the WASI behaviour programs) or guest/spawn (the C
// pthreads guest); without --check it formats
// them in place. CLANG_FORMAT names another binary (default: clang-format on
// PATH; the style is written for clang-format 14).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const check = process.argv.includes("--check");
const binary = process.env.CLANG_FORMAT || "clang-format";

const listed = spawnSync(
  "git",
  [
    "ls-files",
    "--cached",
    "--others",
    "--exclude-standard",
    "--",
    "src",
    "test/c",
    "test/fuzz",
    "test/wasi-c",
    "bench/c",
    "bench/guest",
    "test/wasi-programs",
    "guest/spawn",
  ],
  { cwd: root, encoding: "utf8" },
);
if (listed.status !== 0) {
  console.error(`format-c: git ls-files failed: ${listed.stderr}`);
  process.exit(2);
}
const files = listed.stdout.split("\n").filter((f) => /\.(c|h)$/.test(f));

const version = spawnSync(binary, ["--version"], { encoding: "utf8" });
if (version.error || version.status !== 0) {
  console.error(`format-c: ${binary} not found (Debian: apt-get install clang-format; or set CLANG_FORMAT)`);
  process.exit(2);
}
if (!/version 14\./.test(version.stdout)) {
  console.warn(`format-c: ${version.stdout.trim()}: the style is checked with clang-format 14`);
}

const args = check ? ["--dry-run", "--Werror", ...files] : ["-i", ...files];
const result = spawnSync(binary, args, { cwd: root, encoding: "utf8" });
if (result.status !== 0) {
  const named = [...new Set(result.stderr.match(/^[^\s:]+\.(c|h)(?=:\d+:\d+:)/gm) || [])];
  process.stderr.write(result.stderr.split("\n").slice(0, 40).join("\n") + "\n");
  console.error(`format-c: ${named.length || "some"} file(s) not formatted: ${named.join(", ")}`);
  console.error("format-c: run `node scripts/format-c.js` to format them");
  process.exit(1);
}
console.log(`format-c: ${files.length} C files ${check ? "formatted as .clang-format says" : "formatted"}`);
