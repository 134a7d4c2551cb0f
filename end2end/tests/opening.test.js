// The opening in the browser: the countdown before the pre-queue (ticking with JavaScript,
// rendered by the server without it), the pre-queue's ticket, the draw, the place it gave with
// how to check it, and the seat map. A screenshot of each stage lands in artifacts/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** A buyer of the API: a session, then a join (in the pre-queue: a ticket). */
async function apiEntrant(eventId) {
  const session = await (await fetch(`${BASE}/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
  })).json();
  const r = await fetch(`${BASE}/api/events/${eventId}/queue`, {
    method: 'POST', headers: { authorization: `Bearer ${session.token}` },
  });
  return r.json();
}

test('countdown, pre-queue ticket, draw, position and seat map', async () => {
  // The pre-queue opens in 22 s (room enough for a loaded machine to load and hydrate the
  // page while it still counts down), the sale 8 s later. The room is paused, so the draw's
  // place shows before admission (a paused room draws at its opening too).
  const opensAt = new Date(Date.now() + 30_000);
  const event = await admin('POST', '/api/admin/events', {
    name: 'Opening Night',
    starts_at: '2026-12-24T19:00:00Z',
    sections: [{ name: 'Stalls', rows: 2, seats_per_row: 10, price_cents: 8500 }],
    room: {
      admit_rate_per_second: 5, tick_ms: 200, paused: true,
      opens_at: opensAt.toISOString(), prequeue_seconds: 8,
    },
  });
  const buyer = await openBrowser();
  const noScript = await openBrowser({ javaScriptEnabled: false });
  try {
    // 1. The countdown: rendered by the server, then ticking in the browser.
    const page = await buyer.context.newPage();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    const countdown = page.locator('[data-countdown="prequeue"]');
    const first = await countdown.innerText();
    assert.match(first, /^0:[0-2]\d$/);
    await page.screenshot({ path: `${ARTIFACTS}/opening-1-countdown.png`, fullPage: true });
    await page.waitForFunction((was) => document.querySelector('[data-countdown="prequeue"]')?.textContent !== was, first);
    assert.match(await page.locator('.opening').innerText(), /has the same chance/);
    // Without JavaScript the server's rendering says the same, right at each reload.
    const plain = await noScript.context.newPage();
    await plain.goto(`${BASE}/events/${event.id}`);
    assert.match(await plain.locator('[data-countdown="prequeue"]').innerText(), /^0:[0-2]\d$/);
    assert.equal(await plain.locator('meta[http-equiv="refresh"]').count(), 1);
    // Closed now: its own refresh at the pre-queue's opening would join it (a third entrant).
    await plain.close();

    // 2. The pre-queue opens: the page joins by itself and shows the ticket.
    const ticketShown = page.locator('.prequeue .ticket');
    await ticketShown.waitFor({ timeout: 40_000 });
    const ticket = await ticketShown.innerText();
    assert.match(ticket, /^[0-9a-f]{32}$/);
    assert.match(await page.locator('.prequeue').innerText(), /same chance/);
    assert.match(await page.locator('.prequeue .wait').innerText(), /The draw is at .*, in 0:0\d\./);
    const other = await apiEntrant(event.id);
    assert.equal(other.status, 'pre_queue');
    await page.screenshot({ path: `${ARTIFACTS}/opening-2-prequeue-ticket.png`, fullPage: true });
    // The same ticket after a reload.
    await page.reload();
    await page.waitForSelector('body[data-hydrated="true"]');
    assert.equal(await ticketShown.innerText(), ticket);

    // 3. The draw: the place it gave, the ticket, and how to check it.
    const drawnPlace = page.locator('[data-drawn-place]');
    await drawnPlace.waitFor({ timeout: 30_000 });
    const draw = await (await fetch(`${BASE}/api/events/${event.id}/draw`)).json();
    assert.equal(draw.state, 'drawn');
    assert.equal(draw.entrants, 2);
    const place = draw.tickets.indexOf(ticket) + 1;
    assert.ok(place >= 1);
    assert.equal(await drawnPlace.innerText(), String(place));
    assert.match(await page.locator('.place').innerText(), new RegExp(`#${place}`));
    assert.match(await page.locator('.drawn').innerText(), /verify-draw/);
    await page.screenshot({ path: `${ARTIFACTS}/opening-3-drawn-position.png`, fullPage: true });

    // 4. Admission resumes: the seat map.
    await admin('PUT', `/api/admin/events/${event.id}/room`, { paused: false });
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${ARTIFACTS}/opening-4-seat-map.png`, fullPage: true });
    assert.deepEqual(buyer.consoleErrors, []);
  } finally {
    await buyer.close();
    await noScript.close();
  }
});
