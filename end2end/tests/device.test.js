// Rooms that bind admission tokens to the device (API.md "Tokens bound to the device") and
// moving a place to another device ("Moving a place to another device"), in Chromium: the page
// proves its WebCrypto key on every call, a token copied to another browser is refused at the
// seat map, a browser without JavaScript reads one sentence, and a place moves with its
// position from one browser to another.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

before(async () => { await waitForServer(); });

/** A fresh event whose room binds tokens (100 ms ticks); `room` overrides. */
async function boundEvent(name, room = {}) {
  const event = await admin('POST', '/api/admin/events', {
    name,
    starts_at: '2026-12-24T19:00:00Z',
    sections: [{ name: 'Stalls', rows: 2, seats_per_row: 8, price_cents: 8500 }],
    room: { admit_rate_per_second: 50, tick_ms: 100, ...room },
  });
  await setRoom(event.id, { bind_tokens: true });
  return event;
}

const setRoom = (id, room) => admin('PUT', `/api/admin/events/${id}/room`, room);

/**
 * A DPoP proof (RFC 9449) made with the WebCrypto key pair `pair` for a `method` request of
 * `htu`, bound to `token` if given. Self-contained: it runs in node and, as text, in a page.
 */
async function dpopProof(pair, method, htu, token) {
  const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const part = (json) => b64(new TextEncoder().encode(JSON.stringify(json)));
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } };
  const claims = {
    htm: method,
    htu,
    iat: Math.floor(Date.now() / 1000),
    jti: b64(crypto.getRandomValues(new Uint8Array(16))),
  };
  if (token) claims.ath = b64(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  const input = `${part(header)}.${part(claims)}`;
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey,
    new TextEncoder().encode(input));
  return `${input}.${b64(signature)}`;
}

const newKey = () => crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);

/**
 * From inside `page`: GET `path` with the admission `token` and a proof made by the page's own
 * device key (`key: 'device'`, the one the app keeps in IndexedDB), a fresh key of that
 * browser (`key: 'fresh'`), or none (`key: null`). The answer's status and error code.
 */
async function gatedGet(page, path, token, key) {
  return page.evaluate(`(async () => {
    const dpopProof = ${dpopProof};
    const key = ${JSON.stringify(key)};
    const token = ${JSON.stringify(token)};
    const path = ${JSON.stringify(path)};
    const kept = () => new Promise((resolve, reject) => {
      const open = indexedDB.open('anteroom', 1);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const get = open.result.transaction('keys').objectStore('keys').get('device');
        get.onerror = () => reject(get.error);
        get.onsuccess = () => resolve(get.result);
      };
    });
    const headers = { 'Admission-Token': token };
    if (key) {
      const pair = key === 'device' ? await kept()
        : await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
      headers.DPoP = await dpopProof(pair, 'GET', location.origin + path, token);
    }
    const r = await fetch(path, { headers });
    const body = await r.json().catch(() => ({}));
    return { status: r.status, error: body.error ?? null };
  })()`);
}

/** A buyer made through the API, in line in the bound room of `eventId` with its own key. */
async function apiBuyerInLine(eventId) {
  const session = await (await fetch(`${BASE}/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
  })).json();
  const key = await newKey();
  const path = `/api/events/${eventId}/queue`;
  const r = await fetch(`${BASE}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${session.token}`,
      DPoP: await dpopProof(key, 'POST', `${BASE}${path}`),
    },
    body: '{}',
  });
  assert.ok(r.status === 200 || r.status === 202, `join: ${r.status} ${await r.text()}`);
}

test('in a bound room a buyer goes from the line to a hold, every call proven by the browser\'s key', async () => {
  const event = await boundEvent('Bound Night');
  const a = await openBrowser();
  try {
    const page = await a.context.newPage();
    await page.goto(`${BASE}/events/${event.id}`);
    await page.locator('[data-seat-id]').first().waitFor({ timeout: 20_000 });
    await page.locator('.seat.available').first().click();
    await page.getByRole('button', { name: 'Hold 1 seat' }).click();
    await page.getByRole('heading', { name: 'Your seats are held' }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: `${ARTIFACTS}/device-hold.png`, fullPage: true });
    // The key is kept non-extractable in IndexedDB.
    const kept = await page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open('anteroom', 1);
      open.onsuccess = () => {
        const get = open.result.transaction('keys').objectStore('keys').get('device');
        get.onsuccess = () => resolve({
          private: get.result?.privateKey?.extractable,
          algorithm: get.result?.privateKey?.algorithm?.namedCurve,
        });
      };
    }));
    assert.deepEqual(kept, { private: false, algorithm: 'P-256' });
    assert.deepEqual(a.consoleErrors, []);
  } finally {
    await a.close();
  }
});

test('an admission token copied to another browser is refused at the seat map; its own browser passes', async () => {
  const event = await boundEvent('Bound Copy');
  const a = await openBrowser();
  const b = await openBrowser();
  try {
    const pageA = await a.context.newPage();
    await pageA.goto(`${BASE}/events/${event.id}`);
    await pageA.locator('[data-seat-id]').first().waitFor({ timeout: 20_000 });
    const seats = `/api/events/${event.id}/seats`;
    // The page's poll answers the admission with the token bound to A's key.
    const token = await pageA.evaluate(async (id) => {
      const r = await fetch(`/api/events/${id}/queue`);
      return (await r.json()).admission_token;
    }, event.id);
    assert.ok(token, 'A is admitted');
    assert.deepEqual(await gatedGet(pageA, seats, token, 'device'), { status: 200, error: null });

    // B gets A's cookies (the session and the admission) and the token, not A's key.
    await b.context.addCookies(await a.context.cookies(BASE));
    const pageB = await b.context.newPage();
    await pageB.goto(`${BASE}/`);
    assert.deepEqual(await gatedGet(pageB, seats, token, 'fresh'), { status: 403, error: 'not_admitted' });
    assert.deepEqual(await gatedGet(pageB, seats, token, null), { status: 403, error: 'not_admitted' });
    // A still passes, with a fresh proof of its own key.
    assert.deepEqual(await gatedGet(pageA, seats, token, 'device'), { status: 200, error: null });
  } finally {
    await a.close();
    await b.close();
  }
});

test('without JavaScript a bound room says it needs a device key, counts the visit, and never reloads', async () => {
  const event = await boundEvent('Bound No Script');
  const browser = await openBrowser({ javaScriptEnabled: false });
  try {
    const page = await browser.context.newPage();
    const counted = page.waitForRequest((r) => r.url().endsWith(`/api/events/${event.id}/refusals/no-script`));
    await page.goto(`${BASE}/events/${event.id}`);
    await counted;
    const html = await page.content();
    assert.match(html, /ties each place in line to the device that took it/);
    assert.doesNotMatch(html, /http-equiv="refresh"/);
    await page.screenshot({ path: `${ARTIFACTS}/device-no-script.png`, fullPage: true });
  } finally {
    await browser.close();
  }
});

/** A page of `browser` at the event `eventId` in line, asserting the `position` it shows. */
async function pageInLine(browser, eventId, position) {
  const page = await browser.context.newPage();
  await page.goto(`${BASE}/events/${eventId}`);
  await page.locator('.place').waitFor({ timeout: 15_000 });
  assert.match(await page.locator('.place').innerText(), new RegExp(`#${position}\\b`));
  return page;
}

/** The move code `page` (a page in line) is given for its place. */
async function moveCode(page) {
  await page.getByRole('button', { name: 'Continue on another device' }).click();
  const code = await page.locator('[data-code]').getAttribute('data-code', { timeout: 10_000 });
  assert.ok(code);
  return code;
}

test('a place moved to another browser keeps its position there, and is admitted there', async () => {
  const event = await boundEvent('Bound Move', { paused: true });
  for (let i = 0; i < 3; i += 1) await apiBuyerInLine(event.id);
  const a = await openBrowser();
  const b = await openBrowser();
  try {
    const pageA = await pageInLine(a, event.id, 4);
    const code = await moveCode(pageA);
    assert.match(await pageA.locator('.move').innerText(), /Valid until \d\d:\d\d /);
    await pageA.locator('.qr svg').waitFor();
    await pageA.screenshot({ path: `${ARTIFACTS}/device-move-code.png`, fullPage: true });

    const pageB = await b.context.newPage();
    await pageB.goto(`${BASE}/events/${event.id}?claim=${encodeURIComponent(code)}`);
    await pageB.locator('.place').waitFor({ timeout: 15_000 });
    assert.match(await pageB.locator('.place').innerText(), /#4\b/);
    // The claim's code left the address: a reload does not claim it again.
    assert.doesNotMatch(pageB.url(), /claim=/);

    await pageA.getByText(/Your place moved to another device at \d\d:\d\d \(.+\)\. Continue there/)
      .waitFor({ timeout: 10_000 });
    await pageA.screenshot({ path: `${ARTIFACTS}/device-moved.png`, fullPage: true });

    await setRoom(event.id, { paused: false });
    await pageB.locator('[data-seat-id]').first().waitFor({ timeout: 20_000 });
    // The old page took no new place meanwhile.
    const afterwards = await pageA.evaluate(async (id) => (await fetch(`/api/events/${id}/queue`)).status, event.id);
    assert.equal(afterwards, 404);
    assert.deepEqual(b.consoleErrors, []);
  } finally {
    await a.close();
    await b.close();
  }
});

test('a browser with a place of its own is shown both places and moves the other here only on a click', async () => {
  const event = await boundEvent('Bound Move Choice', { paused: true });
  for (let i = 0; i < 3; i += 1) await apiBuyerInLine(event.id);
  const a = await openBrowser();
  const b = await openBrowser();
  try {
    const pageA = await pageInLine(a, event.id, 4);
    const pageB = await pageInLine(b, event.id, 5);
    const code = await moveCode(pageA);
    await pageB.goto(`${BASE}/events/${event.id}?claim=${encodeURIComponent(code)}`);
    const choice = pageB.locator('.claim-choice');
    await choice.waitFor({ timeout: 15_000 });
    assert.match(await choice.innerText(), /other device's place is #4 in line/);
    assert.match(await choice.innerText(), /This device is #5 in line/);
    await pageB.screenshot({ path: `${ARTIFACTS}/device-claim-choice.png`, fullPage: true });
    // Nothing moved until the click: A still has its place.
    const before = await pageA.evaluate(async (id) => (await fetch(`/api/events/${id}/queue`)).status, event.id);
    assert.equal(before, 200);
    await pageB.getByRole('button', { name: 'Move that place here' }).click();
    await pageB.getByText(/Your place moved here from your other device/).waitFor({ timeout: 10_000 });
    assert.match(await pageB.locator('.place').innerText(), /#4\b/);
    assert.deepEqual(b.consoleErrors, []);
  } finally {
    await a.close();
    await b.close();
  }
});
