// The waiting room in the buyer's language (issue 37): in each of the six languages the page
// speaks, the waiting room, the seat map, the hold and the confirmation are photographed
// (end2end/artifacts/lang-<tag>-<stage>.png), have `<html lang>` (and `dir`) right, carry no
// English sentence of the message files (other than English itself), and axe-core finds no
// serious or critical violation; Arabic is mirrored while the seat map keeps the venue's own
// order; the switcher works without JavaScript and its choice is kept for the next page.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BASE, ARTIFACTS, admin, openBrowser, waitForServer } from './browser.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const LANGUAGES = ['en', 'de', 'fr', 'es', 'ja', 'ar'];
const findings = {};

/** English messages of the files without arguments and of some length: none of them may show
 * on a page in another language. */
const ENGLISH = readFileSync(new URL('../../app/locales/en.ftl', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.match(/^[a-z][a-z0-9-]* = ([^{]+)$/)?.[1]?.trim())
  .filter((text) => text && text.length >= 24);

before(async () => { await waitForServer(); });

/** An event of two seats whose own language is `language` (the pages' last resort). */
function event(name, language) {
  return admin('POST', '/api/admin/events', {
    name,
    starts_at: '2026-12-24T18:00:00Z',
    time_zone: 'Europe/Berlin',
    language,
    sections: [{ name: 'Stalls', rows: 1, seats_per_row: 2, price_cents: 123_450 }],
    room: { admit_rate_per_second: 50, tick_ms: 100, paused: true },
  });
}

/** Photographs the stage, checks the page's language and English left over, and runs axe. */
async function stage(page, lang, name) {
  await page.screenshot({ path: `${ARTIFACTS}/lang-${lang}-${name}.png`, fullPage: true });
  const html = await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));
  assert.deepEqual(html, { lang, dir: lang === 'ar' ? 'rtl' : 'ltr' }, `${lang} ${name}`);
  if (lang !== 'en') {
    const text = await page.evaluate(() => document.querySelector('main').innerText);
    const english = ENGLISH.filter((sentence) => text.includes(sentence));
    assert.deepEqual(english, [], `${lang} ${name}: English left on the page`);
  }
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  findings[`${lang} ${name}`] = result;
  writeFileSync(`${ARTIFACTS}/languages-a11y.json`, JSON.stringify(findings, null, 2));
  const serious = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${lang} ${name}: ${JSON.stringify(serious, null, 2)}`);
}

for (const lang of LANGUAGES) {
  test(`${lang}: the waiting room, the seat map, the hold and the confirmation`, async () => {
    const hall = await event(`Night in ${lang}`, lang);
    // The browser's own language (`Accept-Language`) chooses the page's.
    const browser = await openBrowser({ bypassCSP: true, viewport: { width: 390, height: 844 }, locale: lang });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${BASE}/events/${hall.id}`);
      await page.locator('.place').waitFor({ timeout: 15_000 });
      await page.waitForSelector('body[data-hydrated="true"]');
      await stage(page, lang, 'waiting');

      await admin('PUT', `/api/admin/events/${hall.id}/room`, { paused: false });
      await page.locator('[data-seat-id]').first().waitFor({ timeout: 15_000 });
      await stage(page, lang, 'seat-map');
      if (lang === 'ar') {
        // The page mirrors: the brand is on the right; the seats keep the venue's order.
        const mirrored = await page.evaluate(() => {
          const brand = document.querySelector('.brand').getBoundingClientRect();
          const seats = [...document.querySelectorAll('[data-seat-id]')].map((s) => s.getBoundingClientRect().left);
          return { brandRight: brand.left > window.innerWidth / 2, seatsInOrder: seats[0] < seats[1] };
        });
        assert.deepEqual(mirrored, { brandRight: true, seatsInOrder: true });
      }

      await page.locator('[data-seat-id] input').first().check();
      await page.locator('form.chosen-seats button[type="submit"]').click();
      await page.locator('section.hold').waitFor({ timeout: 15_000 });
      await stage(page, lang, 'hold');
      // The price in the language's own way: 1,234.50 / 1.234,50 / 1 234,50.
      const price = { en: '€1,234.50', ja: '€1,234.50', ar: '€1,234.50', de: '1.234,50\u00a0€', es: '1234,50\u00a0€', fr: '1\u202f234,50\u00a0€' }[lang];
      assert.ok((await page.locator('section.hold').textContent()).includes(price), `${lang}: ${price}`);

      await page.locator('section.hold form').first().locator('button').click();
      await page.locator('section.confirmation').waitFor({ timeout: 15_000 });
      await stage(page, lang, 'confirmation');
      assert.deepEqual(browser.consoleErrors, []);
    } finally {
      await browser.close();
    }
  });
}

test('without JavaScript, the switcher changes the language and the choice is kept', async () => {
  const hall = await event('Switcher night', 'en');
  const browser = await openBrowser({ javaScriptEnabled: false });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${BASE}/events/${hall.id}`);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    await page.locator('.languages a[hreflang="de"]').click();
    await page.waitForURL(/lang=de/);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    assert.equal(await page.locator('.languages a[aria-current="true"]').innerText(), 'Deutsch');
    // The next page, without `?lang=`, keeps the choice.
    await page.goto(`${BASE}/`);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    await page.locator('.languages a[hreflang="ar"]').click();
    await page.waitForURL(/lang=ar/);
    assert.deepEqual(
      await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]),
      ['ar', 'rtl'],
    );
  } finally {
    await browser.close();
  }
});
