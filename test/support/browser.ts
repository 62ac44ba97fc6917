// A real headless Chromium (playwright-core driving @sparticuz/chromium's build) for tests of server-rendered pages.
// Same-origin rules stay on (chromium.args turns web security off, which would also disable the policies under test),
// the browser runs its usual processes (in chromium.args' single process, closing one context ends the whole browser),
// and nothing connects outside in the background.
import chromium from '@sparticuz/chromium';
import { type Browser, chromium as playwright } from 'playwright-core';
import { afterAll } from 'vitest';

/** A browser for one test file, closed after its tests. */
export async function fileBrowser(): Promise<Browser> {
  const browser = await playwright.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    args: [
      ...chromium.args.filter((arg) => arg !== '--disable-web-security' && arg !== '--single-process'),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  afterAll(() => browser.close());
  return browser;
}
