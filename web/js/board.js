// The board: the hand's public history laid out in SVG.
//
// A line board is a snake around the lead: the left end's tiles run left
// and turn upwards at the edge, the right end's run right and turn
// downwards, doubles lie across the line. Other layouts (spinner sides,
// longana arms, trains, chicken feet) draw each arm as its own line from
// the tile it starts at, named after its owner: readable, if not the shape
// a real table would take.
//
// Everything is rebuilt from `history` (plays carry their end and face), so
// the drawing never depends on a view's `ends` being current.

import { s, h, tileName } from './dom.js';
import { tileGroup } from './tiles.js';

/** The board kind of a variant: `line`, `spinner`, `longana`, `trains`, `chicken-foot`. */
export function boardKind(variant) {
  const b = variant?.board;
  if (!b || b === 'line') return 'line';
  if (typeof b === 'string') return b;
  return Object.keys(b)[0] || 'line';
}

/** The lead and each end's plays, in order, from a hand's history. */
export function armsOf(history) {
  let lead = null;
  const arms = new Map();
  (history || []).forEach((rec, index) => {
    const a = rec.action;
    if (a.kind !== 'play') return;
    const tile = a.tile;
    if (a.end === 255) {
      lead = { tile, seat: rec.seat, index };
      return;
    }
    if (!arms.has(a.end)) arms.set(a.end, []);
    arms.get(a.end).push({
      tile,
      seat: rec.seat,
      index,
      touch: tile[a.face],
      outer: tile[1 - a.face],
      double: tile[0] === tile[1],
    });
  });
  return { lead, arms };
}

/** What an end is called, for people and screen readers. */
export function endName(end, { view, variant, seat }) {
  if (end === 255) return 'the lead';
  const kind = boardKind(variant);
  const info = view?.ends?.[end];
  const seats = view?.['hand-sizes']?.length ?? 0;
  const owner = info ? info.owner : end < seats ? end : null;
  switch (kind) {
    case 'line':
    case 'spinner':
      if (end === 0) return 'the left end';
      if (end === 1) return 'the right end';
      return `spinner side ${end - 1}`;
    case 'longana':
      if (owner === null || owner === undefined) return `arm ${end + 1}`;
      return owner === seat ? 'your arm' : `seat ${owner + 1}'s arm`;
    case 'trains':
      if (owner === null || owner === undefined || end === seats) return 'the public train';
      return owner === seat ? 'your train' : `seat ${owner + 1}'s train`;
    default:
      return `arm ${end + 1}`;
  }
}

// --- snake layout -----------------------------------------------------------

/**
 * Lays pieces out from `x` on row `axis` in direction `dir` (±1), turning
 * towards `dy` (±1) at `min`/`max`. Returns the placed tiles and `next`,
 * the free square where the open end's next tile would go (where a player
 * points to choose that end).
 */
function snake(pieces, { x, axis, dir, dy, min, max }) {
  const out = [];
  let prevCross = false;
  let rowStart = true;
  let crossOK = true;
  for (const p of pieces) {
    const along = p.double && crossOK ? 1 : 2;
    const fits = dir > 0 ? x + along <= max : x - along >= min;
    if (!fits && !rowStart) {
      // The turn: an upright tile hanging from the row's end.
      const top = prevCross ? 1 : 0.5;
      const cx = x - dir * 0.5;
      const cy = axis + dy * (top + 1);
      out.push({ ...p, cx, cy, upright: true, first: dy > 0 ? p.touch : p.outer, second: dy > 0 ? p.outer : p.touch });
      axis += dy * (top + 2.5);
      dir = -dir;
      prevCross = false;
      crossOK = false;
      rowStart = true;
      continue;
    }
    if (p.double && crossOK) {
      const a = dir > 0 ? x : x - 1;
      out.push({ ...p, cx: a + 0.5, cy: axis, upright: true, first: p.touch, second: p.touch });
      prevCross = true;
    } else {
      const a = dir > 0 ? x : x - 2;
      out.push({
        ...p,
        cx: a + 1,
        cy: axis,
        upright: false,
        first: dir > 0 ? p.touch : p.outer,
        second: dir > 0 ? p.outer : p.touch,
      });
      prevCross = false;
    }
    x += dir * along;
    rowStart = false;
    crossOK = true;
  }
  const fits = dir > 0 ? x + 2 <= max : x - 2 >= min;
  let next;
  if (fits || rowStart) next = dir > 0 ? [x + 0.1, axis - 0.5, 1, 1] : [x - 1.1, axis - 0.5, 1, 1];
  else {
    const top = prevCross ? 1 : 0.5;
    const cx = x - dir * 0.5;
    next = dy > 0 ? [cx - 0.5, axis + top + 0.1, 1, 1] : [cx - 0.5, axis - top - 1.1, 1, 1];
  }
  return { items: out, next };
}

function rectOf(it) {
  return it.upright ? [it.cx - 0.5, it.cy - 1, 1, 2] : [it.cx - 1, it.cy - 0.5, 2, 1];
}

function bounds(rects) {
  let [y0, y1] = [Infinity, -Infinity];
  for (const [, y, , hgt] of rects) {
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y + hgt);
  }
  return rects.length ? [y0, y1] : [-1, 1];
}

// --- drawing ----------------------------------------------------------------

function drawItems(items, { numerals, last }) {
  return items.map((it) =>
    tileGroup(it.first, it.second, {
      cx: it.cx,
      cy: it.cy,
      upright: it.upright,
      numerals,
      cls: `${it.index === last ? 't-last' : ''} ${it.hub ? 't-hub' : ''}`,
      label: it.hub ? `${tileName(it.tile)}, where this arm starts` : tileName(it.tile),
    }),
  );
}

function drawTargets(targets, rects) {
  return targets
    .filter((t) => rects.has(t.end))
    .map((t) => {
      const [x, y, w, hgt] = rects.get(t.end);
      const g = s(
        'g',
        { class: 'end-target', role: 'button', tabindex: '0', 'aria-label': t.label },
        s('rect', { x, y, width: w, height: hgt, rx: 0.16 }),
        s('text', { class: 'end-label', x: x + w / 2, y: y + hgt / 2 }, '+'),
      );
      g.addEventListener('click', t.pick);
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          t.pick();
        }
      });
      return g;
    });
}

function svgFor(width, y0, y1, label, ...kids) {
  const pad = 0.35;
  return s(
    'svg',
    {
      viewBox: `${-width / 2 - pad} ${y0 - pad} ${width + 2 * pad} ${y1 - y0 + 2 * pad}`,
      role: 'group',
      'aria-label': label,
      preserveAspectRatio: 'xMidYMin meet',
    },
    kids,
  );
}

/**
 * The board as DOM: `opts` = { view, variant, seat, width (in tile
 * halves), numerals, targets: [{ end, label, pick }] }.
 */
export function renderBoard(opts) {
  const { view, variant, width, numerals } = opts;
  const history = view?.history || [];
  const { lead, arms } = armsOf(history);
  const lastPlay = [...history.keys()].reverse().find((i) => history[i].action.kind === 'play');
  const targets = opts.targets || [];
  if (!lead) {
    const leadTarget = targets.find((t) => t.end === 255);
    return h(
      'div',
      { class: 'board' },
      h('p', { class: 'empty' }, leadTarget ? 'The table is empty: lead a tile.' : 'The table is empty.'),
    );
  }
  const kind = boardKind(variant);
  const half = width / 2;
  const ctx = { numerals, last: lastPlay };
  const tilesInOrder = [];
  const parts = [];
  const endRects = new Map();
  const piecesOf = (e) => arms.get(e) || [];

  if (kind === 'line' || kind === 'spinner') {
    const [lo, hi] = lead.tile;
    const dbl = lo === hi;
    const leadItem = { ...lead, cx: 0, cy: 0, upright: dbl, first: lo, second: hi };
    const left = snake(piecesOf(0), { x: dbl ? -0.5 : -1, axis: 0, dir: -1, dy: -1, min: -half, max: half });
    const right = snake(piecesOf(1), { x: dbl ? 0.5 : 1, axis: 0, dir: 1, dy: 1, min: -half, max: half });
    endRects.set(0, left.next);
    endRects.set(1, right.next);
    const items = [...[...left.items].reverse(), leadItem, ...right.items];
    tilesInOrder.push(...items.map((i) => tileName(i.tile)));
    const rects = [...items.map(rectOf), left.next, right.next];
    const [y0, y1] = bounds(rects);
    const main = svgFor(
      width,
      y0,
      y1,
      `the line, left to right: ${tilesInOrder.join(', ')}`,
      drawItems(items, ctx),
      drawTargets(targets, endRects),
    );
    parts.push(main);
  }

  // Every other arm: its own line, starting at the tile it grows from.
  const extra = [...new Set([...arms.keys(), ...(view?.ends || []).map((_, i) => i)])]
    .filter((e) => !((kind === 'line' || kind === 'spinner') && e < 2))
    .sort((a, b) => a - b);
  if (extra.length) {
    const list = h('ul', { class: 'arms' });
    for (const e of extra) {
      const pieces = piecesOf(e);
      const fromLead = kind === 'longana' || kind === 'trains' || (kind === 'chicken-foot' && e < centreOf(variant));
      let origin = fromLead ? lead.tile : null;
      if (!origin && pieces.length) origin = [pieces[0].touch, pieces[0].touch];
      if (!origin && view?.ends?.[e]) origin = view.ends[e].tile;
      if (!origin) continue;
      const [olo, ohi] = origin;
      const start = -half + 1;
      const hub = { tile: origin, hub: true, cx: start, cy: 0, upright: true, first: ohi, second: olo, index: -1 };
      const line = snake(pieces, { x: start + 0.5, axis: 0, dir: 1, dy: 1, min: -half, max: half });
      const rects = new Map([[e, line.next]]);
      const items = [hub, ...line.items];
      const [y0, y1] = bounds([...items.map(rectOf), line.next]);
      const name = endName(e, opts);
      const shows = pieces.length ? pieces[pieces.length - 1].outer : view?.ends?.[e]?.pip ?? olo;
      const names = line.items.map((i) => tileName(i.tile));
      const title = `${name[0].toUpperCase()}${name.slice(1)}, open at ${shows}`;
      list.append(
        h(
          'li',
          {},
          h('h3', {}, title),
          svgFor(
            width,
            y0,
            y1,
            `${name}: ${names.length ? names.join(', ') : 'no tiles yet'}`,
            drawItems(items, ctx),
            drawTargets(targets, rects),
          ),
        ),
      );
    }
    parts.push(list);
  }
  return h('div', { class: 'board' }, parts);
}

function centreOf(variant) {
  return variant?.board?.['chicken-foot']?.centre ?? 4;
}

/** The pip an end shows now, from the history (for labels). */
export function endPip(end, view) {
  const { lead, arms } = armsOf(view?.history);
  const pieces = arms.get(end) || [];
  if (pieces.length) return pieces[pieces.length - 1].outer;
  if (view?.ends?.[end]) return view.ends[end].pip;
  if (lead && end === 0) return lead.tile[0];
  if (lead && end === 1) return lead.tile[1];
  return null;
}
