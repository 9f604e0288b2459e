// The README's "Repository layout" table matches the tree: every folder at
// the top of the repository is a row, every file of lib/ is named by a row
// (a `*` in a row's name stands for any part of a file name), and every path
// a row names exists.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const section = readme.slice(
  readme.indexOf("## Repository layout"),
  readme.indexOf("\n## ", readme.indexOf("## Repository layout") + 1),
);
// The first cell of each row: its backticked names.
const named = section
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .flatMap((line) => [...line.split(" | ")[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]));

const asPattern = (name) => new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*")}$`);

it("every top-level folder of the repository is a row", () => {
  const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n");
  const folders = new Set(
    tracked.filter((path) => path.includes("/") && !path.startsWith(".")).map((path) => `${path.split("/")[0]}/`),
  );
  for (const folder of folders) assert.ok(named.includes(folder), `README's layout table lacks ${folder}`);
});

it("every file of lib/ is named by a row", () => {
  const patterns = named.filter((name) => name.startsWith("lib/") && name !== "lib/").map(asPattern);
  for (const file of readdirSync(new URL("../lib/", import.meta.url))) {
    assert.ok(
      patterns.some((pattern) => pattern.test(`lib/${file}`)),
      `README's layout table does not name lib/${file}`,
    );
  }
});

it("every path a row names exists", () => {
  for (const name of named.filter((n) => !n.includes("*"))) {
    assert.ok(
      existsSync(new URL(`../${name}`, import.meta.url)),
      `README's layout table names ${name}, which is not in the tree`,
    );
  }
  for (const name of named.filter((n) => n.includes("*"))) {
    const dir = name.slice(0, name.lastIndexOf("/") + 1);
    const pattern = asPattern(name);
    assert.ok(
      readdirSync(new URL(`../${dir}`, import.meta.url)).some((file) => pattern.test(`${dir}${file}`)),
      `README's layout table names ${name}, which matches no file`,
    );
  }
});
