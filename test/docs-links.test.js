// The documentation is reachable from the installed package, whose tarball
// has no docs/: package.json names the repository that lib/program/docs.js
// links; every page and anchor the messages and --help link (docsLink) exists;
// no message names a docs/ path, which an installed package does not have;
// and every relative link of the README and docs/*.md reaches a file, and a
// heading where it names one.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DOCS_URL, REPOSITORY_URL, docsLink } from "../lib/program/docs.js";
import { HELP } from "../lib/program/cli.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

// GitHub's anchor of a heading: lower case, no punctuation but '-' and '_',
// spaces to '-'.
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replaceAll(" ", "-");
const anchorsOf = (file) =>
  new Set(
    readFileSync(file, "utf8")
      .replace(/^```[\s\S]*?^```/gm, "")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ""))),
  );

// Every source file of lib/, recursively.
function libFiles(dir = join(ROOT, "lib")) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? libFiles(join(dir, e.name)) : e.name.endsWith(".js") || e.name.endsWith(".mjs") ? [join(dir, e.name)] : [],
  );
}

describe("the installed package points to its documentation", () => {
  test("package.json's repository, homepage and bugs are the repository the links name", () => {
    assert.equal(pkg.repository?.url, `git+${REPOSITORY_URL}.git`);
    assert.equal(pkg.homepage, `${REPOSITORY_URL}#readme`);
    assert.equal(pkg.bugs?.url, `${REPOSITORY_URL}/issues`);
    assert.ok(HELP.includes(DOCS_URL), "--help names the documentation");
  });

  test("every docsLink in lib/ names a page and heading of docs/", () => {
    const calls = libFiles().flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/docsLink\("([^"]+)"(?:, "([^"]+)")?\)/g)].map((m) => ({
        file,
        page: m[1],
        anchor: m[2],
      })),
    );
    assert.ok(calls.length >= 4, `${calls.length} links found`);
    for (const { file, page, anchor } of calls) {
      const path = join(ROOT, "docs", page);
      assert.ok(existsSync(path), `${file}: docs/${page} does not exist`);
      if (anchor) assert.ok(anchorsOf(path).has(anchor), `${file}: docs/${page} has no heading #${anchor}`);
    }
    assert.equal(docsLink("cli.md", "exit-status"), `${REPOSITORY_URL}/blob/main/docs/cli.md#exit-status`);
  });

  test("no string of lib/ names a docs/ path", () => {
    for (const file of libFiles()) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        assert.doesNotMatch(line, /["'`][^"'`]*\bdocs\/[\w-]+\.md/, `${file}:${i + 1} names a docs/ path: use docsLink`);
      });
    }
  });
});

describe("the docs' relative links reach a file and a heading", () => {
  for (const doc of DOCS) {
    test(doc, () => {
      const text = readFileSync(join(ROOT, doc), "utf8").replace(/^```[\s\S]*?^```/gm, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#");
        const file = path === "" ? join(ROOT, doc) : normalize(join(ROOT, dirname(doc), path));
        assert.ok(existsSync(file), `${doc}: ${target}: no such file`);
        if (anchor) assert.ok(anchorsOf(file).has(anchor), `${doc}: ${target}: no such heading`);
      }
    });
  }
});
