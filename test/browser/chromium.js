// Headless Chromium on the wave server's page (test/browser/server.js), for
// the suites that drive it: Debian's chromium at /usr/bin/chromium
// (CHROMIUM_PATH overrides), with the flags this machine's closed network
// needs (no background connections, no component updates).

import { existsSync } from "node:fs";
import { startWaveServer } from "./server.js";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// {server, browser, page, consoleLines} once the page says waveReady, or
// throws why not (the server and the browser closed again).
export async function openWavePage() {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (apt-get install -y chromium)`);
  const { chromium } = await import("playwright-core");
  const server = await startWaveServer();
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const consoleLines = [];
    page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error?.stack ?? error}`));
    await page.goto(`${server.origin}/`);
    await page.waitForFunction(() => globalThis.waveReady === true, null, { timeout: 15000 });
    return { server, browser, page, consoleLines };
  } catch (error) {
    await browser?.close().catch(() => {});
    await server.close();
    throw error;
  }
}
