// Shared browser setup: Debian's Chromium through playwright-core, a fresh profile each time,
// and the flags this machine's closed network needs (TOOLCHAIN.md).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BASE = process.env.ANTEROOM_URL ?? 'http://127.0.0.1:3000';
export const ADMIN_KEY = process.env.ANTEROOM_ADMIN_KEY ?? '';
// Passkeys need a domain name (browsers refuse them on an IP address): the operator's pages
// are opened on localhost.
export const OPERATOR_BASE = BASE.replace('127.0.0.1', 'localhost');
export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;
mkdirSync(ARTIFACTS, { recursive: true });

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** A browser context with its own profile; `close()` removes the profile too. */
export async function openBrowser(options = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'anteroom-e2e-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ARGS,
    viewport: { width: 1024, height: 800 },
    ...options,
  });
  const consoleErrors = [];
  context.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  context.on('weberror', (err) => consoleErrors.push(String(err.error())));
  return {
    context,
    consoleErrors,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the server answers /readyz (cargo leptos end-to-end starts us at once). */
export async function waitForServer(timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const r = await fetch(`${BASE}/readyz`);
      if (r.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no server at ${BASE}`);
}

/** Calls the admin API. */
export async function admin(method, path, body) {
  const r = await fetch(`${BASE}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * A new operator of `role`, as an admin makes one from a shell (`anteroom operators add`):
 * their address and the one-time enrolment link it prints, on localhost.
 */
export function newOperator(role = 'admin') {
  const email = `op-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.org`;
  const out = execFileSync(process.env.ANTEROOM_BIN ?? '../target/release/anteroom',
    ['operators', 'add', '--email', email, '--name', `Ada ${role}`, '--role', role],
    { encoding: 'utf8' });
  const url = out.match(/(http\S+\/admin\/enrol#\S+)/)[1];
  const link = url.replace(/^http:\/\/[^/]+/, OPERATOR_BASE);
  return { email, link };
}

/** Gives `page`'s browser a passkey authenticator (Chromium's virtual one, over DevTools). */
export async function withAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/** A new operator of `role` enrols a passkey from their link in `page`: signed in after. */
export async function enrolOperator(context, page, role = 'admin') {
  const operator = newOperator(role);
  await withAuthenticator(context, page);
  await page.goto(operator.link);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.getByRole('button', { name: 'Enrol a passkey' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return operator;
}
