// Debian's chromium driven by playwright-core, for the browser tests (its own browser download cannot work
// here). playwright-core refuses --user-data-dir in launch(): it gives every launch a fresh temporary profile.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Throws, saying what to install, when Debian's chromium is missing. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium), as .ci/run does`);
}

/**
 * Chromium as playwright-core drives it: `navigator.webdriver` is true. `automation: false` launches it as a
 * person's browser would report itself (Blink's AutomationControlled feature off: `navigator.webdriver` false).
 */
export function launchChromium(options: { automation?: boolean } = {}): Promise<Browser> {
  const args = options.automation === false ? [...CHROMIUM_ARGS, '--disable-blink-features=AutomationControlled'] : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: CHROMIUM, args });
}
