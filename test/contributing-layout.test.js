// CONTRIBUTING.md's "Repository layout" table matches the tree: every folder at
// the top of the repository is a row, every room of lib/ and src/ is a row and
// every file at lib/'s top is named by a row
// (a `*` in a row's name stands for any part of a file name), and every path
// a row names exists.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const contributing = readFileSync(new URL("../CONTRIBUTING.md", import.meta.url), "utf8");
const section = contributing.slice(
  contributing.indexOf("## Repository layout"),
  contributing.indexOf("\n## ", contributing.indexOf("## Repository layout") + 1),
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
  for (const folder of folders) assert.ok(named.includes(folder), `CONTRIBUTING.md's layout table lacks ${folder}`);
});

// lib/ and src/ are rooms: every folder in them is a row of its own, and
// every file at lib/'s top (the entry points) is named by a row.
for (const top of ["lib", "src"]) {
  it(`every room of ${top}/ is a row, and every file at its top is named`, () => {
    const patterns = named.filter((name) => name.startsWith(`${top}/`) && name !== `${top}/`).map(asPattern);
    for (const entry of readdirSync(new URL(`../${top}/`, import.meta.url), { withFileTypes: true })) {
      const path = entry.isDirectory() ? `${top}/${entry.name}/` : `${top}/${entry.name}`;
      assert.ok(
        entry.isDirectory() ? named.includes(path) : patterns.some((pattern) => pattern.test(path)),
        `CONTRIBUTING.md's layout table does not name ${path}`,
      );
    }
  });
}

it("every path a row names exists", () => {
  for (const name of named.filter((n) => !n.includes("*"))) {
    assert.ok(
      existsSync(new URL(`../${name}`, import.meta.url)),
      `CONTRIBUTING.md's layout table names ${name}, which is not in the tree`,
    );
  }
  for (const name of named.filter((n) => n.includes("*"))) {
    const dir = name.slice(0, name.lastIndexOf("/") + 1);
    const pattern = asPattern(name);
    assert.ok(
      readdirSync(new URL(`../${dir}`, import.meta.url)).some((file) => pattern.test(`${dir}${file}`)),
      `CONTRIBUTING.md's layout table names ${name}, which matches no file`,
    );
  }
});
