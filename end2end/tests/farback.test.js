// A buyer far from the front (app::presence): between asks for its place the page reads the
// line's public progress (no session, cacheable), shows "about" its position, refreshes on the
// line's schedule (the interval shown), and asks for its place within the window the last
// answer gave; without JavaScript the meta refresh follows the same schedule.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** A new buyer's session token and their join's answer. */
async function joiner(eventId) {
  const session = await (await fetch(`${BASE}/api/session`, { method: 'POST' })).json();
  const r = await fetch(`${BASE}/api/events/${eventId}/queue`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}` },
  });
  return r.json();
}

test('far back, the page follows the progress between asks and says about where it is', async () => {
  // Paused: nobody is admitted, so the place stays far back for the whole test.
  const event = await admin('POST', '/api/admin/events', {
    name: 'Far Back Night',
    starts_at: '2026-12-24T19:00:00Z',
    sections: [{ name: 'Stalls', rows: 2, seats_per_row: 10, price_cents: 8500 }],
    room: { admit_rate_per_second: 2, paused: true },
  });
  // 201 places ahead at 2 a second: the turn is 100 s away, so the page refreshes every 5 s
  // (a twentieth), and its presence window is 60 s (the floor; half the wait is less), within
  // half of which (30 s) it asks for its place. Place 202 lies between the progress's
  // samples (every place of the first 201, then every other, and the last): "about" once
  // others are behind it.
  for (let i = 0; i < 200; i += 50) {
    await Promise.all(Array.from({ length: 50 }, () => joiner(event.id)));
  }
  await joiner(event.id);
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    const asks = [];
    const reads = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/api/events/${event.id}/queue`) asks.push({ at: Date.now(), method: request.method() });
      if (url.pathname === `/api/events/${event.id}/progress`) {
        reads.push({ at: Date.now(), authorization: request.headers().authorization ?? null });
      }
    });
    const loaded = Date.now();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('.place').waitFor();
    assert.match(await page.locator('.place').innerText(), /#202/);
    // Others join behind: the line's last place is always sampled, place 202 now is not.
    await Promise.all(Array.from({ length: 50 }, () => joiner(event.id)));
    assert.match(await page.locator('.waiting').innerText(), /every 5 seconds/);
    // The server's rendering gives a browser without JavaScript the same schedule (the
    // hydrated page's <noscript> is empty: read the server's HTML).
    const html = await (await page.request.get(`${BASE}/events/${event.id}`)).text();
    assert.match(html, /content="5; url=\/events\//);
    // The first refresh reads the progress, not the place.
    try {
      await page.waitForFunction(() => /about/.test(document.querySelector('.place')?.textContent ?? ''), null, { timeout: 15_000 });
    } catch (e) {
      const place = await page.locator('.place').innerText();
      throw new Error(`no "about" after 15 s: ${place}; asks ${JSON.stringify(asks)}, reads ${JSON.stringify(reads)}, console ${JSON.stringify(browser.consoleErrors)}`);
    }
    assert.deepEqual(asks.filter((a) => a.method === 'GET'), [], 'no ask before the window asks for one');
    assert.ok(reads.length >= 1, 'the page read the progress');
    assert.ok(reads.every((r) => r.authorization === null), 'the progress is read without a session');
    assert.match(await page.locator('.place').innerText(), /about #202/);
    await page.screenshot({ path: `${ARTIFACTS}/far-back.png`, fullPage: true });
    // Then, within half its window (30 s after the join's answer), it asks for its place.
    await page.waitForResponse((r) => new URL(r.url()).pathname === `/api/events/${event.id}/queue` && r.request().method() === 'GET', { timeout: 40_000 });
    const askedAfter = (Date.now() - loaded) / 1000;
    assert.ok(askedAfter >= 25 && askedAfter <= 40, `asked after ${askedAfter} s`);
    assert.equal(reads.length, 5, 'five refreshes from the progress (at 5, 10, ... 25 s), then the ask');
    await page.waitForFunction(() => !/about/.test(document.querySelector('.place')?.textContent ?? ''));
    await page.screenshot({ path: `${ARTIFACTS}/far-back-asked.png`, fullPage: true });
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await browser.close();
  }
});
