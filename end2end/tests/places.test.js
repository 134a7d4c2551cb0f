// A place that costs a proof of work: the page says "Getting your place…" while the browser
// makes it in WebAssembly, then shows the place; and what the proof cost this browser.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

const BITS = 20;

test('the browser proves its work to join and the page shows the place', async () => {
  const event = await admin('POST', '/api/admin/events', {
    name: 'Proof Night',
    starts_at: '2026-12-24T19:00:00Z',
    sections: [{ name: 'Stalls', rows: 2, seats_per_row: 10, price_cents: 8500 }],
    room: { admit_rate_per_second: 1, paused: true, join_pow_bits: BITS },
  });
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    let proof = null;
    page.on('request', (request) => {
      const header = request.headers()['join-proof'];
      if (header) proof = header;
    });
    const started = Date.now();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.getByText('Getting your place…').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/getting-your-place.png`, fullPage: true });
    await page.locator('.place').waitFor({ timeout: 120_000 });
    const seconds = (Date.now() - started) / 1000;
    assert.match(await page.locator('.place').innerText(), /#1/);
    assert.ok(proof, 'the join carried a Join-Proof header');
    // The search tries nonces 0, 1, 2...: the proof's nonce is the hashes it took, less one.
    const hashes = Number(proof.slice(proof.indexOf(':') + 1)) + 1;
    const figure = { bits: BITS, hashes, seconds_to_place: seconds, hashes_per_second: hashes / seconds };
    console.log(`proof of work in Chromium: ${JSON.stringify(figure)}`);
    writeFileSync(`${ARTIFACTS}/proof-of-work.json`, JSON.stringify(figure));
    await page.screenshot({ path: `${ARTIFACTS}/place-after-proof.png`, fullPage: true });
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await browser.close();
  }
});
