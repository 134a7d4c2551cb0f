// An arena on a phone (issue 38): a hall of 20,000 seats (20 blocks of 25 rows of 40) opened
// on a 390 px touch screen with the CPU slowed four times (Chromium's throttling, as a mid
// phone): the time until the seat map answers, the longest task the page ran, and a tap that
// chooses a seat. The seat map's bytes, in both forms, at 2,000 and 20,000 seats. Timings are
// printed, not asserted (they measure this machine); what is asserted is what a buyer does:
// the map opens one block, a tap chooses a seat, another block opens from the overview.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { ARTIFACTS, BASE, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** A hall of `blocks` sections of `rows` rows of `seats` seats, its room off (the map open). */
async function hall(name, blocks, rows, seats) {
  const event = await admin('POST', '/api/admin/events', {
    name,
    starts_at: '2027-06-01T19:00:00Z',
    sections: Array.from({ length: blocks }, (_, i) => ({
      name: `Block ${101 + i}`, rows, seats_per_row: seats, price_cents: 3500 + 1000 * (i % 4),
    })),
    room: { enabled: false, seats_per_buyer: 4 },
  });
  return event.id;
}

/** The long tasks of the page, from its first script on. */
const WATCH_LONG_TASKS = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
};

test('the seat map in bytes: both forms at 2,000 and 20,000 seats', async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    for (const [blocks, rows, seats] of [[4, 20, 25], [20, 25, 40]]) {
      const id = await hall(`Bytes ${blocks * rows * seats}`, blocks, rows, seats);
      await page.goto(`${BASE}/events/${id}`);
      await page.locator('[data-seat-id]').first().waitFor({ timeout: 30_000 });
      const [full, runs] = await page.evaluate(async (id) => Promise.all(
        ['', '?form=runs'].map(async (q) => (await fetch(`/api/events/${id}/seats${q}`)).text()),
      ), id);
      const fullMap = JSON.parse(full);
      const count = fullMap.sections.flatMap((s) => s.rows.flatMap((r) => r.seats)).length;
      assert.equal(count, blocks * rows * seats);
      const size = (text) => `${Buffer.byteLength(text)} bytes, ${gzipSync(text, { level: 6 }).length} gzip`;
      console.log(`# seat map of ${count} seats: API.md's form ${size(full)}; in runs ${size(runs)}`);
      assert.ok(Buffer.byteLength(runs) * 10 < Buffer.byteLength(full), 'the runs are a tenth of the map or less');
    }
  } finally {
    if (browser.consoleErrors.length) console.log(`# console errors: ${browser.consoleErrors.join(' | ')}`);
    await browser.close();
  }
});

/** A phone-sized page of `browser`, its CPU slowed 4 times, watching its long tasks. */
async function slowPhonePage(browser) {
  const page = await browser.context.newPage();
  await page.addInitScript(WATCH_LONG_TASKS);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return page;
}

/** Opens event `id` on `page` until its seat map is there: when, and the longest task so far. */
async function openMap(page, id) {
  await page.goto(`${BASE}/events/${id}`);
  await page.waitForSelector('body[data-hydrated="true"]', { timeout: 60_000 });
  await page.locator('[data-seat-id]').first().waitFor({ timeout: 60_000 });
  return page.evaluate(() => ({
    ready: performance.now(), longest: Math.round(Math.max(0, ...window.__longTasks.map((t) => t.ms))),
  }));
}

test('an arena of 20,000 seats on a slowed phone: one block opens, a tap chooses a seat', async () => {
  const small = await hall('Small Night', 1, 1, 10);
  const id = await hall('Arena Night', 20, 25, 40);
  const browser = await openBrowser({
    viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2,
  });
  try {
    // The same page with a hall of 10 seats: what the page's own start costs.
    const baseline = await openMap(await slowPhonePage(browser), small);
    const page = await slowPhonePage(browser);
    const { ready } = await openMap(page, id);
    const drawn = await page.locator('[data-seat-id]').count();
    assert.equal(drawn, 1000, 'one block of 25 rows of 40 is in the page, not the hall');
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 0, `the page scrolls ${sideways} px sideways`);
    await page.screenshot({ path: `${ARTIFACTS}/arena-390.png` });

    // A tap on a seat chooses it.
    const seat = page.locator('.seat.available').nth(5);
    const seatId = await seat.getAttribute('data-seat-id');
    const before = await page.evaluate(() => window.__longTasks.length);
    const tapped = await page.evaluate(() => performance.now());
    await seat.tap();
    await page.getByRole('button', { name: 'Hold 1 seat' }).waitFor({ timeout: 10_000 });
    const chosen = await page.evaluate(() => performance.now());
    assert.equal(await page.locator(`[data-seat-id="${seatId}"] input`).isChecked(), true);
    const box = await seat.boundingBox();
    assert.ok(box.width >= 24 && box.height >= 24, `a seat is ${box.width} x ${box.height} px`);

    // Another block from the overview: its seats replace the first's; the choice stays.
    const beforeSwitch = await page.evaluate(() => window.__longTasks.length);
    await page.getByRole('link', { name: /Block 115/ }).tap();
    await page.locator('.section legend', { hasText: 'Block 115' }).waitFor({ timeout: 10_000 });
    const switched = await page.evaluate(() => performance.now());
    assert.equal(await page.locator('[data-seat-id]').count(), 1000);
    await page.getByRole('button', { name: 'Hold 1 seat' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/arena-390-block-115.png` });

    const tasks = await page.evaluate(() => window.__longTasks);
    const longest = (list) => Math.round(Math.max(0, ...list.map((t) => t.ms)));
    console.log(`# a hall of 10 seats, the same way: seat map ready ${Math.round(baseline.ready)} ms, `
      + `longest task ${baseline.longest} ms`);
    console.log(`# arena of 20,000 seats at 390 px, CPU 4x slower: seat map ready ${Math.round(ready)} ms `
      + `after navigation; longest task while loading ${longest(tasks.slice(0, before))} ms `
      + `(${before} tasks over 50 ms); a tap chose a seat in ${Math.round(chosen - tapped)} ms, `
      + `longest task ${longest(tasks.slice(before, beforeSwitch))} ms; another block opened in `
      + `${Math.round(switched - chosen)} ms, longest task ${longest(tasks.slice(beforeSwitch))} ms`);
  } finally {
    if (browser.consoleErrors.length) console.log(`# console errors: ${browser.consoleErrors.join(' | ')}`);
    await browser.close();
  }
});
