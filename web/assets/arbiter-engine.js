// The engine's evaluation of a position for the arbiter's page: POST
// /v1/analyse (one line, a second of thought), written as
// "engine: +0.35 (depth 12): Qh5+ Kg8 …". Any failure (no such endpoint,
// 429, 503) reads "engine evaluation unavailable" and breaks nothing.

import { api } from './api.js';
import { t, number } from './i18n.js';
import { moveText } from './notation.js';

const MOVETIME_MS = 1000;

/* The words for an answer {depth, lines: [{cp | mate, pv_san}]}. */
export function engineText(answer, variant = null) {
  const line = answer && Array.isArray(answer.lines) ? answer.lines[0] : null;
  if (!line) return t('engine evaluation unavailable');
  let score;
  if (typeof line.mate === 'number') {
    score = line.mate >= 0 ? t('mate in {n}', { n: line.mate }) : t('mated in {n}', { n: -line.mate });
  } else if (typeof line.cp === 'number') {
    score = number(line.cp / 100, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'always' });
  } else {
    return t('engine evaluation unavailable');
  }
  const moves = Array.isArray(line.pv_san) ? line.pv_san.map(s => moveText(s, variant)).join(' ') : '';
  return t('engine: {score} (depth {depth}): {moves}', { score, depth: answer.depth, moves }).trim();
}

/* Resolves to { text, ok } for a game's position; never rejects. */
export async function evaluate(variant, fen) {
  try {
    const answer = await api('POST', '/v1/analyse', { variant, fen, multipv: 1, movetime_ms: MOVETIME_MS });
    const text = engineText(answer, variant);
    return { text, ok: text !== t('engine evaluation unavailable') };
  } catch {
    return { text: t('engine evaluation unavailable'), ok: false };
  }
}
