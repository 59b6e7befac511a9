import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * A real Chromium for browser tests and benchmarks: Debian's package
 * (scripts/install-system-deps.sh installs it), driven by playwright-core,
 * which downloads no browser of its own. CHROMIUM_PATH points elsewhere.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run scripts/install-system-deps.sh (Debian package chromium) or set CHROMIUM_PATH`);
  }
  // --no-sandbox: the tests run as root on CI, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export const SCREENSHOT_DIR = path.resolve(__dirname, '..', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it is (WCAG 2.1 A and AA rules) and returns the
 * serious and critical violations. The script is evaluated through the
 * DevTools protocol, which the page's CSP does not govern, so the console's
 * policy stays as strict as it is in production.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${axe.source};0`);
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  const result = await page.evaluate<AxeViolation[]>(`(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)) }));
  })()`);
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
