// The gate in front of a ticketer's site (API.md "The gate"), with the real parts: Debian's
// nginx on a loopback port, configured from ops/nginx/gate.conf, in front of the example site
// (verify/examples/origin.rs) and of Anteroom. Chromium opens the site's protected page, is sent
// to the room, waits, is admitted and lands back on the site's page; requests without an
// admission, with a forged one, another event's, or an expired one are sent to the room; a
// hand-over is good once; the site's done report closes the gate for that buyer; a slow site
// lowers the automatic rate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY, ARTIFACTS, BASE, admin, openBrowser, waitForServer } from './browser.js';

const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
const ORIGIN_BIN = process.env.ORIGIN_BIN ?? '../target/debug/examples/origin';
const CONF = new URL('../../ops/nginx/gate.conf', import.meta.url).pathname;

/** A free loopback port. */
function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** Waits until `url` answers at all. */
async function answering(url, what) {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    try { await fetch(url, { redirect: 'manual' }); return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} does not answer at ${url}`);
}

let nginx;
let origin;
let dir;
let SITE;
let ORIGIN;

before(async () => {
  await waitForServer();
  const [sitePort, originPort] = [await freePort(), await freePort()];
  SITE = `http://127.0.0.1:${sitePort}`;
  ORIGIN = `http://127.0.0.1:${originPort}`;
  origin = spawn(ORIGIN_BIN, ['--addr', `127.0.0.1:${originPort}`], { stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'anteroom-nginx-'));
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const conf = readFileSync(CONF, 'utf8')
    .replaceAll('{{DIR}}', dir)
    .replaceAll('{{LISTEN}}', `127.0.0.1:${sitePort}`)
    .replaceAll('{{HOST}}', '127.0.0.1')
    .replaceAll('{{ANTEROOM}}', BASE.replace('http://', ''))
    .replaceAll('{{ORIGIN}}', `127.0.0.1:${originPort}`);
  writeFileSync(join(dir, 'nginx.conf'), conf);
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' });
  await answering(`${ORIGIN}/health`, 'the site');
  await answering(`${SITE}/readyz`, 'nginx');
});

after(() => {
  nginx?.kill();
  origin?.kill();
  try { writeFileSync(`${ARTIFACTS}/nginx-error.log`, readFileSync(join(dir, 'error.log'))); } catch { /* none */ }
  rmSync(dir, { recursive: true, force: true });
});

/** An event whose room sends admitted buyers to the site's /shop/ and protects /shop there. */
async function gatedEvent(name, room = {}) {
  const event = await admin('POST', '/api/admin/events', {
    name,
    starts_at: '2027-06-01T19:00:00Z',
    sections: [{ name: 'Floor', rows: 2, seats_per_row: 10, price_cents: 4000 }],
    room: { admit_rate_per_second: 5, target_url: `${SITE}/shop/`, protect: ['/shop'], ...room },
  });
  return event.id;
}

/** GET `path` on the site as a client without a browser, redirects not followed. */
function site(path, cookie) {
  return fetch(`${SITE}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/**
 * A request to the site through nginx with `path` and `host` exactly as written (fetch would
 * resolve dot segments): its status and location.
 */
function raw(path, host, cookie) {
  const { port } = new URL(SITE);
  const headers = { host, ...(cookie ? { cookie } : {}) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A buyer of the JSON API (through nginx) admitted to `event`: session, admitted answer. */
async function apiBuyer(event) {
  const session = await (await fetch(`${SITE}/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
  })).json();
  const auth = { authorization: `Bearer ${session.token}` };
  let answer = await (await fetch(`${SITE}/api/events/${event}/queue`, { method: 'POST', headers: auth })).json();
  const until = Date.now() + 20_000;
  while (answer.status !== 'admitted') {
    assert.ok(Date.now() < until, `not admitted: ${JSON.stringify(answer)}`);
    await new Promise((r) => setTimeout(r, 300));
    answer = await (await fetch(`${SITE}/api/events/${event}/queue`, { headers: auth })).json();
  }
  return { session, answer };
}

/** An admission token of `event` signed with the server's own key, expired a minute ago. */
function expiredToken(event, buyer, epoch) {
  const keys = join(process.env.ANTEROOM_DATA_DIR, 'admission-keys');
  const file = readdirSync(keys).find((f) => f.endsWith('.key'));
  const kid = file.replace(/\.key$/, '');
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'EdDSA', kid, typ: 'JWT' })}.${b64({
    sub: buyer, evt: event, aud: 'anteroom', iat: now - 600, exp: now - 60, jti: 'expired', epc: epoch,
  })}`;
  // The key file is a PKCS#8 v2 document (with the public key), which Node's OpenSSL does
  // not read: the 32-byte seed is taken out and wrapped as the plain v1 form.
  const pem = readFileSync(join(keys, file), 'utf8');
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const at = der.indexOf(Buffer.from([0x04, 0x22, 0x04, 0x20]));
  const seed = der.subarray(at + 4, at + 36);
  const v1 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const key = createPrivateKey({ key: v1, format: 'der', type: 'pkcs8' });
  const signature = sign(null, Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

test('Chromium is sent from the site to the room, waits, and is handed back to the site', async () => {
  const event = await gatedEvent('Gate night', { paused: true });
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${SITE}/shop/`);
    // nginx sent the buyer to the room, with the way back.
    assert.match(page.url(), new RegExp(`/events/${event}\\?return=%2Fshop%2F$`));
    await page.waitForSelector('body[data-hydrated="true"]', { timeout: 20_000 });
    await page.locator('.place, .paused, [data-stage="waiting"]').first().waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${ARTIFACTS}/gate-waiting.png` });
    await admin('PUT', `/api/admin/events/${event}/room`, { paused: false });
    await page.waitForURL(`${SITE}/shop/**`, { timeout: 30_000 });
    await page.locator('h1', { hasText: "The ticketer's shop" }).waitFor();
    const buyer = await page.evaluate(async () => (await (await fetch('/api/session')).json()).buyer_id);
    assert.equal(await page.locator('#buyer').textContent(), buyer, 'nginx forwarded who passed');
    assert.equal(await page.locator('#event').textContent(), event);
    await page.screenshot({ path: `${ARTIFACTS}/gate-landed.png` });

    // The browser's admission passes the gate for other protected pages; nothing else does.
    const cookies = await browser.context.cookies(SITE);
    const admission = cookies.find((c) => c.name === `anteroom_admission_${event}`);
    assert.ok(admission, JSON.stringify(cookies.map((c) => c.name)));
    const own = `anteroom_admission_${event}=${admission.value}`;
    assert.equal((await site('/shop/seat/4', own)).status, 200);

    const other = await gatedEvent('Another night', { protect: [] });
    const { answer: foreign } = await apiBuyer(other);
    const { epoch } = (await admin('GET', `/api/events/${event}`)).room;
    const [head, , sig] = admission.value.split('.');
    for (const [what, cookie] of [
      ['no admission', undefined],
      ['a forged one', `anteroom_admission_${event}=${head}.e30.${sig}`],
      ["another event's", `anteroom_admission_${event}=${foreign.admission_token}`],
      ['an expired one', `anteroom_admission_${event}=${expiredToken(event, buyer, epoch)}`],
    ]) {
      const r = await site('/shop/seat/4', cookie);
      assert.equal(r.status, 302, what);
      assert.equal(r.headers.get('location'), `${SITE}/events/${event}?return=%2Fshop%2Fseat%2F4`, what);
    }

    // The site reports the buyer done: the gate closes for them at once.
    const r = await fetch(`${BASE}/api/events/${event}/admissions/done`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ sub: buyer }),
    });
    assert.equal(r.status, 204);
    assert.equal((await site('/shop/seat/4', own)).status, 302);
  } finally {
    await browser.close();
  }
});

test('every spelling of a protected path is sent to the room, and an unknown host is refused', async () => {
  const event = await gatedEvent('Spelling night');
  const { port } = new URL(SITE);
  const { answer } = await apiBuyer(event);
  const own = `anteroom_admission_${event}=${answer.admission_token}`;
  for (const [host, path] of [
    [`127.0.0.1:${port}`, '/shop/x'],
    [`127.0.0.1.:${port}`, '/shop/x'],
    [`127.0.0.1:${port}`, '/%73hop/x'],
    [`127.0.0.1:${port}`, '//shop/x'],
    [`127.0.0.1:${port}`, '/x/../shop/x'],
    [`127.0.0.1:${port}`, '/shop/./x'],
  ]) {
    const refused = await raw(path, host);
    assert.equal(refused.status, 302, `${host} ${path}: to the room, not the site`);
    assert.match(refused.location ?? '', /\/events\/[^/?]+\?return=/, `${host} ${path}`);
    // With the admission the gate lets it through to the site (which serves its own
    // spelling of the path, or answers 404 for one it does not route).
    const passed = await raw(path, host, own);
    assert.ok([200, 404].includes(passed.status), `${host} ${path} with the admission: ${passed.status}`);
  }
  // A path that does not normalise cleanly is refused even with the admission.
  assert.equal((await raw('/shop/a%2Fb', `127.0.0.1:${port}`, own)).status, 302);
  // A host the gate's nginx does not serve reaches neither the site nor the room.
  assert.equal((await raw('/shop/x', `shop.evil.test:${port}`, own)).status, 421);
});

test('a hand-over admits once, through the gate or redeemed by the site', async () => {
  const event = await gatedEvent('Hand-over night');
  // A buyer arriving from a room on another host: no cookie here, the token in the address.
  const { answer } = await apiBuyer(event);
  const landing = new URL(answer.handoff_url);
  assert.equal(landing.origin, SITE);
  const first = await site(`${landing.pathname}${landing.search}`);
  assert.equal(first.status, 200);
  assert.match(first.headers.get('set-cookie') ?? '', new RegExp(`^anteroom_admission_${event}=`));
  const copied = await site(`${landing.pathname}${landing.search}`);
  assert.equal(copied.status, 302, 'a copied link admits nobody');

  // The site redeems another buyer's hand-over itself, once.
  const { answer: second } = await apiBuyer(event);
  const token = new URL(second.handoff_url).searchParams.get('anteroom_token');
  const redeem = () => fetch(`${SITE}/api/handoff/redeem`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }),
  });
  const redeemed = await redeem();
  assert.equal(redeemed.status, 200);
  assert.equal((await redeemed.json()).evt, event);
  assert.equal((await redeem()).status, 409);
});

test('a slow site lowers the automatic rate, and the operator is told why', async () => {
  const event = await gatedEvent('Probed night', {
    auto_rate: true, admit_rate_per_second: 50, min_admit_rate_per_second: 5,
    max_admit_rate_per_second: 100, target_hold_p99_ms: 100, origin_probe_url: `${ORIGIN}/health`,
  });
  await fetch(`${ORIGIN}/slow?ms=400`, { method: 'POST' });
  try {
    const until = Date.now() + 30_000;
    let stats;
    do {
      await new Promise((r) => setTimeout(r, 500));
      stats = await admin('GET', `/api/admin/events/${event}/stats`);
    } while (!(stats.admit_rate_per_second < 50 && /the site answered/.test(stats.rate_reason)) && Date.now() < until);
    assert.ok(stats.admit_rate_per_second < 50, JSON.stringify(stats.admit_rate_per_second));
    assert.match(stats.rate_reason, /the site answered in \d+ ms against a 100 ms target/);
  } finally {
    await fetch(`${ORIGIN}/slow?ms=0`, { method: 'POST' });
  }
});
