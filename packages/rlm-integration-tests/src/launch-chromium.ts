import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium, installed by `.ci/run`. */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Starts headless Chromium with a fresh profile and no background network. Disposing closes
 * the browser and removes the profile.
 */
export async function launchChromium(): Promise<BrowserContext & AsyncDisposable> {
  const profile = await mkdtemp(path.join(tmpdir(), 'rlm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return Object.assign(context, {
    async [Symbol.asyncDispose]() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  });
}
