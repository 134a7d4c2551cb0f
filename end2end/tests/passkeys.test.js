// Operators are people (issue 33): enrol a passkey from a one-time link (Chromium's virtual
// authenticator), sign out (the old cookie is nothing after), sign in again with the passkey.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { OPERATOR_BASE, ARTIFACTS, admin, enrolOperator, openBrowser, waitForServer } from './browser.js';

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

    // Issue 63: a start for an address with no passkey looks like this operator's own.
    const start = async (email) => {
      const r = await fetch(`${OPERATOR_BASE}/api/operator/passkey/authenticate/start`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }),
      });
      assert.equal(r.status, 200, email);
      return r.json();
    };
    const shape = (v) => (Array.isArray(v) ? [shape(v[0])]
      : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape(v[k])]))
        : typeof v);
    const real = await start(operator.email);
    const decoy = await start('nobody-at-all@example.org');
    assert.deepEqual(shape(decoy), shape(real), JSON.stringify({ real, decoy }));
    assert.equal(decoy.options.publicKey.timeout, real.options.publicKey.timeout);
    assert.equal(decoy.options.publicKey.rpId, real.options.publicKey.rpId);
  } finally {
    await browser.close();
  }
});

test('pausing a running room needs a recent sign-in: the panel asks for the passkey again', async () => {
  const event = await admin('POST', '/api/admin/events', {
    name: 'Step-up Night', starts_at: '2026-12-31T19:00:00Z',
    sections: [{ name: 'Floor', rows: 2, seats_per_row: 10, price_cents: 3000 }],
    room: { admit_rate_per_second: 5 },
  });
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await enrolOperator(browser.context, page, 'operator');
    // The sign-in is older than 5 minutes now.
    execFileSync('psql', [process.env.DATABASE_URL, '-qc',
      "update operator_session set authenticated_at = now() - interval '10 minutes'"]);
    await page.goto(`${OPERATOR_BASE}/admin/events/${event.id}`);
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.getByRole('button', { name: 'Pause admissions' }).click();
    await page.getByRole('button', { name: 'Confirm it is you (passkey)' }).click();
    await page.getByText('Confirmed: make the change again.').waitFor();
    await page.getByRole('button', { name: 'Pause admissions' }).click();
    await page.getByRole('button', { name: 'Resume admissions' }).waitFor();
    const audit = await admin('GET', '/api/admin/audit?limit=5');
    assert.ok(audit.some((e) => e.action === 'step_up'), JSON.stringify(audit));
  } finally {
    await browser.close();
  }
});
