import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's headless Chromium (`apt-get install chromium-headless-shell`, which `.ci/run` does)
 * driven by playwright-core, which downloads no browser of its own. `CHROMIUM_PATH` names another
 * binary. undefined when none is installed: the caller skips, saying so.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM_PATH)) return undefined;
  // --no-sandbox: tests run as root in CI, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
}
