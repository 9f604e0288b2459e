// What the figures were taken on.

import { readFileSync } from "node:fs";
import os from "node:os";
import { execFileSync } from "node:child_process";

export function machineInfo(repoDir) {
  let cpuModel = os.cpus()[0]?.model ?? "unknown";
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const m = /^model name\s*:\s*(.+)$/m.exec(info);
    if (m) cpuModel = m[1].trim();
  } catch {}
  let commit = null;
  let dirty = null;
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoDir, encoding: "utf8" }).trim();
    dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "lib"], { cwd: repoDir, encoding: "utf8" }).trim() !== "";
  } catch {}
  return {
    cpuModel,
    cores: os.cpus().length,
    availableParallelism: os.availableParallelism?.() ?? os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100),
    commit,
    srcOrLibModified: dirty,
  };
}
