// How this browser plays: preferences kept in the browser (localStorage), not
// on the server, because they are about the page, not about the player's
// games: go to the next game where it is your move after each move, and
// confirm a move before it is sent.

const NEXT = 'korp-next-after-move';
const CONFIRM = 'korp-confirm-moves';

function read(key, fallback) {
  try {
    const v = localStorage.getItem(key);
    return v === null ? fallback : v === '1';
  } catch { return fallback; }
}

function write(key, on) {
  try { localStorage.setItem(key, on ? '1' : '0'); } catch { /* storage off */ }
}

export const nextAfterMove = () => read(NEXT, false);
export const setNextAfterMove = on => write(NEXT, on);
export const confirmMoves = () => read(CONFIRM, true);
export const setConfirmMoves = on => write(CONFIRM, on);

// The games where `playerId` is to move, soonest deadline first (the server's order).
export async function moveQueue(api, q, playerId) {
  return (await api('GET', `/v1/games?to_move=${q(playerId)}&limit=100`)).games;
}
