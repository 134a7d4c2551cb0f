// The operator's night: sign in, watch the panel, lower N, pause.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, OPERATOR_BASE, ARTIFACTS, admin, enrolOperator, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** `n` buyers in the line of `eventId`, through the API. */
async function buyers(eventId, n) {
  for (let i = 0; i < n; i++) {
    const s = await (await fetch(`${BASE}/api/session`, { method: 'POST' })).json();
    await fetch(`${BASE}/api/events/${eventId}/queue`, {
      method: 'POST', headers: { authorization: `Bearer ${s.token}` },
    });
  }
}

/** The admissions of the newest complete second, read from the panel. */
async function admissionsShown(page) {
  return Number(await page.locator('[data-figure="admissions"]').innerText());
}

test('the operator lowers N and the admissions line follows; pausing stops admissions and buyers see it', async () => {
  const event = await admin('POST', '/api/admin/events', {
    name: 'Operator Night', starts_at: '2026-12-31T19:00:00Z',
    sections: [{ name: 'Floor', rows: 5, seats_per_row: 20, price_cents: 3000 }],
    room: { admit_rate_per_second: 20, tick_ms: 100, paused: true },
  });
  await buyers(event.id, 300);
  const browser = await openBrowser();
  const buyer = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await enrolOperator(browser.context, page, 'operator');
    await page.goto(`${OPERATOR_BASE}/admin/events/${event.id}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.getByRole('button', { name: 'Resume admissions' }).click();
    await page.getByRole('button', { name: 'Pause admissions' }).waitFor();

    // N = 20: the panel shows about 20 admissions a second.
    await waitFor(async () => (await admissionsShown(page)) >= 15, 'admissions near 20/s');
    await page.screenshot({ path: `${ARTIFACTS}/operator-panel.png`, fullPage: true });

    page.once('dialog', (d) => d.accept());
    await page.getByLabel('Admitted per second (N)').fill('5');
    await page.getByRole('button', { name: 'Set N' }).click();
    await waitFor(async () => { const n = await admissionsShown(page); return n >= 3 && n <= 6; }, 'admissions follow N = 5');

    const waiting = await buyer.context.newPage();
    await waiting.goto(`${BASE}/events/${event.id}`);
    await page.getByRole('button', { name: 'Pause admissions' }).click();
    await page.getByRole('button', { name: 'Resume admissions' }).waitFor();
    await waitFor(async () => (await admissionsShown(page)) === 0, 'admissions stop when paused');
    await waiting.locator('.wait.paused').waitFor({ timeout: 10_000 });
    const changes = await page.locator('.audit li').allInnerTexts();
    assert.ok(changes.some((c) => c.includes('"admit_rate_per_second":5') && c.includes('Ada operator')), changes.join('\n'));
  } finally {
    await browser.close();
    await buyer.close();
  }
});

test("the operator's new event form sets the buyers' language the event's pages fall back to", async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await enrolOperator(browser.context, page);
    await page.goto(`${OPERATOR_BASE}/admin`);
    await page.waitForSelector('body[data-hydrated="true"]');
    const form = page.locator('form.create');
    await form.getByLabel('Name', { exact: true }).fill('Abend in Wien');
    await form.getByLabel('Starts (UTC)').fill('2027-03-01T19:00');
    await form.getByLabel("Buyers' language").selectOption('de');
    await form.getByRole('button', { name: 'Create the event' }).click();
    const created = form.locator('.notice a');
    await created.waitFor();
    const id = (await created.getAttribute('href')).split('/').pop();
    const event = await (await fetch(`${BASE}/api/events/${id}`)).json();
    assert.equal(event.language, 'de', JSON.stringify(event));
    // A browser that names no language we speak reads the event's pages in the event's.
    const html = await (await fetch(`${BASE}/events/${id}`, { headers: { 'accept-language': 'fi' } })).text();
    assert.match(html, /<html[^>]* lang="de"/);
  } finally {
    await browser.close();
  }
});

async function waitFor(check, what, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
