// Screenshots of the game page and "My games" in Polish and Hungarian, on a
// desktop and on a phone, for docs/web/ (run by hand, not part of the suite):
//
//   KORPD=build/korpd/korpd node tests/web/screenshots.mjs [OUT_DIR]
//
// OUT_DIR defaults to docs/web.  The same throwaway PostgreSQL, korpd and
// Chromium as the browser tests (tests/web/harness.mjs); the games are made
// and played through the API, always with the first legal move korpd lists,
// so that two runs show the same positions.  The desktop game page is shot
// whole (its messages are below the fold), the rest as the screen shows them.

import path from 'node:path';
import { REPO, startStage, person, signIn } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 20000;
const VIEWS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const out = path.resolve(process.argv[2] || path.join(REPO, 'docs', 'web'));

const stage = await startStage();
const { call } = stage;

/* Plays `plies` moves in a game, each side the first legal move listed (in
 * Korpalski the first drop of a man other than the king, once the kings stand). */
async function play(gameId, players, plies) {
  for (let i = 0; i < plies; i++) {
    const g = await call('GET', `/v1/games/${gameId}`);
    const mover = players[g.to_move];
    const legal = (await call('GET', `/v1/games/${gameId}/legal-moves`, mover.token)).moves;
    const move = legal.find(m => /^[QRBNP]@/i.test(m.uci)) || legal[0];
    await call('POST', `/v1/games/${gameId}/moves`, mover.token, { move: move.uci, ply: g.ply });
  }
}

/* A game of white and black in the variant, days a move; plies played. */
async function game(variant, white, black, days, plies) {
  const c = await call('POST', '/v1/challenges', white.token, { variant, opponent: black.id, color: 'white', days_per_move: days });
  const id = (await call('POST', `/v1/challenges/${c.id}/accept`, black.token)).game_id;
  await play(id, { white, black }, plies);
  return id;
}

/* The shots of one language: its player's game with a message, and home. */
async function shoot(lang, locale, names, variant) {
  const made = [];
  for (const name of names) made.push(await call('POST', '/v1/players', null, { name, password: PASSWORD }));
  const [player, opponent, other] = made;
  await call('PUT', '/v1/players/me/notifications', player.token, { language: lang });
  // Her move in the main game (an even number of plies: White to move), a
  // message from the opponent; one more game where she waits, one where she moves.
  const main = await game(variant, player, opponent, 3, 8);
  await call('POST', `/v1/games/${main}/messages`, opponent.token, { text: lang === 'pl' ? 'Powodzenia!' : 'Sok sikert!' });
  await game(variant, player, other, 5, 2);
  await game(variant, other, player, 2, 0);
  for (const [view, size] of Object.entries(VIEWS)) {
    const p = await person(stage.browser, stage.korpd.base, `${lang}-${view}`, { locale });
    await signIn(p, player.name, PASSWORD, TIMEOUT);
    await p.page.setViewportSize(size);
    await p.page.goto('/');
    await p.page.locator('#your-move [data-game]').first().waitFor({ timeout: TIMEOUT });
    await p.page.screenshot({ path: path.join(out, `my-games-${lang}-${view}.png`) });
    await p.page.goto(`/games/${main}`);
    await p.page.locator('#board[data-ply="8"]').waitFor({ timeout: TIMEOUT });
    await p.page.locator('#messages .msg-black').waitFor({ timeout: TIMEOUT });
    await p.page.screenshot({ path: path.join(out, `game-${lang}-${view}.png`), fullPage: view === 'desktop' });
    if (p.errors.length) console.warn(`${lang} ${view}:`, p.errors);
    await p.context.close();
  }
}

try {
  await shoot('pl', 'pl-PL', ['ola', 'jan', 'kuba'], 'korpalski');
  await shoot('hu', 'hu-HU', ['gyozo', 'odon', 'zsofi'], 'glinski');
  console.log(`screenshots in ${out}`);
} finally {
  await stage.close();
}
