// Every entry point's run-time exports against its declarations: for each
// entry of package.json's "exports" (the Node file, and the browser file
// where it is another), every name the module exports is declared as a value
// in the entry's .d.ts (read with the TypeScript compiler's checker, `export *`
// and re-exports followed) and named in the user docs, and every value the
// .d.ts declares exists at run time. An entry without declarations (a worker
// script) exports nothing.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = new URL("../", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const DOCS = ["README.md", "docs/api.md", "docs/runtime.md"].map((doc) => readFileSync(new URL(doc, root), "utf8")).join("\n");

// One program over every entry's declarations, without the standard
// library: the export names need no types (the declarations' own check is
// the tsc consumer's, types/test), and lib.dom alone costs seconds to parse.
const typesFiles = [...new Set(Object.values(pkg.exports).flatMap((t) => (typeof t === "object" && t.types ? [t.types] : [])))];
let checked = null;
function typesProgram() {
  if (checked === null) {
    const files = typesFiles.map((path) => fileURLToPath(new URL(path, root)));
    const program = ts.createProgram(files, { noLib: true, noEmit: true, types: [] });
    checked = { program, checker: program.getTypeChecker() };
  }
  return checked;
}

// The value names (functions, constants, classes) a declaration file exports.
function declaredValues(typesPath) {
  const { program, checker } = typesProgram();
  const source = program.getSourceFile(fileURLToPath(new URL(typesPath, root)));
  const errors = program.getSyntacticDiagnostics(source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(errors, [], `${typesPath} does not parse`);
  const resolve = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  return checker
    .getExportsOfModule(checker.getSymbolAtLocation(source))
    .filter((symbol) => resolve(symbol).flags & ts.SymbolFlags.Value)
    .map((symbol) => symbol.name)
    .sort();
}

const documented = (name) => new RegExp(`\`${name}(?![\\w$])`).test(DOCS);

// [entry, condition, file, types] for every JS file an entry resolves to.
const targets = Object.entries(pkg.exports)
  .filter(([entry]) => entry !== "./package.json")
  .flatMap(([entry, target]) => {
    const conditions = typeof target === "string" ? { default: target } : target;
    const files = [["default", conditions.default]];
    if (conditions.browser && conditions.browser !== conditions.default) files.push(["browser", conditions.browser]);
    return files.map(([condition, file]) => ({ entry, condition, file, types: conditions.types ?? null }));
  });

describe("each entry's run-time exports are its declared ones", () => {
  for (const { entry, condition, file, types } of targets) {
    test(`${entry} (${condition}: ${file})`, async (t) => {
      const url = new URL(file, root);
      if (!existsSync(url)) return t.skip(`${file} is not built here`);
      const exported = Object.keys(await import(url.href)).sort();
      if (types === null) {
        assert.deepEqual(exported, [], `${file} has no declarations, so it exports nothing`);
        return;
      }
      const declared = declaredValues(types);
      assert.deepEqual(
        exported.filter((name) => !declared.includes(name)),
        [],
        `exported by ${file} but not declared in ${types}`,
      );
      assert.deepEqual(
        declared.filter((name) => !exported.includes(name)),
        [],
        `declared in ${types} but not exported by ${file}`,
      );
      assert.deepEqual(
        exported.filter((name) => !documented(name)),
        [],
        `exported by ${file} but named in no user doc`,
      );
    });
  }
});
