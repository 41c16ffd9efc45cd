// The chessmen, drawn as SVG paths in a 100x100 box (our own drawings: no
// font or image from elsewhere is needed, so they look the same everywhere).

const NS = 'http://www.w3.org/2000/svg';

const BASE = 'M24 90 L76 90 L74 80 L26 80 Z';
const SHAPES = {
  p: {
    body: ['M50 17 a13 13 0 1 0 0.01 0 Z', 'M34 80 Q37 56 43 44 L57 44 Q63 56 66 80 Z', BASE],
    lines: [],
  },
  r: {
    body: ['M30 80 L34 44 L28 44 L28 22 L38 22 L38 30 L45 30 L45 22 L55 22 L55 30 L62 30 L62 22 L72 22 L72 44 L66 44 L70 80 Z', BASE],
    lines: ['M33 44 L67 44'],
  },
  b: {
    body: ['M50 8 a6 6 0 1 0 0.01 0 Z', 'M50 20 C68 32 70 54 60 66 L40 66 C30 54 32 32 50 20 Z', 'M37 66 L63 66 L66 80 L34 80 Z', BASE],
    lines: ['M50 34 L50 52', 'M42 43 L58 43'],
  },
  n: {
    body: ['M32 80 C34 66 44 60 50 52 C44 56 38 58 32 62 C26 66 20 62 22 56 C24 46 32 32 42 26 L44 14 L52 22 L58 14 L60 26 C72 36 76 58 70 80 Z', BASE],
    lines: ['M36 38 L40 38'],
  },
  q: {
    body: ['M26 80 L18 32 L34 56 L34 24 L44 54 L50 18 L56 54 L66 24 L66 56 L82 32 L74 80 Z', BASE,
      'M18 27 a5 5 0 1 0 0.01 0 Z', 'M34 19 a5 5 0 1 0 0.01 0 Z', 'M50 13 a5 5 0 1 0 0.01 0 Z',
      'M66 19 a5 5 0 1 0 0.01 0 Z', 'M82 27 a5 5 0 1 0 0.01 0 Z'],
    lines: ['M28 70 L72 70'],
  },
  k: {
    body: ['M46 6 L54 6 L54 14 L62 14 L62 21 L54 21 L54 30 L46 30 L46 21 L38 21 L38 14 L46 14 Z',
      'M26 80 C14 62 18 38 36 40 C43 41 48 47 50 54 C52 47 57 41 64 40 C82 38 86 62 74 80 Z', BASE],
    lines: ['M50 30 L50 54', 'M28 70 L72 70'],
  },
};

/* A <g> drawing one man in the box (0,0)-(100,100); scale it where used. */
export function pieceGroup(color, type) {
  const g = document.createElementNS(NS, 'g');
  g.setAttribute('class', 'piece piece-' + color);
  const shape = SHAPES[type];
  for (const d of shape.body) {
    const p = document.createElementNS(NS, 'path');
    p.setAttribute('d', d);
    p.setAttribute('class', 'piece-body');
    g.appendChild(p);
  }
  for (const d of shape.lines) {
    const p = document.createElementNS(NS, 'path');
    p.setAttribute('d', d);
    p.setAttribute('class', 'piece-line');
    g.appendChild(p);
  }
  return g;
}

/* A standalone <svg> of one man, for HTML places (reserves, chooser, drag). */
export function pieceIcon(color, type) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('class', 'piece-icon');
  svg.setAttribute('aria-hidden', 'true');
  svg.appendChild(pieceGroup(color, type));
  return svg;
}
