// A sale for signed-in accounts (API.md "Accounts"): the event page says "Sign in to join",
// the buyer signs in at the ticketer's OpenID provider (a real `oidc-provider`, which
// scripts/e2e.sh starts) and comes back in line; a second browser, without JavaScript, signs
// in to the same account and sees the same place.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** Signs in as `login` at the provider's page the browser is on, and waits to be back. */
async function signIn(page, login) {
  await page.getByRole('link', { name: 'Sign in', exact: true }).click();
  await page.locator('input[name=login]').waitFor();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((url) => url.href.startsWith(BASE));
}

test('a buyer signs in at the provider to join, and a second browser of the account has the same place', async () => {
  const event = await admin('POST', '/api/admin/events', {
    name: 'Fan Club Presale',
    starts_at: '2026-12-24T19:00:00Z',
    sections: [{ name: 'Stalls', rows: 2, seats_per_row: 10, price_cents: 8500 }],
    room: { admit_rate_per_second: 1, paused: true, identity: 'account' },
  });
  const laptop = await openBrowser();
  const phone = await openBrowser({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  try {
    const page = await laptop.context.newPage();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.getByRole('heading', { name: 'Sign in to join' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/sign-in-to-join.png`, fullPage: true });
    await signIn(page, 'ada');
    assert.equal(new URL(page.url()).pathname, `/events/${event.id}`);
    await page.locator('.place').waitFor();
    const place = await page.locator('.place').innerText();
    assert.match(place, /#1/);
    await page.screenshot({ path: `${ARTIFACTS}/signed-in-in-line.png`, fullPage: true });

    // Another device, no script at all: links, redirects and the provider's form.
    const other = await phone.context.newPage();
    await other.goto(`${BASE}/events/${event.id}`);
    await other.getByRole('heading', { name: 'Sign in to join' }).waitFor();
    await signIn(other, 'ada');
    await other.locator('.place').waitFor();
    assert.match(await other.locator('.place').innerText(), /#1/, 'the same place');
    await other.screenshot({ path: `${ARTIFACTS}/signed-in-second-device-no-js.png`, fullPage: true });

    // The line has one buyer: the account.
    const stats = await admin('GET', `/api/admin/events/${event.id}/stats`);
    assert.equal(stats.queue_length, 1);
  } finally {
    await laptop.close();
    await phone.close();
  }
});
