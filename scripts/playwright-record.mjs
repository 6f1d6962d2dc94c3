// Records the incident as Playwright traces: two browser contexts of one
// test (a run and its retry) each choose the same file in a page's file
// input and press its Send button. The first cannot confirm (the page never
// shows that the item was sent); the second sends the same file again.
// gate/playwright_record_test.go serves the page and runs this.
//
//   node scripts/playwright-record.mjs URL FILE OUTDIR
//
// EFFECTLINT_PLAYWRIGHT is a folder with node_modules/playwright-core;
// CHROMIUM the browser (default /usr/bin/chromium). Writes OUTDIR/run-1.zip
// and OUTDIR/run-2.zip.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [url, file, out] = process.argv.slice(2);
if (!url || !file || !out) {
  console.error('usage: playwright-record.mjs URL FILE OUTDIR');
  process.exit(2);
}
const root = process.env.EFFECTLINT_PLAYWRIGHT;
if (!root) {
  console.error('EFFECTLINT_PLAYWRIGHT is not set');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(root), 'node_modules', 'index.js'));
const { chromium } = require('playwright-core');

// Each run is a browser of its own with an empty user-data-dir, as a
// retried test gets: its persistent context is the run's browser context.
for (const run of [1, 2]) {
  const profile = mkdtempSync(path.join(tmpdir(), 'effectlint-pw-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    await context.tracing.start({ title: 'upload report', snapshots: true, screenshots: false });
    const page = await context.newPage();
    await page.goto(url);
    await page.setInputFiles('#file', file);
    await page.getByRole('button', { name: 'Send' }).click();
    try {
      // The readback: the outgoing item shown as sent.
      await page.waitForSelector('text=Sent', { timeout: 2000 });
    } catch (e) {
      console.error(`run ${run}: ${e.message.split('\n')[0]}`);
    }
    await context.tracing.stop({ path: path.join(out, `run-${run}.zip`) });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
