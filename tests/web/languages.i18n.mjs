// The pages in Polish and Hungarian (and English still, in the other
// browser tests). A browser whose language is Polish signs up and gets Polish
// pages (and the preference stored); players who chose Polish play Korpalski by
// typing the inventor's Polish notation and by keyboard alone; Hungarian players
// play Glinski typed with Hungarian letters; the learn pages take a move and the
// study board replays the inventor's game from Polish notation and a Bóly 1981
// game. On every page visited: <html lang>, no English text of the catalogs
// left in sight, and no axe-core violation.
//
// Expected words are written here by hand (Polish and Hungarian as a reader says
// them), the moves come from the published records (tests/data, web/assets/examples)
// and the notation letters from docs/rules (K H W G S; K V B F H).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, useStage, person, signIn as signInWith, axeViolations } from './harness.mjs';

const TIMEOUT = 15000;
const PASSWORD = 'a long enough password';
const DATA = path.join(REPO, 'tests', 'data');

let korpd, browser;
const catalogs = {};

const stage = useStage(async () => {
  ({ korpd, browser } = stage);
  for (const lang of ['pl', 'hu']) {
    const r = await fetch(`${korpd.base}/assets/i18n/${lang}.json`);
    assert.equal(r.status, 200, `the ${lang} catalog is served`);
    catalogs[lang] = await r.json();
    assert.ok(Object.keys(catalogs[lang]).length > 400, `${lang}: a whole catalog`);
  }
});

/* English catalog texts still in sight: text nodes and labels that are a msgid
 * whose translation differs. */
async function englishLeft(page, lang) {
  const shown = await page.evaluate(() => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('script, style, [hidden], svg text')) continue;
      const s = n.textContent.trim();
      if (s) out.push(s);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      for (const a of ['aria-label', 'title', 'placeholder']) if (el.getAttribute(a)) out.push(el.getAttribute(a).trim());
    }
    out.push(document.title.replace(/ · korp$/, ''));
    return out;
  });
  const cat = catalogs[lang];
  return [...new Set(shown.filter(s => cat[s] !== undefined && cat[s] !== s))];
}

/* The checks every page gets: its language, its words, its accessibility. */
async function checkPage(p, lang, what) {
  assert.equal(await p.page.evaluate(() => document.documentElement.lang), lang, `${what}: <html lang>`);
  assert.deepEqual(await englishLeft(p.page, lang), [], `${what}: English left on a ${lang} page`);
  assert.deepEqual(await axeViolations(p.page), [], `${what}: axe-core`);
}

async function apiPlayer(name, language) {
  const made = await stage.call('POST', '/v1/players', null, { name, password: PASSWORD });
  await stage.call('PUT', '/v1/players/me/notifications', made.token, { language });
  return made;
}

const signIn = (p, name) => signInWith(p, name, PASSWORD, TIMEOUT);

/*
 * A game of VARIANT between two new players who chose LANGUAGE, each signed in
 * on the game's page in a browser of LOCALE (Chromium's own when not given),
 * White's page at the start: { game, w, b }.
 */
async function playing(variant, [whiteName, blackName], language, locale) {
  const white = await apiPlayer(whiteName, language);
  const black = await apiPlayer(blackName, language);
  const ch = await stage.call('POST', '/v1/challenges', white.token,
    { variant, opponent: black.id, color: 'white', days_per_move: null });
  const { game } = await stage.call('POST', `/v1/challenges/${ch.id}/accept`, black.token);
  const w = await person(browser, korpd.base, whiteName, locale ? { locale } : {});
  const b = await person(browser, korpd.base, blackName, locale ? { locale } : {});
  await signIn(w, whiteName);
  await signIn(b, blackName);
  await w.page.goto(`/games/${game.id}`);
  await b.page.goto(`/games/${game.id}`);
  await waitPly(w, 0);
  return { game, w, b };
}

async function waitPly(p, ply) {
  await p.page.locator(`#board[data-ply="${ply}"]`).waitFor({ timeout: TIMEOUT });
}

// A typed move is shown first; Enter again (on the focused confirm button) sends it.
async function typeMove(p, text, ply) {
  await p.page.fill('#move-input', text);
  await p.page.press('#move-input', 'Enter');
  await p.page.locator('#move-confirm-ok:focus').waitFor({ timeout: TIMEOUT });
  await p.page.keyboard.press('Enter');
  await waitPly(p, ply);
}

test('a Polish browser signs up in Polish, and the language is stored', async () => {
  const p = await person(browser, korpd.base, 'pl-visitor', { locale: 'pl-PL' });
  await p.page.goto('/');
  await p.page.locator('h1:text("Szachy korespondencyjne po polsku")').waitFor({ timeout: TIMEOUT });
  await checkPage(p, 'pl', 'the front page, signed out');
  await p.page.goto('/signup');
  await p.page.locator('h1:text("Załóż konto")').waitFor({ timeout: TIMEOUT });
  await checkPage(p, 'pl', 'sign-up');
  await p.page.fill('#name', 'jadwiga');
  await p.page.fill('#password', PASSWORD);
  await p.page.click('form.auth-form button[type=submit]');
  await p.page.locator('.nav-me').waitFor({ timeout: TIMEOUT });
  await p.page.locator('nav a:text("Moje partie")').waitFor({ timeout: TIMEOUT });
  const prefs = await p.page.evaluate(() => fetch('/v1/players/me/notifications').then(r => r.json()));
  assert.equal(prefs.language, 'pl');
  await checkPage(p, 'pl', 'my games');

  // The switch in the footer: Hungarian, stored for the player, kept on reload.
  await p.page.selectOption('#language', 'hu');
  await p.page.locator('nav a:text("Játszmáim")').waitFor({ timeout: TIMEOUT });
  await p.page.reload();
  await p.page.locator('nav a:text("Játszmáim")').waitFor({ timeout: TIMEOUT });
  assert.equal(await p.page.evaluate(() => document.documentElement.lang), 'hu');
  const after = await p.page.evaluate(() => fetch('/v1/players/me/notifications').then(r => r.json()));
  assert.equal(after.language, 'hu');
  await p.page.goto('/settings');
  await p.page.locator('#notifications-form').waitFor({ timeout: TIMEOUT });
  await checkPage(p, 'hu', 'settings');
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('Korpalski in Polish: the inventor\'s notation typed, moves by keyboard, said in Polish', async () => {
  // An English browser: the players' Polish preference wins.
  const { w, b } = await playing('korpalski', ['boleslaw', 'mieszko'], 'pl', 'en-US');
  await waitPly(b, 0);
  await w.page.locator('#game-status:text("Twój ruch")').waitFor({ timeout: TIMEOUT });
  await checkPage(w, 'pl', 'a game');

  // The inventor's game as published (tests/data/inventor-sample-polish.txt):
  // 1.K/c3 K/f2 2.H/g4 S/e5 3.Hf5+, typed as written.
  const published = fs.readFileSync(path.join(DATA, 'inventor-sample-polish.txt'), 'utf8')
    .split('\n').filter(l => !l.startsWith('#')).join(' ')
    .split(/\s+/).filter(x => x && !/^\d+\.$/.test(x)).map(x => x.replace(/^\d+\./, ''));
  assert.deepEqual(published.slice(0, 5), ['K/c3', 'K/f2', 'H/g4', 'S/e5', 'Hf5+']);
  await typeMove(w, published[0], 1);
  await b.page.locator('.board-announce:text("Białe stawiają króla na c3")').waitFor({ timeout: TIMEOUT });

  // Black's king by keyboard alone: the reserve's king with Enter, Shift+Tab
  // to the board (Black plays from the bottom: the reserve is below it),
  // arrows to f2, Enter.
  await waitPly(b, 1);
  const page = b.page;
  await page.locator('[data-reserve="black-k"]:not([disabled])').waitFor({ timeout: TIMEOUT });
  await page.focus('[data-reserve="black-k"]');
  await page.keyboard.press('Enter');
  await page.locator('[data-reserve="black-k"][aria-pressed="true"]').waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Shift+Tab');
  await page.waitForFunction(() => !!document.activeElement?.closest?.('[data-cell]'), null, { timeout: TIMEOUT });
  const focused = () => page.evaluate(() => document.activeElement?.closest?.('[data-cell]')?.dataset.cell || null);
  let at = await focused();
  // Black at the bottom: right is down a file, up is down a rank.
  const files = 'abcdefgh';
  for (let guard = 0; guard < 20 && at !== 'f2'; guard++) {
    const df = files.indexOf('f') - files.indexOf(at[0]), dr = 2 - Number(at[1]);
    const key = df !== 0 ? (df > 0 ? 'ArrowLeft' : 'ArrowRight') : (dr > 0 ? 'ArrowDown' : 'ArrowUp');
    await page.keyboard.press(key);
    const next = await focused();
    if (next === at) {   // the board's arrows turn with it: try the other way once
      await page.keyboard.press({ ArrowLeft: 'ArrowRight', ArrowRight: 'ArrowLeft', ArrowUp: 'ArrowDown', ArrowDown: 'ArrowUp' }[key]);
    }
    at = await focused();
  }
  assert.equal(at, 'f2');
  await page.keyboard.press('Enter');
  // The move is shown; the focus is on its confirm button: Enter sends it.
  await page.locator('#move-confirm-ok:focus').waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Enter');
  await waitPly(b, 2);
  await w.page.locator('.board-announce:text("Czarne stawiają króla na f2")').waitFor({ timeout: TIMEOUT });

  await typeMove(w, published[2], 3);
  await waitPly(b, 3);
  await typeMove(b, published[3], 4);
  await waitPly(w, 4);
  // A refused move says why in Polish (the problem's reason, drop-gives-check):
  // a rook dropped on f8 would check the king on f2 down the empty f-file.
  w.allow(/status of 422/);
  await w.page.fill('#move-input', 'W/f8');
  await w.page.press('#move-input', 'Enter');
  await w.page.locator('#game-message:text("Postawienie bierki nigdy nie może dawać szacha.")').waitFor({ timeout: TIMEOUT });
  await typeMove(w, published[4], 5);
  // Shown in the inventor's notation (the Polish default), as published.
  await b.page.locator('#move-list [data-ply="5"]').waitFor({ timeout: TIMEOUT });
  const shown = await b.page.locator('#move-list .move').allTextContents();
  assert.deepEqual(shown, published.slice(0, 5));
  await b.page.locator('#game-status:text("Twój ruch (szach)")').waitFor({ timeout: TIMEOUT });
  await checkPage(b, 'pl', 'a game in check');
  assert.deepEqual([...w.errors, ...b.errors], []);
  await w.context.close();
  await b.context.close();
});

test('Glinski in Hungarian: Hungarian letters typed and shown, the game page in Hungarian', async () => {
  const { w, b } = await playing('glinski', ['zoltan', 'ilona'], 'hu');
  await w.page.locator('#game-status:text("Te lépsz")').waitFor({ timeout: TIMEOUT });
  await checkPage(w, 'hu', 'a Glinski game');
  // Glinski's fool's mate (tests/data/glinski/FoolsMate.pgn: 1. Qe1c3 Qe10c6
  // 2. b1b2 b7b6 3. Bf3b1 e7e6 4. Qc3xBf9#) with Hungarian letters: V vezér, F futó.
  const moves = ['Vc3', 'Vc6', 'b2', 'b6', 'Ff3b1', 'e6', 'Vxf9#'];
  for (let i = 0; i < moves.length; i++) {
    const p = i % 2 === 0 ? w : b;
    await waitPly(p, i);
    await typeMove(p, moves[i], i + 1);
  }
  await b.page.locator('#game-status:text("Vége a játszmának: 1-0 (matt)")').waitFor({ timeout: TIMEOUT });
  const shown = await b.page.locator('#move-list .move').allTextContents();
  assert.deepEqual(shown, ['Vc3', 'Vc6', 'b2', 'b6', 'Fb1', 'e6', 'Vxf9#']);
  await checkPage(b, 'hu', 'a finished Glinski game');
  assert.deepEqual([...w.errors, ...b.errors], []);
  await w.context.close();
  await b.context.close();
});

test('learn and study in Polish and Hungarian: a try on a lesson, the published games replayed', async () => {
  const pl = await person(browser, korpd.base, 'pl-learner', { locale: 'pl-PL' });
  await pl.page.goto('/learn/korpalski');
  await pl.page.locator('#example-games').waitFor({ timeout: TIMEOUT });
  await pl.page.locator('h1:text("Poznaj: Szachy Korpalskiego")').waitFor({ timeout: TIMEOUT });
  const lesson = pl.page.locator('#lesson-kings-first');
  await lesson.locator('.lesson-board[data-ready="true"]').waitFor({ timeout: TIMEOUT });
  await lesson.locator('[data-reserve="white-k"]').click();
  await lesson.locator('[data-cell="e4"]').click();
  // The king's drop in the inventor's notation, then whose move it is.
  await lesson.locator('.lesson-said:text("K/e4: Ruch: Czarne.")').waitFor({ timeout: TIMEOUT });
  await checkPage(pl, 'pl', 'learn Korpalski');
  await pl.page.goto('/learn/glinski');
  await pl.page.locator('#lesson-stalemate .lesson-board[data-ready="true"]').waitFor({ timeout: TIMEOUT });
  await checkPage(pl, 'pl', 'learn Glinski');

  // The inventor's game pasted in his own notation replays to its mate.
  await pl.page.goto('/study');
  const polish = fs.readFileSync(path.join(DATA, 'inventor-sample-polish.txt'), 'utf8')
    .split('\n').filter(l => !l.startsWith('#')).join('\n');
  await pl.page.fill('#study-text', polish);
  await pl.page.click('#study-load');
  await pl.page.locator('#study-status:text("Mat")').waitFor({ timeout: TIMEOUT });
  // 56 plies, the last shown as published: 28...H:b2X.
  assert.equal(await pl.page.locator('#study-moves li').last().textContent(), 'H:b2X');
  await checkPage(pl, 'pl', 'study');

  const hu = await person(browser, korpd.base, 'hu-learner', { locale: 'hu-HU' });
  await hu.page.goto('/study?variant=glinski&example=glinski-1981-falusi-somogyi.pgn');
  await hu.page.locator('#study-status:text("Matt")').waitFor({ timeout: TIMEOUT });
  await checkPage(hu, 'hu', 'study, a Glinski game');
  await hu.page.goto('/learn/glinski');
  const rook = hu.page.locator('#lesson-rook');
  await rook.locator('.lesson-board[data-ready="true"]').waitFor({ timeout: TIMEOUT });
  await rook.locator('[data-cell="f6"]').click();
  await rook.locator('[data-cell="f10"]').click();
  // A rook move with the Hungarian letter B (bástya).
  await rook.locator('.lesson-said:text("Bf10")').waitFor({ timeout: TIMEOUT });
  await checkPage(hu, 'hu', 'learn Glinski');
  assert.deepEqual([...pl.errors, ...hu.errors], []);
  await pl.context.close();
  await hu.context.close();
});

// docs/web/: the learn and study pages in each language (small: one viewport each).
test('screenshots of the learn and study pages in English, Polish and Hungarian', async () => {
  const out = process.env.KORP_WEB_OUT || '/tmp';
  for (const [lang, locale] of [['en', 'en-US'], ['pl', 'pl-PL'], ['hu', 'hu-HU']]) {
    const p = await person(browser, korpd.base, `shots-${lang}`, { locale, width: 900, height: 640 });
    for (const variant of ['korpalski', 'glinski']) {
      await p.page.goto(`/learn/${variant}`);
      await p.page.locator('#example-games').waitFor({ timeout: TIMEOUT });
      await p.page.locator('.lesson-board[data-ready="true"]').first().waitFor({ timeout: TIMEOUT });
      assert.equal(await p.page.evaluate(() => document.documentElement.lang), lang);
      await p.page.screenshot({ path: path.join(out, `learn-${variant}-${lang}.png`) });
    }
    await p.page.goto('/study?variant=korpalski&example=inventor-sample.pgn');
    await p.page.locator('#study-moves li').last().waitFor({ timeout: TIMEOUT });
    await p.page.locator('#study-status:text-matches("Checkmate|Mat", "")').waitFor({ timeout: TIMEOUT });
    await p.page.screenshot({ path: path.join(out, `study-${lang}.png`) });
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});
