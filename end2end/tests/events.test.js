import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

test('the events page is rendered by the server', async () => {
  const html = await (await fetch(`${BASE}/`)).text();
  assert.match(html, /Anteroom Demo Night/);
  assert.match(html, /Waiting room open/);
});

test('the events page hydrates: the details toggle answers a click', async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/`);
    await page.waitForSelector('body[data-hydrated="true"]', { timeout: 15_000 });
    assert.equal(await page.locator('.room-details').count(), 0);
    await page.getByRole('button', { name: 'Show room details' }).click();
    await page.locator('.room-details').first().waitFor();
    assert.match(await page.locator('.room-details').first().innerText(), /Admitted per second\s+50/);
    await page.screenshot({ path: `${ARTIFACTS}/events.png`, fullPage: true });
    assert.deepEqual(browser.consoleErrors, []);
  } finally {
    await browser.close();
  }
});

test('without JavaScript the page still renders, and the toggle does nothing', async () => {
  const browser = await openBrowser({ javaScriptEnabled: false });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/`);
    await page.getByText('Anteroom Demo Night').waitFor();
    await page.getByRole('button', { name: 'Show room details' }).click();
    await page.waitForTimeout(300);
    assert.equal(await page.locator('.room-details').count(), 0);
    assert.equal(await page.locator('body[data-hydrated]').count(), 0);
  } finally {
    await browser.close();
  }
});
