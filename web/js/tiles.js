// Tiles in SVG, in board units: a tile is 1 wide and 2 long. Faces up to 9
// are drawn as real pip patterns; sets above double-nine (double-12,
// double-15, double-18) use numerals, as their printed sets often do.

import { s, tileName } from './dom.js';

// Pip positions on a 3x3 grid (column, row from -1 to 1) of an upright half.
const PIPS = (() => {
  const c = [0, 0];
  const four = [[-1, -1], [1, -1], [-1, 1], [1, 1]];
  const six = [[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]];
  return [
    [],
    [c],
    [[1, -1], [-1, 1]],
    [[1, -1], c, [-1, 1]],
    four,
    [...four, c],
    six,
    [...six, c],
    [...six, [0, -1], [0, 1]],
    [...six, c, [0, -1], [0, 1]],
  ];
})();

const STEP = 0.27;

function half(face, cy, numerals, upright) {
  if (numerals || face > 9) {
    const text = String(face);
    // Two digits are set a little smaller and pulled together; on a
    // sideways tile they run along its length, so they sit further out,
    // clear of the centre bar.
    const two = text.length > 1;
    const y = upright || !two ? cy : cy * 1.1;
    const attrs = { class: two ? 't-num t-num2' : 't-num', x: 0, y };
    // A sideways tile is a rotated upright one: turn the numeral back.
    if (!upright) attrs.transform = `rotate(90 0 ${y})`;
    return s('text', attrs, text);
  }
  return PIPS[face].map(([col, row]) => s('circle', { class: 't-pip', cx: col * STEP, cy: cy + row * STEP, r: 0.095 }));
}

/**
 * One tile as an SVG group centred on (cx, cy). `first` is drawn on top
 * (upright) or on the left (sideways), `second` on the other half.
 */
export function tileGroup(first, second, { cx = 0, cy = 0, upright = true, numerals = false, cls = '', label } = {}) {
  const g = s(
    'g',
    {
      class: `tile ${cls}`.trim(),
      transform: `translate(${cx} ${cy})${upright ? '' : ' rotate(-90)'}`,
      role: label === null ? null : 'img',
      'aria-label': label === null ? null : label || tileName([first, second]),
      'aria-hidden': label === null ? 'true' : null,
    },
    s('rect', { class: 't-face', x: -0.47, y: -0.97, width: 0.94, height: 1.94, rx: 0.14 }),
    s('line', { class: 't-bar', x1: -0.34, x2: 0.34, y1: 0, y2: 0 }),
    half(first, -0.5, numerals, upright),
    half(second, 0.5, numerals, upright),
  );
  return g;
}

/** A standalone upright tile picture (for the hand and lists). */
export function tileSvg(tile, { numerals = false } = {}) {
  const [lo, hi] = [Math.min(...tile), Math.max(...tile)];
  return s(
    'svg',
    { viewBox: '-0.55 -1.05 1.1 2.1', 'aria-hidden': 'true', focusable: 'false' },
    tileGroup(hi, lo, { numerals, label: null }),
  );
}

/** Whether a variant's set needs numerals instead of pips. */
export function needsNumerals(variant) {
  const max = variant?.tiles?.['max-pip'];
  return typeof max === 'number' && max > 9;
}
