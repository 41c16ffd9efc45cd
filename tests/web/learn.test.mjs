// The learn pages in a real browser: every lesson's board is drawn from the
// server's rules and takes moves. Counts are from the rules files by hand (or
// the independent perft counts), never from korpd: Korpalski's first move,
// 64 king drops; Black's king beside a king on e4, 64 - 9 = 55 squares; the
// king on d8 checked by the immobile pawn on e7, 5 moves (c8, e8, c7, d7, and
// taking on e7; no drop blocks a pawn's check); a pawn on e7 with a knight in
// prison promotes to a knight only; Glinski's start, 51 moves; a rook on f6,
// 30 cells (5 in each of its 6 directions). The example games open in study.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { useStage, person } from './harness.mjs';

const TIMEOUT = 15000;

let korpd, browser;
useStage(stage => ({ korpd, browser } = stage));

async function legalCount(page, lesson) {
  const board = page.locator(`#lesson-${lesson} .lesson-board[data-ready="true"]`);
  await board.waitFor({ timeout: TIMEOUT });
  return Number(await board.getAttribute('data-legal'));
}

test('the Korpalski lessons take moves by the rules', async () => {
  const p = await person(browser, korpd.base, 'learner');
  const { page } = p;
  await page.goto('/learn/korpalski');
  await page.locator('#example-games').waitFor({ timeout: TIMEOUT });   // drawn to the end
  const lessons = await page.locator('[data-lesson]').evaluateAll(els => els.map(e => e.dataset.lesson));
  assert.ok(lessons.length >= 8, lessons);
  for (const l of lessons) await legalCount(page, l);         // every position is valid
  assert.equal(await legalCount(page, 'kings-first'), 64);
  assert.equal(await legalCount(page, 'kings-apart'), 55);
  assert.equal(await legalCount(page, 'immobile-pawn'), 5);

  // Promotion with a knight in prison: the chooser offers the knight alone.
  const promo = page.locator('#lesson-promotion');
  await promo.locator('[data-cell="e7"]').click();
  await promo.locator('[data-cell="e8"]').click();
  await promo.locator('.promo-chooser:not([hidden])').waitFor({ timeout: TIMEOUT });
  const offered = await promo.locator('.promo-option').evaluateAll(els => els.map(e => e.dataset.promo));
  assert.deepEqual(offered, ['n']);
  await promo.locator('.promo-option[data-promo="n"]').click();
  await promo.locator('.lesson-said:text("e8=N")').waitFor({ timeout: TIMEOUT });
  await promo.locator('.lesson-reset').click();
  await promo.locator('.lesson-said:text("White to move")').waitFor({ timeout: TIMEOUT });

  // The example game opens on the study board and replays to its mate.
  await page.click('#example-games a');
  await page.locator('#study-status:text("Checkmate")').waitFor({ timeout: TIMEOUT });
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('the Glinski lessons take moves by the rules', async () => {
  const p = await person(browser, korpd.base, 'hexlearner');
  const { page } = p;
  await page.goto('/learn/glinski');
  await page.locator('#example-games').waitFor({ timeout: TIMEOUT });
  const lessons = await page.locator('[data-lesson]').evaluateAll(els => els.map(e => e.dataset.lesson));
  for (const l of lessons) await legalCount(page, l);
  assert.equal(await legalCount(page, 'board'), 51);
  const rook = page.locator('#lesson-rook');
  await rook.locator('[data-cell="f6"]').click();
  await rook.locator('[data-cell="f6"].selected').waitFor({ timeout: TIMEOUT });
  assert.equal(await rook.locator('.cell.target').count(), 30);
  const games = await page.locator('#example-games a').count();
  assert.equal(games, 4);
  await page.locator('#example-games a').nth(1).click();
  await page.locator('#study-status:text("Checkmate")').waitFor({ timeout: TIMEOUT });
  await page.screenshot({ path: path.join(process.env.KORP_WEB_OUT || '/tmp', 'learn-glinski-game.png') });
  assert.deepEqual(p.errors, []);
  await p.context.close();
});
