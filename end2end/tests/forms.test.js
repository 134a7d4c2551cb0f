// Every step without JavaScript: the waiting room refreshes itself to the seat map, then the
// hold (ticked seats in one run, best available in another), the payment and the confirmation
// all go by plain HTML forms that post and come back to the page. Screenshots of each stage
// at 360 px land in artifacts/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

async function pausedEvent(name) {
  return admin('POST', '/api/admin/events', {
    name,
    starts_at: '2026-12-24T19:00:00Z',
    sections: [
      { name: 'Stalls', rows: 2, seats_per_row: 8, price_cents: 8500 },
      { name: 'Circle', rows: 2, seats_per_row: 8, price_cents: 4500 },
    ],
    room: { admit_rate_per_second: 50, tick_ms: 100, paused: true },
  });
}

/** Join, wait, seat map: a browser without JavaScript; `shot` names its screenshots. */
async function toTheSeatMap(event, shot) {
  const browser = await openBrowser({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  const page = await browser.context.newPage();
  // The first visit gets its cookie and reloads itself into the line.
  await page.goto(`${BASE}/events/${event.id}`);
  await page.locator('.place').waitFor({ timeout: 15_000 });
  assert.match(await page.locator('.place').innerText(), /#\d+/);
  await page.screenshot({ path: `${ARTIFACTS}/${shot}-1-waiting-360.png`, fullPage: true });
  await admin('PUT', `/api/admin/events/${event.id}/room`, { paused: false });
  // The waiting room refreshes itself every 3 s until the turn comes.
  await page.locator('[data-seat-id]').first().waitFor({ timeout: 20_000 });
  await page.screenshot({ path: `${ARTIFACTS}/${shot}-2-seat-map-360.png`, fullPage: true });
  return { browser, page };
}

/** Pays by form and checks the confirmation; the seats `held` are sold afterwards. */
async function payAndConfirm(page, shot, total) {
  await page.getByRole('heading', { name: 'Your seats are held' }).waitFor();
  assert.match(await page.locator('.countdown').innerText(), /Held for \d+:\d\d more/);
  await page.screenshot({ path: `${ARTIFACTS}/${shot}-3-hold-360.png`, fullPage: true });
  await page.getByRole('button', { name: `Pay ${total}` }).click();
  await page.getByRole('heading', { name: 'You are going!' }).waitFor({ timeout: 15_000 });
  assert.match(await page.locator('.order-id').innerText(), /^ord_/);
  await page.screenshot({ path: `${ARTIFACTS}/${shot}-4-confirmation-360.png`, fullPage: true });
  // A reload still shows the order.
  await page.reload();
  await page.getByRole('heading', { name: 'You are going!' }).waitFor();
}

test('without JavaScript: join, wait, seat map, hold ticked seats, pay, confirmation', async () => {
  const event = await pausedEvent('Forms Night');
  const { browser, page } = await toTheSeatMap(event, 'forms-chosen');
  try {
    const seats = page.locator('.seat.available');
    const chosen = [await seats.nth(0).getAttribute('data-seat-id'), await seats.nth(1).getAttribute('data-seat-id')];
    await seats.nth(0).click();
    await seats.nth(1).click();
    assert.equal(await page.locator(`[data-seat-id="${chosen[0]}"] input`).isChecked(), true);
    await page.getByRole('button', { name: 'Hold the seats I ticked' }).click();
    assert.match(page.url(), new RegExp(`/events/${event.id}$`));
    await payAndConfirm(page, 'forms-chosen', '€170.00');
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await browser.close();
  }
});

test('without JavaScript: best available, a release, then best available again and pay', async () => {
  const event = await pausedEvent('Best Forms Night');
  const { browser, page } = await toTheSeatMap(event, 'forms-best');
  try {
    await page.locator('select[name="section"]').selectOption('Circle');
    await page.locator('select[name="quantity"]').selectOption('3');
    await page.getByRole('button', { name: 'Find me seats' }).click();
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor();
    assert.equal(await page.locator('.seat-list li:not(.total)').count(), 3);
    await page.getByRole('button', { name: 'Release seats' }).click();
    await page.getByText('Released. The seats are free for others again.').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/forms-best-released-360.png`, fullPage: true });
    assert.ok(await page.locator('[data-seat-id]').count() > 0, 'the map again');
    await page.locator('select[name="section"]').selectOption('Circle');
    await page.locator('select[name="quantity"]').selectOption('2');
    await page.getByRole('button', { name: 'Find me seats' }).click();
    await payAndConfirm(page, 'forms-best', '€90.00');
  } finally {
    await browser.close();
  }
});

test('without JavaScript: a seat taken meanwhile leads back to the map with the sentence', async () => {
  const event = await pausedEvent('Taken Seat Night');
  const { browser, page } = await toTheSeatMap(event, 'forms-taken');
  try {
    const seat = page.locator('.seat.available').first();
    const id = await seat.getAttribute('data-seat-id');
    await seat.click();
    // Someone else takes it through the API before the form is sent.
    const session = await (await fetch(`${BASE}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
    const joined = await (await fetch(`${BASE}/api/events/${event.id}/queue`, { method: 'POST', headers: { authorization: `Bearer ${session.token}` } })).json();
    let token = joined.admission_token;
    for (let i = 0; !token && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const polled = await (await fetch(`${BASE}/api/events/${event.id}/queue`, { headers: { authorization: `Bearer ${session.token}` } })).json();
      token = polled.admission_token;
    }
    const r = await fetch(`${BASE}/api/events/${event.id}/holds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'admission-token': token, 'idempotency-key': 'taker', 'content-type': 'application/json' },
      body: JSON.stringify({ seat_ids: [id] }),
    });
    assert.equal(r.status, 201);
    await page.getByRole('button', { name: 'Hold the seats I ticked' }).click();
    await page.getByText('Someone just took a seat you chose').waitFor();
    assert.match(await page.locator(`[data-seat-id="${id}"]`).getAttribute('class'), /\bheld\b/);
    await page.screenshot({ path: `${ARTIFACTS}/forms-taken-360.png`, fullPage: true });
  } finally {
    await browser.close();
  }
});

test('without JavaScript: a place moved here from another browser is claimed by a form', async () => {
  const event = await pausedEvent('Forms Claim');
  const a = await openBrowser();
  const b = await openBrowser({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  try {
    const pageA = await a.context.newPage();
    await pageA.goto(`${BASE}/events/${event.id}`);
    await pageA.locator('.place').waitFor({ timeout: 15_000 });
    await pageA.getByRole('button', { name: 'Continue on another device' }).click();
    const code = await pageA.locator('[data-code]').getAttribute('data-code', { timeout: 10_000 });
    assert.ok(code);

    // The code's address, opened without JavaScript: a form, and no place taken meanwhile.
    const pageB = await b.context.newPage();
    await pageB.goto(`${BASE}/events/${event.id}?claim=${encodeURIComponent(code)}`);
    await pageB.getByRole('button', { name: 'Move my place here' }).click();
    await pageB.getByText('Your place moved here from your other device, with its position.').waitFor();
    assert.match(await pageB.locator('.place').innerText(), /#1\b/);
    await pageB.screenshot({ path: `${ARTIFACTS}/forms-claimed-360.png`, fullPage: true });
    await pageA.getByText(/Your place moved to another device at/).waitFor({ timeout: 10_000 });
    const stats = await admin('GET', `/api/admin/events/${event.id}/stats`);
    assert.equal(stats.queue_length, 1, 'one place in line: the moved one');
  } finally {
    await a.close();
    await b.close();
  }
});
