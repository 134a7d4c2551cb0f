// What a first visit to the waiting room costs on the wire: the built files come precompressed,
// named by their content hash and cached for a year; the page itself is compressed and kept by
// nobody but the buyer. The byte counts land in artifacts/wire.json.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { BASE, ARTIFACTS, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

test('built files are hashed, precompressed and immutable; the page is compressed and no-store', async () => {
  const html = await (await fetch(`${BASE}/events/demo`)).text();
  const files = [...html.matchAll(/href="(\/pkg\/[^"]+)"/g)].map((m) => m[1]);
  const wasm = files.find((f) => f.endsWith('.wasm'));
  const js = files.find((f) => f.endsWith('.js'));
  const css = files.find((f) => f.endsWith('.css'));
  for (const file of [wasm, js, css]) {
    assert.ok(file, `the page links its built files: ${files}`);
    assert.match(file, /\.[A-Za-z0-9_-]{16,}[._]/, `a content hash in ${file}`);
    const r = await fetch(`${BASE}${file}`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(r.status, 200, file);
    assert.equal(r.headers.get('content-encoding'), 'br', file);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable', file);
  }
  const gz = await fetch(`${BASE}${wasm}`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');

  const page = await fetch(`${BASE}/events/demo`, { headers: { 'accept-encoding': 'br' } });
  assert.equal(page.headers.get('content-encoding'), 'br');
  assert.equal(page.headers.get('cache-control'), 'no-store');
});

test('a first visit to the waiting room, as the browser received it', async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    const received = [];
    // Each finished request is read in its own promise; they are all awaited before counting, and
    // one that the page's closing cuts short (a poll in flight) is left out rather than thrown
    // after the test.
    const reading = [];
    page.on('requestfinished', (request) => {
      reading.push((async () => {
        const sizes = await request.sizes();
        const response = await request.response();
        received.push({
          url: request.url().replace(BASE, ''),
          encoding: response ? await response.headerValue('content-encoding') : null,
          bytes: sizes.responseBodySize + sizes.responseHeadersSize,
        });
      })().catch(() => {}));
    });
    await page.goto(`${BASE}/events/demo`);
    await page.waitForSelector('body[data-hydrated="true"]', { timeout: 20_000 });
    await page.locator('.place, [data-seat-id], .countdown').first().waitFor({ timeout: 20_000 });
    await Promise.all(reading);
    const total = received.reduce((sum, r) => sum + r.bytes, 0);
    writeFileSync(`${ARTIFACTS}/wire.json`, JSON.stringify({ total_bytes: total, received }, null, 2));
    console.log(`first visit to the waiting room: ${total} bytes on the wire in ${received.length} requests`);
    const wasm = received.find((r) => r.url.endsWith('.wasm'));
    assert.ok(wasm, JSON.stringify(received));
    assert.equal(wasm.encoding, 'br');
  } finally {
    await browser.close();
  }
});
