// The buyer's night in the browser: waiting room, seat map, hold, pay, confirmation.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** A fresh event with a fast room (100 ms ticks); `room` overrides. */
async function fastEvent(name, room) {
  return admin('POST', '/api/admin/events', {
    name,
    starts_at: '2026-12-24T19:00:00Z',
    sections: [
      { name: 'Stalls', rows: 3, seats_per_row: 10, price_cents: 8500 },
      { name: 'Circle', rows: 2, seats_per_row: 8, price_cents: 4500 },
    ],
    room: { admit_rate_per_second: 50, tick_ms: 100, ...room },
  });
}

const setRoom = (id, room) => admin('PUT', `/api/admin/events/${id}/room`, room);

test('the whole night for one buyer, and the next buyer sees the seats sold', async () => {
  const event = await fastEvent('Whole Night', { paused: true });
  const first = await openBrowser();
  const next = await openBrowser();
  try {
    const page = await first.context.newPage();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('.place').waitFor();
    assert.match(await page.locator('.place').innerText(), /#1/);
    const paint = await page.evaluate(() => ({
      first_contentful_paint_ms: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      response_end_ms: performance.getEntriesByType('navigation')[0]?.responseEnd,
    }));
    console.log(`waiting room: ${JSON.stringify(paint)}`);
    writeFileSync(`${ARTIFACTS}/waiting-room-paint.json`, JSON.stringify(paint));
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.screenshot({ path: `${ARTIFACTS}/waiting-room.png`, fullPage: true });

    await setRoom(event.id, { paused: false });
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
    const seats = page.locator('.seat.available');
    const chosen = [await seats.nth(0).getAttribute('data-seat-id'), await seats.nth(1).getAttribute('data-seat-id')];
    await seats.nth(0).click();
    await seats.nth(1).click();
    await page.screenshot({ path: `${ARTIFACTS}/seat-map.png`, fullPage: true });
    await page.getByRole('button', { name: 'Hold 2 seats' }).click();
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor();
    assert.match(await page.locator('.countdown').innerText(), /Held for \d+:\d\d more/);
    await page.getByRole('button', { name: /^Pay €170\.00$/ }).click();
    await page.getByRole('heading', { name: 'You are going!' }).waitFor({ timeout: 15_000 });
    const order = await page.locator('.order-id').innerText();
    assert.match(order, /^ord_/);
    await page.screenshot({ path: `${ARTIFACTS}/confirmation.png`, fullPage: true });
    assert.deepEqual(first.consoleErrors, []);

    const other = await next.context.newPage();
    await other.goto(`${BASE}/events/${event.id}`);
    await other.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
    for (const id of chosen) {
      const seat = other.locator(`[data-seat-id="${id}"]`);
      assert.match(await seat.getAttribute('class'), /\bsold\b/);
      assert.equal(await seat.locator('input').isDisabled(), true);
    }
  } finally {
    await first.close();
    await next.close();
  }
});

test('a second buyer queued behind the first sees a larger place and is admitted after', async () => {
  const event = await fastEvent('Second In Line', { paused: true, admit_rate_per_second: 1, tick_ms: 1000 });
  const a = await openBrowser();
  const b = await openBrowser();
  try {
    const pageA = await a.context.newPage();
    const pageB = await b.context.newPage();
    // A first visit joins by script once the page has loaded: A's place before B's visit.
    await pageA.goto(`${BASE}/events/${event.id}`);
    await pageA.locator('.place').waitFor();
    await pageB.goto(`${BASE}/events/${event.id}`);
    await pageB.locator('.place').waitFor();
    assert.match(await pageA.locator('.place').innerText(), /#1/);
    assert.match(await pageB.locator('.place').innerText(), /#2/);
    await setRoom(event.id, { paused: false });
    const admittedAt = {};
    const until = Date.now() + 15_000;
    while ((!admittedAt.a || !admittedAt.b) && Date.now() < until) {
      for (const [name, page] of [['a', pageA], ['b', pageB]]) {
        if (admittedAt[name]) continue;
        const r = await page.request.get(`${BASE}/api/events/${event.id}/queue`);
        if ((await r.json()).status === 'admitted') admittedAt[name] = Date.now();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(admittedAt.a && admittedAt.b, 'both were admitted');
    assert.ok(admittedAt.a < admittedAt.b, 'the first in line was admitted first');
    await pageB.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
  } finally {
    await a.close();
    await b.close();
  }
});

test('without JavaScript the waiting room refreshes itself and reaches the seat map', async () => {
  const event = await fastEvent('No Script Night', { paused: true });
  const browser = await openBrowser({ javaScriptEnabled: false });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('.place').waitFor();
    assert.equal(await page.locator('[data-seat-id]').count(), 0);
    await setRoom(event.id, { paused: false });
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
  } finally {
    await browser.close();
  }
});

test('opening the seat map directly without a token shows the waiting room, and the seat API says 403', async () => {
  const event = await fastEvent('Direct Visit', { paused: true });
  const browser = await openBrowser({ viewport: { width: 360, height: 740 } });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/events/${event.id}/seats`);
    await page.locator('.place').waitFor();
    assert.equal(await page.locator('[data-seat-id]').count(), 0);
    const r = await page.request.get(`${BASE}/api/events/${event.id}/seats`);
    assert.equal(r.status(), 403);
    const body = await r.json();
    assert.equal(body.error, 'not_admitted');
    assert.equal(body.queue_url, `/api/events/${event.id}/queue`);
    await page.screenshot({ path: `${ARTIFACTS}/waiting-room-360.png`, fullPage: true });
  } finally {
    await browser.close();
  }
});

test('with JavaScript, a reload at the seat map, during the hold and after paying hydrates the same stage, its code loaded first', async () => {
  const event = await fastEvent('Reloads at the turn');
  const buyer = await openBrowser();
  try {
    const page = await buyer.context.newPage();
    const turnChunks = [];
    page.on('requestfinished', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/pkg/split_turn_stage_')) turnChunks.push(path);
    });
    /** Reloads, waits for hydration, and says whether the turn's chunk came with the reload. */
    const reload = async () => {
      turnChunks.length = 0;
      await page.reload();
      await page.waitForSelector('body[data-hydrated="true"]', { timeout: 20_000 });
      assert.ok(turnChunks.length > 0, 'the turn stage chunk is fetched for the page the server rendered at the turn');
    };
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });

    // At the seat map: the reloaded map answers clicks (it hydrated, not merely rendered).
    await reload();
    const seats = page.locator('.seat.available');
    await seats.nth(0).click();
    await seats.nth(1).click();
    await page.getByRole('button', { name: 'Hold 2 seats' }).click();
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor();

    // During the hold: one hold panel, its countdown still running, and paying works.
    await reload();
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Your seats are held' }).count(), 1);
    const before = await page.locator('.countdown').innerText();
    assert.match(before, /Held for \d+:\d\d more/);
    await page.waitForFunction(
      (shown) => document.querySelector('.countdown')?.textContent?.trim() !== shown,
      before.trim(),
      { timeout: 5_000 },
    );
    // A form post would load a new document, which would not carry this mark.
    await page.evaluate(() => { window.stillThisDocument = true; });
    await page.getByRole('button', { name: /^Pay €170\.00$/ }).click();
    await page.getByRole('heading', { name: 'You are going!' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.stillThisDocument), true, 'the hydrated page paid through the API, not by a form post');
    const order = await page.locator('.order-id').innerText();

    // After paying: the same order, once.
    await reload();
    await page.getByRole('heading', { name: 'You are going!' }).waitFor();
    assert.equal(await page.locator('.order-id').count(), 1);
    assert.equal(await page.locator('.order-id').innerText(), order);
    assert.deepEqual(buyer.consoleErrors, []);
  } finally {
    await buyer.close();
  }
});

test('on the seat map the page says so every 10 s while it is shown, and not while it is hidden', async () => {
  const event = await fastEvent('On The Map');
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    const reads = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === `/api/events/${event.id}/seats`) {
        reads.push(Date.now());
      }
    });
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
    await page.waitForSelector('body[data-hydrated="true"]');
    const shown = reads.length;
    // Two of the page's 10-second marks pass while it is shown: at least one more reading.
    await page.waitForTimeout(21_000);
    const whileShown = reads.length - shown;
    assert.ok(whileShown >= 1 && whileShown <= 3, `readings while shown: ${whileShown}`);
    // Hidden (another tab in front): no reading says the buyer is on the map.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    });
    const hidden = reads.length;
    await page.waitForTimeout(11_000);
    assert.equal(reads.length, hidden, 'no reading while hidden');
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await browser.close();
  }
});
