// The program rows once more on the current LTS: every scenario marked
// `otherNode: true` (the runner's, the program costs', the WASI programs' and
// the shutdown rows) gets a copy right after it that runs its child process
// with the official Node binary scripts/node-versions.sh pins for OTHER_MAJOR
// (fetched by its --setup into a cache; the bench downloads nothing). Both
// rows carry their Node version in the title; the copy's id is the
// original's with `@node<major>`, so the targets (read by id) stay the
// machine's Node's. Where the binary is missing the copy is a skipped row
// that says so.

import { execFileSync } from "node:child_process";

export const OTHER_MAJOR = "24";

// {path, version} of the pinned binary, or {missing: why}.
function otherNode(repoDir) {
  try {
    const path = execFileSync("bash", ["scripts/node-versions.sh", "--path", OTHER_MAJOR], {
      cwd: repoDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
    const version = execFileSync(path, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    return { path, version };
  } catch (error) {
    const why = String(error.stdout || error.stderr || error.message).trim();
    return {
      missing: `no Node ${OTHER_MAJOR} binary: ${why || "scripts/node-versions.sh failed (bash scripts/node-versions.sh --setup)"}`,
    };
  }
}

// The plan with the copies inserted. A copy has `nodeBinary` (the path) or
// `nodeMissing` (why it skips); bench/run.js runs its child with that binary.
export function withOtherNode(plan, { repoDir }) {
  if (!plan.some((s) => s.otherNode)) return plan;
  const other = otherNode(repoDir);
  const label = (version) => ` [Node ${version}]`;
  const out = [];
  for (const scenario of plan) {
    if (!scenario.otherNode) {
      out.push(scenario);
      continue;
    }
    out.push({ ...scenario, title: scenario.title + label(process.versions.node) });
    out.push({
      ...scenario,
      id: `${scenario.id}@node${OTHER_MAJOR}`,
      title: scenario.title + label(other.version ?? `${OTHER_MAJOR} (missing)`),
      nodeBinary: other.path,
      nodeMissing: other.missing,
    });
  }
  return out;
}
