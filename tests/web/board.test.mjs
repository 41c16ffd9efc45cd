// End-to-end tests of korpd's web pages in a real browser (Debian's
// Chromium through playwright-core), against a real korpd and PostgreSQL.
//
//   tests/web/run.sh build/korpd/korpd [screenshot folder]
//   (or: KORPD=build/korpd/korpd node --test tests/web/)
//
// KORP_WEB_OUT: where the screenshots go (default: $TMPDIR/korp-web-output).
// KORP_WEB_DIR is passed on to korpd when set (serve web/ from disk).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, useStage, person } from './harness.mjs';

const OUT = process.env.KORP_WEB_OUT || path.join(os.tmpdir(), 'korp-web-output');
const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser;
const people = [];

useStage(stage => {
  fs.mkdirSync(OUT, { recursive: true });
  ({ korpd, browser } = stage);
});

async function newPerson(name, opts) {
  const p = await person(browser, korpd.base, name, opts);
  people.push(p);
  return p;
}

function assertNoErrors(...ps) {
  const errors = ps.flatMap(p => p.errors);
  assert.deepEqual(errors, [], 'console errors, page errors or CSP violations');
}

async function signUp(p, name) {
  const { page } = p;
  await page.goto('/signup');
  await page.fill('#name', name);
  await page.fill('#password', PASSWORD);
  await page.click('form.auth-form button[type=submit]');
  await page.locator('.nav-me').filter({ hasText: name }).waitFor({ timeout: TIMEOUT });
}

async function waitPly(ps, ply) {
  for (const p of ps) {
    await p.page.locator(`#board[data-ply="${ply}"]`).waitFor({ timeout: TIMEOUT });
  }
}

async function legalUci(gameId, san) {
  const r = await (await fetch(`${korpd.base}/v1/games/${gameId}/legal-moves`)).json();
  const bare = s => s.replace(/[+#]$/, '');
  const m = r.moves.find(x => bare(x.san) === bare(san) || x.uci === san);
  assert.ok(m, `${san} is not among the legal moves`);
  return m.uci;
}

/*
 * Plays a move in UCI style on `p`'s board with the mouse: by clicking
 * (style 'click') or dragging (style 'drag'); drops come from the reserve;
 * then confirms it (the page shows a move first and sends it on confirm).
 * Returns the promotion options offered, if any.
 */
async function playOnBoard(p, color, uci, style) {
  const { page } = p;
  const drop = /^([KQRBNP])@(\w+)$/.exec(uci);
  const mv = /^([a-l]\d{1,2})([a-l]\d{1,2})([qrbn])?$/.exec(uci);
  const cell = c => page.locator(`[data-cell="${c}"]`);
  const src = drop ? page.locator(`[data-reserve="${color}-${drop[1].toLowerCase()}"]`) : cell(mv[1]);
  const dst = cell(drop ? drop[2] : mv[2]);
  if (style === 'drag') {
    await src.dragTo(dst);
  } else {
    await src.click();
    await dst.click();
  }
  if (mv && mv[3]) {
    const chooser = page.locator('.promo-chooser:not([hidden])');
    await chooser.waitFor({ timeout: TIMEOUT });
    const offered = await chooser.locator('[data-promo]').evaluateAll(bs => bs.map(b => b.dataset.promo));
    // The prison as the page shows it, read before the move changes it.
    const prison = await page.locator(`[data-prison^="${color}-"]`).evaluateAll(
      els => els.map(e => e.dataset.prison.split('-')[1]).filter(t => t !== 'p'));
    await chooser.locator(`[data-promo="${mv[3]}"]`).click();
    await page.locator('#move-confirm-ok').click({ timeout: TIMEOUT });
    return { offered, prison };
  }
  await page.locator('#move-confirm-ok').click({ timeout: TIMEOUT });
  return null;
}

async function shot(p, name) {
  await p.page.screenshot({ path: path.join(OUT, name), fullPage: true });
}

async function noHorizontalScroll(p) {
  const [sw, cw] = await p.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(sw <= cw, `page is wider than the screen: ${sw} > ${cw}`);
}

function readInventorGame() {
  const tsv = fs.readFileSync(path.join(REPO, 'tests', 'data', 'inventor-sample.fens.tsv'), 'utf8').trim().split('\n').slice(1);
  return tsv.map(line => { const [ply, san, uci, fen] = line.split('\t'); return { ply: Number(ply), san, uci, fen }; });
}

test('Korpalski: sign up, challenge, accept, and the inventor\'s game to mate by clicks and drags', async () => {
  const anna = await newPerson('anna');
  const bolek = await newPerson('bolek');
  await signUp(anna, 'anna');
  await signUp(bolek, 'bolek');

  // Bolek waits on his home page; Anna finds him by a prefix and challenges him.
  await bolek.page.goto('/');
  await anna.page.goto('/new');
  await anna.page.fill('#opponent', 'bol');
  await anna.page.click('[data-player="bolek"]');
  await anna.page.selectOption('#variant', 'korpalski');
  await anna.page.selectOption('#color', 'white');
  await anna.page.click('#challenge-form button[type=submit]');
  await anna.page.locator('.message-ok').waitFor({ timeout: TIMEOUT });

  // The challenge reaches Bolek's page live (his own event stream).
  await bolek.page.locator('#incoming .accept').click({ timeout: TIMEOUT });
  await bolek.page.waitForURL(/\/games\/[A-Za-z0-9]+$/, { timeout: TIMEOUT });
  const gameId = bolek.page.url().split('/').pop();

  // And the new game reaches Anna's home page live.
  await anna.page.goto('/');
  await anna.page.locator(`#my-games [data-game="${gameId}"] a`).click({ timeout: TIMEOUT });
  await anna.page.waitForURL(`**/games/${gameId}`);

  // Someone not signed in watches on a phone-sized screen: read-only, live.
  const watcher = await newPerson('watcher', { width: 375, height: 812 });
  await watcher.page.goto(`/games/${gameId}`);
  await waitPly([anna, bolek, watcher], 0);
  assert.equal(await watcher.page.locator('#move-input').count(), 0);
  assert.equal(await anna.page.locator('#board svg.board [data-cell]').count(), 64);

  const moves = readInventorGame();
  assert.equal(moves.length, 56);
  let promotions = 0;
  for (const m of moves) {
    const white = m.ply % 2 === 1;
    const mover = white ? anna : bolek;
    const color = white ? 'white' : 'black';

    if (m.ply === 5) {
      // Before 3. Qf5+: a draw offer is refused with the Korpalski reason,
      // and an illegal typed move shows the server's detail.
      anna.allow(/status of 422 .*\/v1\/games\/\w+\/(draw|moves)\)$/);
      await anna.page.click('#draw-offer');
      await anna.page.locator('#game-message.message-error').filter({ hasText: /reserve/ }).waitFor({ timeout: TIMEOUT });
      await anna.page.fill('#move-input', 'R@f8');
      await anna.page.press('#move-input', 'Enter');
      await anna.page.locator('#game-message.message-error').filter({ hasText: 'would give check' }).waitFor({ timeout: TIMEOUT });
      assert.equal(await anna.page.locator('#board').getAttribute('data-ply'), '4');
    }

    const style = m.ply % 4 < 2 ? 'click' : 'drag';
    const promo = await playOnBoard(mover, color, m.uci, style);
    if (promo) {
      // Only the types in the mover's prison are offered (pawns never).
      assert.deepEqual([...promo.offered].sort(), [...promo.prison].sort(), `promotion choices at ply ${m.ply}`);
      promotions++;
    }
    await waitPly([anna, bolek, watcher], m.ply);
    if (m.ply === 1) {
      assert.equal(await bolek.page.locator('[data-cell="c3"]').getAttribute('aria-label'), 'c3 white king');
      assert.equal(await bolek.page.locator('[data-cell="e4"]').getAttribute('aria-label'), 'e4 empty');
      assert.match(await bolek.page.locator('[data-reserve="black-k"]').getAttribute('aria-label'), /black reserve: 1 king/);
    }
    if (m.ply === 34) {
      await shot(anna, 'korpalski-desktop-midgame.png');
      await shot(watcher, 'korpalski-375-midgame.png');
    }
  }
  assert.equal(promotions, 7, "the seven promotions go through the chooser");

  for (const p of [anna, bolek, watcher]) {
    await p.page.locator('#game-status').filter({ hasText: 'checkmate' }).waitFor({ timeout: TIMEOUT });
    assert.equal(await p.page.locator('#move-list .result').textContent(), '0-1');
  }
  // The mated king is highlighted, and the last move.
  assert.equal(await anna.page.locator('.cell.check').getAttribute('data-cell'), 'a2');
  assert.equal(await anna.page.locator('.cell.last').count(), 2);

  // The move list in the inventor's notation.
  await anna.page.selectOption('#notation', 'polish');
  const last = await anna.page.locator('#move-list .move.current').textContent();
  assert.equal(last, 'H:b2X');
  assert.equal(await anna.page.locator('#move-list [data-ply="26"]').textContent(), 'pe1=H');

  // The PGN download is korpd's record of the game.
  const [download] = await Promise.all([anna.page.waitForEvent('download'), anna.page.click('#pgn')]);
  const pgn = fs.readFileSync(await download.path(), 'utf8');
  assert.match(pgn, /\[Variant "Korpalski"\]/);
  assert.match(pgn, /28\. N@b2 Qxb2# 0-1/);

  await shot(anna, 'korpalski-desktop.png');
  await shot(watcher, 'korpalski-375.png');
  await noHorizontalScroll(watcher);
  assertNoErrors(anna, bolek, watcher);
});

test('Glinski: an open challenge, the opening moves by mouse, a typed move to mate', async () => {
  const anna = await newPerson('anna-g');
  const bolek = await newPerson('bolek-g');
  await anna.page.goto('/login');
  await anna.page.fill('#name', 'anna');
  await anna.page.fill('#password', PASSWORD);
  await anna.page.click('form.auth-form button[type=submit]');
  await anna.page.locator('.nav-me').waitFor({ timeout: TIMEOUT });
  await signUp(bolek, 'celina');

  await anna.page.goto('/new');
  await anna.page.check('#open');
  await anna.page.selectOption('#variant', 'glinski');
  await anna.page.selectOption('#color', 'white');
  await anna.page.click('#challenge-form button[type=submit]');
  await anna.page.locator('.message-ok').waitFor({ timeout: TIMEOUT });

  await bolek.page.goto('/new');
  await bolek.page.locator('#open-challenges .accept').first().click({ timeout: TIMEOUT });
  await bolek.page.waitForURL(/\/games\/[A-Za-z0-9]+$/, { timeout: TIMEOUT });
  const gameId = bolek.page.url().split('/').pop();
  await anna.page.goto(`/games/${gameId}`);
  const watcher = await newPerson('watcher-g', { width: 375, height: 812 });
  await watcher.page.goto(`/games/${gameId}`);
  await waitPly([anna, bolek, watcher], 0);

  assert.equal(await anna.page.locator('svg.board [data-cell]').count(), 91);
  assert.equal(await anna.page.locator('[data-cell="f11"]').getAttribute('aria-label'), 'f11 black bishop');
  assert.equal(await anna.page.locator('[data-cell="f6"]').getAttribute('aria-label'), 'f6 empty');
  for (const tone of ['light', 'mid', 'dark']) {
    assert.equal(await anna.page.locator(`svg.board .cell.tone-${tone}`).count() > 25, true, tone);
  }

  // Glinski's four-move mate (tests/data/glinski/FoolsMate.pgn).
  const opening = ['e1c3', 'e10c6', 'b1b2', 'b7b6', 'f3b1', 'e7e6'];
  for (let i = 0; i < opening.length; i++) {
    const white = i % 2 === 0;
    const uci = await legalUci(gameId, opening[i]);
    await playOnBoard(white ? anna : bolek, white ? 'white' : 'black', uci, i % 3 === 2 ? 'drag' : 'click');
    await waitPly([anna, bolek, watcher], i + 1);
  }
  await shot(anna, 'glinski-desktop-opening.png');
  // The last move typed, in the long form of the old game records.
  await anna.page.fill('#move-input', 'Qc3xBf9#');
  await anna.page.press('#move-input', 'Enter');
  await anna.page.locator('#move-confirm-text').filter({ hasText: 'Qxf9#' }).waitFor({ timeout: TIMEOUT });
  await anna.page.press('#move-confirm-ok', 'Enter');
  await waitPly([anna, bolek, watcher], 7);
  for (const p of [anna, bolek, watcher]) {
    await p.page.locator('#game-status').filter({ hasText: '1-0 (checkmate)' }).waitFor({ timeout: TIMEOUT });
  }
  assert.equal(await anna.page.locator('#move-list [data-ply="7"]').textContent(), 'Qxf9#');
  assert.equal(await bolek.page.locator('.cell.check').getAttribute('data-cell'), 'g10');
  await shot(anna, 'glinski-desktop.png');
  await shot(watcher, 'glinski-375.png');
  await noHorizontalScroll(watcher);
  assertNoErrors(anna, bolek, watcher);
});

test('pages: settings (token create and revoke), player page, a missing game', async () => {
  const p = await newPerson('settings');
  await signUp(p, 'dorota');
  await p.page.goto('/settings');
  await p.page.locator('#notifications-form').waitFor({ timeout: TIMEOUT });
  await p.page.check('#digest');
  await p.page.click('#notifications-form button[type=submit]');
  await p.page.locator('#notifications .message-ok').waitFor({ timeout: TIMEOUT });
  await p.page.click('#token-create');
  await p.page.locator('#new-token code').filter({ hasText: /^korp_/ }).waitFor({ timeout: TIMEOUT });
  // The sign-up's token and the new one, once the list has been read again.
  const tokens = '#token-list [data-token]';
  await p.page.waitForFunction(sel => document.querySelectorAll(sel).length >= 2, tokens,
                               { timeout: TIMEOUT });
  const before = await p.page.locator(tokens).count();
  await p.page.locator(`${tokens} button`).last().click();
  await p.page.locator('#tokens .message-ok').waitFor({ timeout: TIMEOUT });
  await p.page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length === n,
                               [tokens, before - 1], { timeout: TIMEOUT });
  assert.equal(await p.page.locator(tokens).count(), before - 1);
  await p.page.reload();
  await p.page.locator('#notifications-form').waitFor({ timeout: TIMEOUT });
  assert.equal(await p.page.isChecked('#digest'), true);

  await p.page.click('.nav-me');
  await p.page.locator('#record').waitFor({ timeout: TIMEOUT });
  p.allow(/status of 404 .*\/v1\/games\/NoSuchGame\)$/);
  await p.page.goto('/games/NoSuchGame');
  await p.page.getByRole('heading', { name: 'Game not found' }).waitFor({ timeout: TIMEOUT });
  assertNoErrors(p);
});
