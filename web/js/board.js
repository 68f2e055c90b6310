// The board: the hand's public history laid out in SVG.
//
// A line board is a snake around the lead: the left end's tiles run left
// and turn upwards at the edge, the right end's run right and turn
// downwards, doubles lie across the line. A spinner board is a cross, as
// on a table, and a longana board a star of four arms from the central
// double: both are pinwheels, each arm snaking within its own quadrant
// (right turning down, down turning left, and so on), so long arms keep
// tiles of a readable size instead of shrinking. The pinwheel's reach is
// chosen to draw the tiles largest in the felt's width and most of the
// window's height. Trains draw each arm as its own row from the tile it
// starts at, labelled by its owner; chicken-foot toes fan out diagonally
// from their double.
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

/**
 * Lays pieces out in a straight line from (x, y) in direction (dx, dy),
 * one of which is 0: tiles lie along the arm, doubles across it. Returns
 * the placed tiles and `next`, the free square past the open end.
 */
function straight(pieces, { x, y, dx, dy }) {
  const out = [];
  for (const p of pieces) {
    const along = p.double ? 1 : 2;
    const cx = x + (dx * along) / 2;
    const cy = y + (dy * along) / 2;
    if (dx !== 0) {
      // Along a row a plain tile lies sideways, a double stands across it.
      const first = dx > 0 ? p.touch : p.outer;
      out.push({ ...p, cx, cy, upright: p.double, first, second: p.double ? first : p.touch + p.outer - first });
    } else {
      const first = dy < 0 ? p.outer : p.touch;
      out.push({ ...p, cx, cy, upright: !p.double, first, second: p.double ? first : p.touch + p.outer - first });
    }
    x += dx * along;
    y += dy * along;
  }
  const next = [x + (dx < 0 ? -1.1 : dx > 0 ? 0.1 : -0.5), y + (dy < 0 ? -1.1 : dy > 0 ? 0.1 : -0.5), 1, 1];
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

/** An SVG whose viewBox holds every rect, with a little margin. */
function svgFit(rects, label, ...kids) {
  const pad = 0.35;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y, w, hgt] of rects) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x + w);
    y1 = Math.max(y1, y + hgt);
  }
  return s(
    'svg',
    {
      class: 'fitted',
      viewBox: `${x0 - pad} ${y0 - pad} ${x1 - x0 + 2 * pad} ${y1 - y0 + 2 * pad}`,
      role: 'group',
      'aria-label': label,
      preserveAspectRatio: 'xMidYMid meet',
    },
    kids,
  );
}

// --- pinwheel layout (spinner cross, longana star) -------------------------------

// The four directions of a pinwheel, as maps from an arm's own frame (u
// along its first row, v the way it turns) to the board: right turning
// down, down turning left, left turning up, up turning right. Each arm thus
// snakes within its own quadrant and never meets another.
const TURNS = {
  right: ([u, v]) => [u, v],
  down: ([u, v]) => [-v, u],
  left: ([u, v]) => [-u, -v],
  up: ([u, v]) => [v, -u],
};

/** A placed tile or a target square moved from an arm's frame to the board. */
function turnItem(it, map) {
  const halves = it.upright
    ? [[it.cx, it.cy - 0.5, it.first], [it.cx, it.cy + 0.5, it.second]]
    : [[it.cx - 0.5, it.cy, it.first], [it.cx + 0.5, it.cy, it.second]];
  const [[ax, ay, fa], [bx, by, fb]] = halves.map(([x, y, f]) => [...map([x, y]), f]);
  const upright = Math.abs(ax - bx) < 0.01;
  const aFirst = upright ? ay < by : ax < bx;
  return { ...it, cx: (ax + bx) / 2, cy: (ay + by) / 2, upright, first: aFirst ? fa : fb, second: aFirst ? fb : fa };
}

function turnRect([x, y, w, hgt], map) {
  const [ax, ay] = map([x, y]);
  const [bx, by] = map([x + w, y + hgt]);
  return [Math.min(ax, bx), Math.min(ay, by), Math.abs(ax - bx), Math.abs(ay - by)];
}

/** A pinwheel whose arms' rows run out to `reach` tile halves from the hub's centre. */
function pinwheelAt(hub, chains, reach) {
  const items = [hub];
  const ends = new Map();
  for (const { dir, pieces, end } of chains) {
    // An arm starts at the hub's edge (the hub stands upright: 1 wide, 2
    // long) and its later rows keep clear of the neighbouring arm, whose
    // doubles lie across it (1 either side of the centre line), by half a
    // tile's width, so that each arm reads as its own.
    const start = dir === 'right' || dir === 'left' ? 0.5 : 1;
    const arm = snake(pieces, { x: start, axis: 0, dir: 1, dy: 1, min: 1.5, max: Math.max(reach, start + 2) });
    items.push(...arm.items.map((it) => turnItem(it, TURNS[dir])));
    if (end !== undefined) ends.set(end, turnRect(arm.next, TURNS[dir]));
  }
  const rects = [...items.map(rectOf), ...ends.values()];
  return { items, ends, rects };
}

/**
 * Lays a pinwheel out at the reach that draws its tiles largest in a box of
 * `px` by `py` pixels (the SVG keeps its aspect and fits the box).
 */
function pinwheel(hub, chains, px, py) {
  const longest = Math.max(4, ...chains.map((c) => 2 * c.pieces.length + 2));
  let best = null;
  for (let reach = 4; reach <= longest; reach += 1) {
    const lay = pinwheelAt(hub, chains, reach);
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [x, y, w, hgt] of lay.rects) {
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x + w);
      y1 = Math.max(y1, y + hgt);
    }
    const scale = Math.min(px / (x1 - x0 + 0.7), py / (y1 - y0 + 0.7));
    if (!best || scale > best.scale + 1e-9) best = { ...lay, scale };
  }
  return best;
}

/** The pixel box a fitted board may fill: the felt's width, most of the window's height. */
function boxOf(opts) {
  const px = opts.px || opts.width * 30;
  const py = 0.75 * (globalThis.innerHeight || 800);
  return [px, py];
}

/**
 * The spinner cross: the line through the spinner, its sides going up and
 * down from it, each of the four arms snaking within its quadrant. Null
 * when the board has no single spinner on the line (no spinner yet, or
 * several), which the caller then draws another way.
 */
function crossLayout(lead, arms, extraEnds, openPip, box) {
  if (extraEnds.length === 0 || extraEnds.length > 2) return null;
  const [lo, hi] = lead.tile;
  // The line left to right, each tile with the pip it shows on either side.
  const line = [
    ...[...(arms.get(0) || [])].reverse().map((p) => ({ ...p, left: p.outer, right: p.touch })),
    { ...lead, left: lo, right: hi },
    ...(arms.get(1) || []).map((p) => ({ ...p, left: p.touch, right: p.outer })),
  ];
  const sides = extraEnds.map((e) => arms.get(e) || []);
  const pip = sides[0].length ? sides[0][0].touch : openPip?.(extraEnds[0]);
  if (pip === undefined || pip === null) return null;
  const at = line.findIndex((p) => p.left === pip && p.right === pip);
  if (at < 0) return null;
  const piece = (p, going) => ({
    ...p,
    touch: going > 0 ? p.left : p.right,
    outer: going > 0 ? p.right : p.left,
    double: p.left === p.right,
  });
  const hub = { ...line[at], cx: 0, cy: 0, upright: true, first: pip, second: pip };
  const chains = [
    { dir: 'right', pieces: line.slice(at + 1).map((p) => piece(p, 1)), end: 1 },
    { dir: 'left', pieces: line.slice(0, at).reverse().map((p) => piece(p, -1)), end: 0 },
    { dir: 'up', pieces: sides[0], end: extraEnds[0] },
    { dir: 'down', pieces: sides[1] || [], end: extraEnds[1] },
  ];
  const lay = pinwheel(hub, chains, ...box);
  return { items: lay.items, ends: lay.ends, rects: lay.rects, line };
}

/** The longana star: arms right, left, up and down from the central double, each snaking in its quadrant. */
function starLayout(lead, arms, armEnds, box) {
  const [lo, hi] = lead.tile;
  const hub = { ...lead, cx: 0, cy: 0, upright: true, first: lo, second: hi };
  const dirs = ['right', 'left', 'up', 'down'];
  const chains = armEnds.map((e, k) => ({ dir: dirs[k], pieces: arms.get(e) || [], end: e }));
  return pinwheel(hub, chains, ...box);
}

/**
 * The board as DOM: `opts` = { view, variant, seat, width (in tile
 * halves), px (the felt's inner width in pixels, for fitted boards),
 * numerals, targets: [{ end, label, pick }] }.
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

  const allEnds = [...new Set([...arms.keys(), ...(view?.ends || []).map((_, i) => i)])].sort((a, b) => a - b);
  let drawn = new Set();
  if (kind === 'spinner') {
    const cross = crossLayout(lead, arms, allEnds.filter((e) => e >= 2), (e) => view?.ends?.[e]?.pip, boxOf(opts));
    if (cross) {
      const names = cross.line.map((i) => tileName(i.tile));
      const sides = allEnds
        .filter((e) => e >= 2)
        .map((e) => {
          const ts = piecesOf(e).map((p) => tileName(p.tile));
          return `${endName(e, opts)}: ${ts.length ? ts.join(', ') : 'no tiles yet'}`;
        });
      const label = [`the line, left to right: ${names.join(', ')}`, ...sides].join('; ');
      parts.push(svgFit(cross.rects, label, drawItems(cross.items, ctx), drawTargets(targets, cross.ends)));
      drawn = new Set(allEnds);
    }
  }
  if (kind === 'longana' && lead.tile[0] === lead.tile[1] && allEnds.length <= 4) {
    const star = starLayout(lead, arms, allEnds, boxOf(opts));
    const label = [
      `the lead ${tileName(lead.tile)}`,
      ...allEnds.map((e) => {
        const ts = piecesOf(e).map((p) => tileName(p.tile));
        return `${endName(e, opts)}: ${ts.length ? ts.join(', ') : 'no tiles yet'}`;
      }),
    ].join('; ');
    parts.push(svgFit(star.rects, label, drawItems(star.items, ctx), drawTargets(targets, star.ends)));
    drawn = new Set(allEnds);
  }

  if ((kind === 'line' || kind === 'spinner') && !drawn.size) {
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

  // Every other arm (trains, chicken feet): a straight row each, from the
  // tile it grows from, under a heading naming its owner. All rows share
  // one scale, set by the longest, so the rows line up like trains laid
  // side by side and none runs off the screen.
  const extra = allEnds.filter((e) => !drawn.has(e) && !((kind === 'line' || kind === 'spinner') && e < 2));
  if (extra.length) {
    const list = h('ul', { class: 'arms' });
    const rows = [];
    for (const e of extra) {
      const pieces = piecesOf(e);
      const fromLead = kind === 'longana' || kind === 'trains' || (kind === 'chicken-foot' && e < centreOf(variant));
      let origin = fromLead ? lead.tile : null;
      if (!origin && pieces.length) origin = [pieces[0].touch, pieces[0].touch];
      if (!origin && view?.ends?.[e]) origin = view.ends[e].tile;
      if (!origin) continue;
      const [olo, ohi] = origin;
      const hub = { tile: origin, hub: true, cx: 0, cy: 0, upright: true, first: ohi, second: olo, index: -1 };
      const long = straight(pieces, { x: 0.5, y: 0, dx: 1, dy: 0 });
      rows.push({ e, pieces, olo, hub, right: long.next[0] + long.next[2] });
    }
    // Shrinking to at most half the usual tile size; a row longer than
    // that turns back under itself (snakes) instead.
    const right = Math.max(width - 0.5, Math.min(2 * width, Math.max(...rows.map((r) => r.right))));
    const pad = 0.35;
    for (const { e, pieces, olo, hub } of rows) {
      const line = snake(pieces, { x: 0.5, axis: 0, dir: 1, dy: 1, min: -0.5, max: right });
      const [y0, y1] = bounds([...[hub, ...line.items].map(rectOf), line.next]);
      const rects = new Map([[e, line.next]]);
      const items = [hub, ...line.items];
      const name = endName(e, opts);
      const shows = pieces.length ? pieces[pieces.length - 1].outer : view?.ends?.[e]?.pip ?? olo;
      const names = line.items.map((i) => tileName(i.tile));
      const title = `${name[0].toUpperCase()}${name.slice(1)}, open at ${shows}`;
      list.append(
        h(
          'li',
          {},
          h('h3', {}, title),
          s(
            'svg',
            {
              viewBox: `${-0.5 - pad} ${y0 - pad} ${right + 0.5 + 2 * pad} ${y1 - y0 + 2 * pad}`,
              role: 'group',
              'aria-label': `${name}: ${names.length ? names.join(', ') : 'no tiles yet'}`,
              preserveAspectRatio: 'xMinYMid meet',
            },
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
