// Operators are people (issue 33): enrol a passkey from a one-time link (Chromium's virtual
// authenticator), sign out (the old cookie is nothing after), sign in again with the passkey.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_BASE, ARTIFACTS, enrolOperator, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

test('an operator enrols a passkey from the link, signs out, and signs in with it again', async () => {
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    const operator = await enrolOperator(browser.context, page, 'viewer');
    await page.getByText('Signed in as Ada viewer (viewer)').waitFor();
    const who = await page.evaluate(async () => (await fetch('/api/admin/session')).json());
    assert.equal(who.via, 'passkey');
    assert.equal(who.role, 'viewer');
    const [cookie] = (await browser.context.cookies(OPERATOR_BASE)).filter((c) => c.name === 'anteroom-op');
    assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict', JSON.stringify(cookie));

    // The link is used up.
    const again = await page.evaluate(async (token) => (await fetch('/api/operator/passkey/register/start', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }),
    })).status, operator.link.split('#')[1]);
    assert.equal(again, 401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    // The cookie someone copied before the sign-out is nothing now.
    const stolen = await fetch(`${OPERATOR_BASE}/api/admin/session`, {
      headers: { cookie: `anteroom-op=${cookie.value}` },
    });
    assert.equal(stolen.status, 401);

    await page.getByLabel('Email').fill(operator.email);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/operator-passkey.png`, fullPage: true });
    const audit = await page.evaluate(async () => (await fetch('/api/admin/session')).status);
    assert.equal(audit, 200);
  } finally {
    await browser.close();
  }
});
