// No buyer page is wider than a phone's screen (WCAG 2.1, 1.4.10 Reflow; issue 38): at 320,
// 390 and 1280 CSS px, with and without JavaScript, the waiting room, the seat map, the hold and
// the confirmation never scroll sideways; a section wider than the screen pans inside its own
// frame. The overview opens another section (a link without JavaScript), seats are at least
// 24 px at the sizes meant for tapping, and the hold button stays in view. The demo's hall (3 sections of 10 rows
// of 20 seats) once widened the whole page to 703 px. axe-core does not test reflow, so this
// measures it: the document's scroll width against the viewport's.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { ARTIFACTS, BASE, admin, openBrowser, waitForServer } from './browser.js';

const WIDTHS = [320, 390, 1280];

before(async () => { await waitForServer(); });

/** A hall like the demo's, its room off (the seat map open to everyone at once). */
async function hall() {
  const event = await admin('POST', '/api/admin/events', {
    name: 'Reflow Hall',
    starts_at: '2027-03-01T19:00:00Z',
    sections: ['Stalls', 'Circle', 'Balcony'].map((name, i) => ({
      name, rows: 10, seats_per_row: 20, price_cents: 3000 + 1000 * i,
    })),
    room: { enabled: false },
  });
  return event.id;
}

/** How far `page` scrolls sideways, and how far the seat map's frame does inside itself. */
function overflow(page) {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    frame: Math.max(0, ...[...document.querySelectorAll('.frame')]
      .map((s) => s.scrollWidth - s.clientWidth)),
  }));
}

/** Whether the element of `locator` is wholly inside the window. */
function inView(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  });
}

/** `page` as it is, at each width: no sideways scroll. */
async function fits(page, stage, javaScriptEnabled) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${ARTIFACTS}/reflow-${stage}-${width}-${javaScriptEnabled ? 'js' : 'nojs'}.png`, fullPage: true });
    const { page: sideways } = await overflow(page);
    assert.ok(sideways <= 0, `${stage} at ${width} px: the page scrolls ${sideways} px sideways`);
  }
}

for (const javaScriptEnabled of [true, false]) {
  test(`the waiting room on a phone ${javaScriptEnabled ? 'with' : 'without'} JavaScript fits the screen`, async () => {
    const event = await admin('POST', '/api/admin/events', {
      name: 'Reflow Line',
      starts_at: '2027-03-01T19:00:00Z',
      sections: [{ name: 'Stalls', rows: 1, seats_per_row: 4, price_cents: 3000 }],
      room: { paused: true },
    });
    const browser = await openBrowser({ javaScriptEnabled });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${BASE}/events/${event.id}`);
      await page.locator('.place').waitFor({ timeout: 20_000 });
      await fits(page, 'waiting', javaScriptEnabled);
    } finally {
      if (browser.consoleErrors.length) console.log(`# console errors: ${browser.consoleErrors.join(' | ')}`);
      await browser.close();
    }
  });
}

for (const javaScriptEnabled of [true, false]) {
  test(`the seat map on a phone ${javaScriptEnabled ? 'with' : 'without'} JavaScript scrolls in its section, never the page`, async () => {
    const id = await hall();
    const browser = await openBrowser({ javaScriptEnabled });
    try {
      const page = await browser.context.newPage();
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${BASE}/events/${id}`);
        await page.locator('[data-seat-id]').first().waitFor({ timeout: 20_000 });
        const shot = `${ARTIFACTS}/reflow-${width}-${javaScriptEnabled ? 'js' : 'nojs'}.png`;
        await page.screenshot({ path: shot, fullPage: true });
        const { page: sideways, frame } = await overflow(page);
        assert.ok(sideways <= 0, `${width} px: the page scrolls ${sideways} px sideways`);
        if (width < 1280) {
          assert.ok(frame > 0, `${width} px: a row of 20 seats is wider than the screen, so its frame pans`);
        }
        assert.equal(await page.locator('.section legend').textContent(), 'Stalls', 'one section a page');
      }
      // Seats big enough to tap at the size a page opens with, and when picked larger.
      const size = async () => page.locator('label.seat').first().boundingBox();
      let box = await size();
      assert.ok(box.width >= 24 && box.height >= 24, `a seat is ${box.width} x ${box.height} px`);
      await page.getByLabel('Large', { exact: true }).check();
      box = await size();
      assert.ok(box.width >= 44 && box.height >= 44, `a large seat is ${box.width} x ${box.height} px`);
      await page.getByLabel('Medium', { exact: true }).check();
      if (javaScriptEnabled) {
        // The arrow keys: along the row, then to the next row's seat at the same place.
        await page.locator('.seat input').first().focus();
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('ArrowDown');
        const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
        assert.match(focused ?? '', /^Stalls row 2 seat 2, .+, available$/);
      }
      // The overview opens another section (a page of its own without JavaScript).
      await page.getByRole('link', { name: /^Circle/ }).click();
      await page.locator('.section legend', { hasText: 'Circle' }).waitFor({ timeout: 20_000 });
      await fits(page, 'circle', javaScriptEnabled);
      // A seat ticked far down the section: the hold button is still in view.
      const last = page.locator('.seat.available').last();
      await last.scrollIntoViewIfNeeded();
      await last.click();
      assert.ok(await inView(page.getByRole('button', { name: /^Hold/ }).first()), 'the hold button in view');
      // The hold and the confirmation fit too.
      await page.locator('[data-seat-id]').first().click();
      await page.getByRole('button', { name: /^Hold/ }).first().click();
      await page.getByRole('heading', { name: 'Your seats are held' }).waitFor({ timeout: 20_000 });
      await fits(page, 'hold', javaScriptEnabled);
      await page.getByRole('button', { name: /^Pay / }).first().click();
      await page.getByRole('heading', { name: 'You are going!' }).waitFor({ timeout: 20_000 });
      await fits(page, 'confirmation', javaScriptEnabled);
    } finally {
      if (browser.consoleErrors.length) console.log(`# console errors: ${browser.consoleErrors.join(' | ')}`);
      await browser.close();
    }
  });
}
