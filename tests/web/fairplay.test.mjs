// Fair-play reviews on the arbiter's page in a real browser: each review
// shows the player, the figures that put them on the queue and, per game
// judged, the player's own figures of that game's analysis; the fair-play
// list puts the players of a variant in order with their figures; the
// arbiter warns, closes the account for rated play or dismisses, from the
// page; the page has no axe-core violation.
//
// The figures are written straight into the store as the analysis writes
// them (the analysis itself is tested in tests/server/test_fairplay.py), so
// what the page must show is known beforehand: a share of 0.95 is "95%", an
// average loss of 3.5 centipawns "3.5", a median of 42 seconds "42 s".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { axeViolations, newGame, signedIn, useStage } from './harness.mjs';
import { createArbiter } from './roles.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;
const world = {};

function psql(sql) {
  const r = spawnSync('psql', [stage.pg.url, '-Atqc', sql], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/* A finished rated game of cheat's with its analysis stored: cheat's side
 * at `figures` [moves, top1, top3, acpl, median seconds], the other side
 * far from the engine. */
async function analysedGame(cheatWhite, figures) {
  const [white, black] = cheatWhite ? [world.cheat, world.honest] : [world.honest, world.cheat];
  const id = await newGame(stage.call, white, black);
  await stage.call('POST', `/v1/games/${id}/resign`, world.honest.token);
  const other = [18, 0.4, 0.7, 55.5, 600];
  const [w, b] = cheatWhite ? [figures, other] : [other, figures];
  const side = s => `${s[0]}, ${s[1]}, ${s[2]}, ${s[3]}, ${s[4]}, 0, 1`;
  psql('DELETE FROM fairplay_queue; INSERT INTO fairplay_results (game_id, nodes, white_moves,'
    + ' white_top1, white_top3, white_acpl, white_median_seconds, white_spread_seconds,'
    + ' white_under_minute, black_moves, black_top1, black_top3, black_acpl,'
    + ' black_median_seconds, black_spread_seconds, black_under_minute, analysed_at)'
    + ` VALUES ('${id}', 10000, ${side(w)}, ${side(b)}, now())`);
  return id;
}

/* A fair-play review of cheat over `games`, as the analysis writes one. */
function review(games, top1, acpl) {
  const id = `Fp${Math.random().toString(36).slice(2, 10)}`;
  const details = JSON.stringify({ variant: 'korpalski', player_id: world.cheat.id, games, moves: 20, top1, acpl });
  psql('INSERT INTO arbiter_queue (id, kind, game_id, player_id, details, created_at)'
    + ` VALUES ('${id}', 'fairplay-review', '${games[0]}', '${world.cheat.id}', '${details}', now())`);
  return id;
}

const stage = useStage(async () => {
  for (const name of ['cheat', 'honest'])
    world[name] = await stage.call('POST', '/v1/players', null, { name, password: PASSWORD });
  world.sedzia = await createArbiter(stage.korpd.base, stage.pg.url, 'sedzia', PASSWORD);
}, { KORP_FAIRPLAY_WORKERS: '0' });

test('the arbiter page shows a fair-play review with its figures, and warns, closes and dismisses from it', async () => {
  const first = await analysedGame(true, [20, 0.95, 1, 3.5, 42]);
  // Two of cheat's moves (White's) judged beside the engine's, and one of the other side's.
  psql('INSERT INTO fairplay_moves (game_id, ply, side, played, engine, top3, loss) VALUES'
    + ` ('${first}', 9, 'white', 'K@e4', 'K@e4', true, 0), ('${first}', 10, 'black', 'K@e5', 'Q@d4', false, 80),`
    + ` ('${first}', 11, 'white', 'Q@d5', 'Q@c6', true, 12)`);
  const second = await analysedGame(false, [16, 0.875, 0.9375, 6, 75]);
  const warned = review([first], 0.95, 3.5);
  const closed = review([second, first], 0.916, 4.6);
  const dismissed = review([first], 0.95, 3.5);
  const playing = await newGame(stage.call, world.cheat, world.honest);

  const sedzia = await signedIn(stage.browser, stage.korpd.base, 'sedzia', PASSWORD);
  const page = sedzia.page;
  try {
    await page.goto('/arbiter');
    const card = id => page.locator(`.review-item[data-id="${id}"]`);
    for (const id of [warned, closed, dismissed])
      await page.locator(`.review-item[data-id="${id}"][data-ready="true"]`).waitFor({ timeout: TIMEOUT });

    // The figures that put the player on the queue, and each game's own.
    const c = card(closed);
    assert.match(await c.locator('h2').innerText(), /Fair-play review/);
    assert.equal(await c.locator('.review-top1').innerText(), '92%');
    assert.equal(await c.locator('.review-acpl').innerText(), '4.6');
    assert.match(await c.locator('.review-figures').innerText(), /cheat · Korpalski/);
    assert.equal(await c.locator('.review-player a[href^="/players/"]').innerText(), 'cheat');
    const cells = async game => c.locator(`tr[data-game="${game}"] td`).allInnerTexts();
    assert.deepEqual(await cells(first), ['20', '95%', '100%', '3.5', '42 s', '2 moves']);
    assert.deepEqual(await cells(second), ['16', '88%', '94%', '6.0', '75 s', '0 moves']);
    // The player's moves beside the engine's: the same one marked, the other's moves left out.
    await c.locator(`tr[data-game="${first}"] details summary`).click();
    const moves = c.locator(`tr[data-game="${first}"] details li`);
    assert.deepEqual(await moves.allInnerTexts(),
      ['played K@e4, the engine K@e4, 0 lost', 'played Q@d5, the engine Q@c6, 12 lost']);
    assert.deepEqual(await moves.evaluateAll(lis => lis.map(li => [li.value, li.className])),
      [[9, 'same'], [11, 'other']]);
    assert.deepEqual(await c.locator('tbody tr').evaluateAll(rows => rows.map(r => r.dataset.game)), [second, first]);
    assert.equal(await c.locator(`a[href="/games/${second}"]`).count(), 1);
    // The fair-play list: cheat above honest, over their two Korpalski games.
    await page.locator('.fairplay-list[data-ready="true"]').waitFor({ timeout: TIMEOUT });
    const listed = await page.locator('#fairplay-players tbody tr').evaluateAll(rows => rows.map(r => r.dataset.player));
    assert.deepEqual(listed, [world.cheat.id, world.honest.id]);
    const row = async who => page.locator(`#fairplay-players tr[data-player="${who}"] > *`).allInnerTexts();
    // cheat: (20 x 0.95 + 16 x 0.875) / 36 = 0.917 first choices, (20 x 1 + 16 x 0.9375) / 36
    // = 0.972 in the first three, (20 x 3.5 + 16 x 6) / 36 = 4.6 centipawns; above the other.
    assert.deepEqual(await row(world.cheat.id), ['cheat', '2', '92%', '92%', '92%', '97%', '4.6', '100%']);
    assert.deepEqual(await row(world.honest.id), ['honest', '2', '40%', '40%', '40%', '70%', '55.5', '0%']);
    await page.selectOption('#fairplay-variant', 'glinski');
    await page.locator('#fairplay-players td[colspan]').waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await axeViolations(page), []);
    await page.selectOption('#fairplay-variant', 'korpalski');
    await page.locator(`#fairplay-players tr[data-player="${world.cheat.id}"]`).waitFor({ timeout: TIMEOUT });

    // Warn: the item leaves the queue, the player reads the message.
    await page.fill(`#warn-reason-${warned}`, 'top1 0.95 over 1 game');
    await page.fill(`#warn-message-${warned}`, 'Engines are forbidden in rated games.');
    await card(warned).locator('button.warn').click();
    await card(warned).waitFor({ state: 'detached', timeout: TIMEOUT });
    const warnings = (await stage.call('GET', '/v1/players/me/warnings', world.cheat.token)).warnings;
    assert.deepEqual(warnings.map(w => [w.action, w.message]), [['warn', 'Engines are forbidden in rated games.']]);

    // Close for rated play: the game in play is forfeited, the closure logged with its item.
    await page.locator(`.review-item[data-id="${closed}"][data-ready="true"]`).waitFor({ timeout: TIMEOUT });
    await page.fill(`#close-reason-${closed}`, 'top1 0.92 over 2 games');
    await page.fill(`#close-message-${closed}`, 'Your account is closed for rated play.');
    await page.selectOption(`#close-games-${closed}`, 'forfeit');
    await card(closed).locator('button.close').click();
    await card(closed).waitFor({ state: 'detached', timeout: TIMEOUT });
    const g = await stage.call('GET', `/v1/games/${playing}`);
    assert.deepEqual([g.status, g.termination, g.result, g.rated], ['finished', 'forfeit', '0-1', false]);
    const log = (await stage.call('GET', '/v1/arbiter/log', world.sedzia.token)).entries;
    assert.deepEqual([log[0].action, log[0].item_id, log[0].player.name], ['close', closed, 'cheat']);

    // Dismiss: logged too.
    await page.locator(`.review-item[data-id="${dismissed}"][data-ready="true"]`).waitFor({ timeout: TIMEOUT });
    await page.fill(`#dismiss-reason-${dismissed}`, 'answered by the closure');
    await card(dismissed).locator('button.dismiss').click();
    await card(dismissed).waitFor({ state: 'detached', timeout: TIMEOUT });
    const after = (await stage.call('GET', '/v1/arbiter/log', world.sedzia.token)).entries;
    assert.deepEqual([after[0].action, after[0].item_id, after[0].reason], ['dismiss', dismissed, 'answered by the closure']);
    assert.deepEqual(sedzia.errors, []);
  } finally { await sedzia.context.close(); }
});
