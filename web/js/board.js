// The board: the hand's public history laid out in SVG.
//
// A line board is a snake around the lead: the left end's tiles run left
// and turn upwards at the edge, the right end's run right and turn
// downwards, doubles lie across the line. A spinner board is a cross, as
// on a table: the line runs straight through the spinner and its two other
// sides go up and down from it, folding to the right when they grow long.
// A longana board is a star of arms from the central double (right, left,
// up, down). Trains and chicken feet draw each arm as its own flat row,
// labelled by its owner; a train open to everyone carries a marker, and a
// double waiting to be covered is outlined and named.
// Cross and star boards fit their SVG's viewBox to the drawing; then every
// board is scaled to the height left between its top and the bottom of the
// player's hand (`fitFelt`), so board and hand are seen together.
//
// Everything is rebuilt from `history` (plays carry their end and face), so
// the drawing never depends on a view's `ends` being current.

import { s, h, tileName, sameTile } from './dom.js';
import { tileGroup } from './tiles.js';
import { t, joinList } from './i18n.js';

/** The board kind of a variant: `line`, `spinner`, `longana`, `trains`, `chicken-foot`. */
export function boardKind(variant) {
  const b = variant?.board;
  if (!b || b === 'line') return 'line';
  if (typeof b === 'string') return b;
  return Object.keys(b)[0] || 'line';
}

/**
 * The sum of the open ends that count (`view.ends`), as the engine adds
 * them for scoring during play: a double across an end counts both
 * halves, once per tile however many of its sides are open.
 */
export function endSum(ends) {
  let sum = 0;
  (ends || []).forEach((e, i) => {
    if (!e.scored) return;
    if (!e.double) sum += e.pip;
    else if (!ends.slice(0, i).some((p) => p.scored && p.double && sameTile(p.tile, e.tile))) sum += 2 * e.pip;
  });
  return sum;
}

/** The points an end sum scores under the variant's `during-play` rule (0 for none). */
export function endSumPoints(rule, sum) {
  if (!sum || !rule) return 0;
  if (rule === 'fives-and-threes') return (sum % 5 === 0 ? sum / 5 : 0) + (sum % 3 === 0 ? sum / 3 : 0);
  const k = rule['ends-multiple-of'];
  return k && sum % k === 0 ? sum : 0;
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
  if (end === 255) return t('board.lead');
  const kind = boardKind(variant);
  const info = view?.ends?.[end];
  const seats = view?.['hand-sizes']?.length ?? 0;
  const owner = info ? info.owner : end < seats ? end : null;
  switch (kind) {
    case 'line':
    case 'spinner':
      if (end === 0) return t('board.left-end');
      if (end === 1) return t('board.right-end');
      return t('board.spinner-side', { n: end - 1 });
    case 'longana':
      if (owner === null || owner === undefined) return t('board.arm', { n: end + 1 });
      return owner === seat ? t('board.your-arm') : t('board.seat-arm', { n: owner + 1 });
    case 'trains':
      if (owner === null || owner === undefined || end === seats) return t('board.public-train');
      return owner === seat ? t('board.your-train') : t('board.seat-train', { n: owner + 1 });
    default:
      return t('board.arm', { n: end + 1 });
  }
}

// --- snake layout -----------------------------------------------------------

/**
 * Lays pieces out from `x` on row `axis` in direction `dir` (±1), turning
 * towards `dy` (±1) at `min`/`max`. Returns the placed tiles and `next`,
 * the free square where the open end's next tile would go (where a player
 * points to choose that end).
 */
function snake(pieces, { x, axis, dir, dy, min, max, flat = false }) {
  const out = [];
  let prevCross = false;
  let rowStart = true;
  let crossOK = !flat;
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
    crossOK = !flat;
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
      cls: `${it.index === last ? 't-last' : ''} ${it.hub ? 't-hub' : ''} ${it.uncovered ? 't-uncovered' : ''}`,
      label: it.hub
        ? t('board.tile-hub', { tile: tileName(it.tile) })
        : it.uncovered
          ? t('board.tile-to-cover', { tile: tileName(it.tile) })
          : tileName(it.tile),
    }),
  );
}

function drawTargets(targets, rects) {
  return targets
    .filter((x) => rects.has(x.end))
    .map((tg) => {
      const [x, y, w, hgt] = rects.get(tg.end);
      const g = s(
        'g',
        { class: 'end-target', role: 'button', tabindex: '0', 'aria-label': tg.label },
        s('rect', { x, y, width: w, height: hgt, rx: 0.16 }),
        s('text', { class: 'end-label', x: x + w / 2, y: y + hgt / 2 }, '+'),
      );
      g.addEventListener('click', tg.pick);
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          tg.pick();
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

/**
 * The spinner cross: the line straight through the lead, each spinner on
 * it with its sides going up and down. Null when a spinner side grows
 * from a tile not on the line (a spinner on a side arm), which the caller
 * then draws as separate rows.
 */
function crossLayout(lead, arms, extraEnds, openPip) {
  const [lo, hi] = lead.tile;
  const dbl = lo === hi;
  const leadItem = { ...lead, cx: 0, cy: 0, upright: dbl, first: lo, second: hi };
  const left = straight(arms.get(0) || [], { x: dbl ? -0.5 : -1, y: 0, dx: -1, dy: 0 });
  const right = straight(arms.get(1) || [], { x: dbl ? 0.5 : 1, y: 0, dx: 1, dy: 0 });
  const line = [...[...left.items].reverse(), leadItem, ...right.items];
  const ends = new Map([
    [0, left.next],
    [1, right.next],
  ]);
  const items = [...line];
  const used = new Set();
  // Spinner sides come in pairs (up, down) for each spinner in turn order.
  for (const [k, e] of extraEnds.entries()) {
    const pieces = arms.get(e) || [];
    const up = k % 2 === 0;
    let hub;
    if (!up) hub = items.find((it) => it.spinnerOf === extraEnds[k - 1]);
    if (!hub) {
      // An empty side still shows its spinner's pip.
      const pip = pieces.length ? pieces[0].touch : openPip?.(e);
      if (pip === undefined || pip === null) return null;
      hub = line.find((it) => it.first === pip && it.second === pip && it.upright && !used.has(it));
      if (!hub) return null;
      used.add(hub);
    }
    hub.spinnerOf = e;
    // With one spinner its long sides turn (to the right, away from the
    // line) rather than run off the top and bottom of the screen; two
    // spinners' sides could meet, so they run straight.
    const arm =
      extraEnds.length <= 2
        ? column(pieces, { x: hub.cx, y: hub.cy + (up ? -1 : 1), up, max: COLUMN })
        : straight(pieces, { x: hub.cx, y: hub.cy + (up ? -1 : 1), dx: 0, dy: up ? -1 : 1 });
    items.push(...arm.items);
    ends.set(e, arm.next);
  }
  return { items, ends, line };
}

/** How far (in tile halves) a spinner's side runs before it turns. */
const COLUMN = 8;

/**
 * A spinner's side going up or down from (x, y): a snake laid sideways
 * (its rows become columns), turning right each `max` halves, so a long
 * side folds beside itself instead of growing the cross's height.
 */
function column(pieces, { x, y, up, max }) {
  const row = snake(pieces, { x: 0, axis: 0, dir: 1, dy: 1, min: 0.5, max });
  // Snake coordinates (along, across) to the screen: along runs up or down
  // from (x, y), across runs right.
  const sign = up ? -1 : 1;
  const items = row.items.map((it) => {
    // A tile along the snake (sideways there) stands upright here, and the
    // other way round; the half nearer the spinner keeps touching it.
    const flip = up && !it.upright;
    return {
      ...it,
      cx: x + it.cy,
      cy: y + sign * it.cx,
      upright: !it.upright,
      first: flip ? it.second : it.first,
      second: flip ? it.first : it.second,
    };
  });
  const [nx, ny, nw, nh] = row.next;
  const next = up ? [x + ny, y - nx - nw, nh, nw] : [x + ny, y + nx, nh, nw];
  return { items, next };
}

/** The longana star: arms right, left, up and down from the central double. */
function starLayout(lead, arms, armEnds) {
  const [lo, hi] = lead.tile;
  const items = [{ ...lead, cx: 0, cy: 0, upright: true, first: lo, second: hi }];
  const ends = new Map();
  const dirs = [
    { x: 0.5, y: 0, dx: 1, dy: 0 },
    { x: -0.5, y: 0, dx: -1, dy: 0 },
    { x: 0, y: -1, dx: 0, dy: -1 },
    { x: 0, y: 1, dx: 0, dy: 1 },
  ];
  for (const [k, e] of armEnds.entries()) {
    const arm = straight(arms.get(e) || [], dirs[k]);
    items.push(...arm.items);
    ends.set(e, arm.next);
  }
  return { items, ends };
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
    const leadTarget = targets.find((x) => x.end === 255);
    return h(
      'div',
      { class: 'board' },
      h('p', { class: 'empty' }, leadTarget ? t('board.empty-lead') : t('board.empty')),
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
    const cross = crossLayout(lead, arms, allEnds.filter((e) => e >= 2), (e) => view?.ends?.[e]?.pip);
    if (cross) {
      const names = cross.line.map((i) => tileName(i.tile));
      const sides = allEnds
        .filter((e) => e >= 2)
        .map((e) => {
          const ts = piecesOf(e).map((p) => tileName(p.tile));
          return `${endName(e, opts)}: ${ts.length ? ts.join(', ') : t('board.no-tiles')}`;
        });
      const label = [t('board.line', { tiles: names.join(', ') }), ...sides].join('; ');
      const rects = [...cross.items.map(rectOf), ...cross.ends.values()];
      parts.push(svgFit(rects, label, drawItems(cross.items, ctx), drawTargets(targets, cross.ends)));
      drawn = new Set(allEnds);
    }
  }
  if (kind === 'longana' && lead.tile[0] === lead.tile[1] && allEnds.length <= 4) {
    const star = starLayout(lead, arms, allEnds);
    const label = [
      t('board.lead-tile', { tile: tileName(lead.tile) }),
      ...allEnds.map((e) => {
        const ts = piecesOf(e).map((p) => tileName(p.tile));
        return `${endName(e, opts)}: ${ts.length ? ts.join(', ') : t('board.no-tiles')}`;
      }),
    ].join('; ');
    const rects = [...star.items.map(rectOf), ...star.ends.values()];
    parts.push(svgFit(rects, label, drawItems(star.items, ctx), drawTargets(targets, star.ends)));
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
      t('board.line', { tiles: tilesInOrder.join(', ') }),
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
  let relayout = null;
  if (extra.length) {
    const rows = [];
    const mustCover = kind === 'trains' && variant?.board?.trains?.['satisfy-doubles'] !== false;
    for (const e of extra) {
      const pieces = piecesOf(e);
      const fromLead = kind === 'longana' || kind === 'trains' || (kind === 'chicken-foot' && e < centreOf(variant));
      let origin = fromLead ? lead.tile : null;
      if (!origin && pieces.length) origin = [pieces[0].touch, pieces[0].touch];
      if (!origin && view?.ends?.[e]) origin = view.ends[e].tile;
      if (!origin) continue;
      const [olo, ohi] = origin;
      // Rows lie flat (the hub and doubles too) so that many trains take
      // little height: the board has only the room above the hand.
      const hub = { tile: origin, hub: true, cx: -0.5, cy: 0, upright: false, first: ohi, second: olo, index: -1 };
      const long = snake(pieces, { x: 0.5, axis: 0, dir: 1, dy: 1, min: -1.5, max: Infinity, flat: true });
      rows.push({ e, pieces, olo, hub, right: long.next[0] + long.next[2] });
    }
    // Shrinking to at most three quarters of the usual tile size, so
    // numerals stay readable; a row longer than that turns back under
    // itself (snakes) instead.
    const right = Math.max(width - 1.5, Math.min(1.3 * width, Math.max(...rows.map((r) => r.right))));
    // Every train starts from the engine: said once, not drawn on each row.
    const noHub = kind === 'trains';
    const left = noHub ? 0.5 : -1.5;
    const pad = 0.3;
    const longest = Math.max(...rows.map((r) => r.right));
    // The rows for a given width: fitFelt may ask for wider rows (fewer
    // turns) when the board's height, not its width, limits the tiles.
    const layRows = (right) => {
      const list = h('ul', { class: 'arms' });
      const waiting = [];
      for (const { e, pieces, olo, hub } of rows) {
        const line = snake(pieces, { x: 0.5, axis: 0, dir: 1, dy: 1, min: left, max: right, flat: true });
        const info = view?.ends?.[e];
        const lastPiece = pieces[pieces.length - 1];
        // A double at a train's end stays there, to be covered before any
        // other play, until someone covers it.
        const uncovered = mustCover && lastPiece?.double ? lastPiece : null;
        if (uncovered) {
          const it = line.items.find((i) => i.index === uncovered.index);
          if (it) it.uncovered = true;
        }
        // A private train open to everyone carries its owner's marker; the
        // public train is everyone's anyway.
        const isPublic = kind === 'trains' && (info ? info.owner === null || info.owner === undefined : e === (view?.['hand-sizes']?.length ?? -1));
        const marked = !!info?.opened && !isPublic;
        const [y0, y1] = bounds([...[...(noHub ? [] : [hub]), ...line.items].map(rectOf), line.next]);
        const rects = new Map([[e, line.next]]);
        const items = noHub ? line.items : [hub, ...line.items];
        const name = endName(e, opts);
        const Name = `${name[0].toUpperCase()}${name.slice(1)}`;
        const shows = lastPiece ? lastPiece.outer : info?.pip ?? olo;
        const names = line.items.map((i) => tileName(i.tile));
        const state = [
          t('board.ends-in', { pip: shows }),
          marked ? t('board.marker') : null,
          uncovered ? t('board.double-waits', { tile: tileName(uncovered.tile) }) : null,
        ].filter(Boolean);
        if (uncovered) waiting.push(t('board.waiting-on', { tile: tileName(uncovered.tile), name }));
        const marker = marked
          ? h('span', { class: 'train-marker', role: 'img', 'aria-label': t('board.marker') }, markerSvg(), t('board.open-to-all'))
          : null;
        const cover = uncovered
          ? h('span', { class: 'train-cover' }, t('board.to-cover', { tile: tileName(uncovered.tile) }))
          : null;
        list.append(
          h(
            'li',
            { class: `${marked ? 'marked' : ''} ${uncovered ? 'to-cover' : ''}`.trim() || null },
            h('h3', {}, h('span', {}, Name), h('span', { class: 'train-end' }, t('board.ends-in', { pip: shows })), marker, cover),
            s(
              'svg',
              {
                viewBox: `${left - pad} ${y0 - pad} ${right - left + 2 * pad} ${y1 - y0 + 2 * pad}`,
                role: 'group',
                'aria-label': `${name}: ${names.length ? names.join(', ') : t('board.no-tiles')}; ${state.join('; ')}`,
                preserveAspectRatio: 'xMinYMid meet',
              },
              drawItems(items, ctx),
              drawTargets(targets, rects),
            ),
          ),
        );
      }
      return { list, waiting };
    };
    const laid = layRows(right);
    let list = laid.list;
    const waiting = laid.waiting;
    relayout = (k) => {
      const next = layRows(Math.max(right, Math.min(longest, right * k))).list;
      list.replaceWith(next);
      list = next;
    };
    if (noHub) parts.push(h('p', { class: 'board-note small' }, t('board.engine', { tile: tileName(lead.tile) })));
    if (waiting.length) {
      parts.push(
        h(
          'p',
          { class: 'board-note', role: 'status' },
          t('board.must-cover', { tiles: joinList(waiting) }),
        ),
      );
    }
    parts.push(list);
  }
  const board = h('div', { class: 'board' }, parts);
  board.relayout = relayout;
  // Numerals need a larger tile than pips to be read.
  queueMicrotask(() => fitFelt(board.closest('.felt') || board.parentElement, numerals ? MIN_UNIT_NUMERALS : MIN_UNIT_PIPS));
  return board;
}

/** A train's marker (a little engine), drawn beside an open train's name. */
function markerSvg() {
  return s(
    'svg',
    { viewBox: '0 0 24 16', 'aria-hidden': 'true', focusable: 'false', class: 'marker-icon' },
    s('path', { d: 'M2 3h9v3h4V2h5v9h2v2H2z', class: 'marker-body' }),
    s('circle', { cx: 6, cy: 13.5, r: 2.2, class: 'marker-wheel' }),
    s('circle', { cx: 17, cy: 13.5, r: 2.2, class: 'marker-wheel' }),
  );
}

// --- fitting the board to the screen -----------------------------------------

/** The least pixels a tile's short side keeps where scrolling can give it more. */
const MIN_UNIT_PIPS = 14;
const MIN_UNIT_NUMERALS = 20;

/** Below this many pixels the board is fitted to the screen once scrolled to instead. */
const LEAST_ROOM = 140;

/**
 * Scales the drawings of a board (`felt`: its section) so that the board
 * and the hand under it are seen together: its height is what the window
 * leaves between the board's top and the bottom of the player's hand (the
 * first `.hand-area` after it). Where what lies above the board leaves
 * less than LEAST_ROOM, or so little that a tile's unit (its short side)
 * would fall under `minUnit` pixels, the board and hand fill the window
 * once the board is scrolled to the top instead. The drawings keep their
 * shape (viewBox, meet): they shrink, they never stretch or get cut.
 */
export function fitFelt(felt, minUnit = 0) {
  if (!felt || !felt.isConnected) return;
  let best = measure(felt, minUnit);
  if (!best) return;
  // Rows drawn narrower than the board are widened (fewer turns) while
  // that gives bigger tiles; not while the focus is on one of them.
  const board = felt.querySelector('.board');
  const active = document.activeElement;
  if (board?.relayout && best.scale < 0.95 && !(active && board.contains(active))) {
    let bestK = 1;
    for (const k of [1.3, 1.7, 2.2, 3]) {
      board.relayout(k);
      const m = measure(felt, minUnit);
      if (m && m.unit > best.unit * 1.05) {
        best = m;
        bestK = k;
      }
    }
    board.relayout(bestK);
    best = measure(felt, minUnit);
  }
  best.apply();
  // The page may have scrolled to the hand (its focus moves there on a
  // turn) while the board still had its natural height: once board and
  // hand fit the window together, bring the board's top back into view.
  const hand = handAfter(felt);
  const ours = active && active !== document.body && (felt.contains(active) || hand?.contains(active));
  const now = felt.getBoundingClientRect();
  const bottom = hand ? hand.getBoundingClientRect().bottom : now.bottom;
  // The seats around the board come into view too when they fit.
  const grid = felt.closest('.table-grid')?.getBoundingClientRect();
  const sticky = stickyHeight();
  const from = grid && bottom - grid.top <= best.screen - sticky ? grid.top : now.top;
  // Up to the board's top (under the score, which stays on screen), or
  // down just enough to show the whole hand.
  if (ours && bottom - from <= best.screen - sticky) {
    if (from < sticky) window.scrollBy(0, from - sticky);
    else if (bottom > best.screen) window.scrollBy(0, bottom - best.screen);
  }
}

/** The height of the score kept at the top of the window as the table scrolls (0 elsewhere). */
export function stickyHeight() {
  const s = document.querySelector('.room .scoreboard');
  return s ? s.getBoundingClientRect().height + 8 : 0;
}

/**
 * How much a board's drawings must shrink (see fitFelt): the scale, the
 * pixels a tile's short side gets then, and `apply` to set it. Null when
 * there is nothing to scale.
 */
function measure(felt, minUnit) {
  const svgs = [...felt.querySelectorAll('svg')].filter((x) => !x.parentElement.closest('svg') && !x.classList.contains('marker-icon'));
  if (!svgs.length) return null;
  for (const x of svgs) x.style.height = '';
  const rects = svgs.map((x) => x.getBoundingClientRect());
  const natural = rects.map((r) => r.height);
  const total = natural.reduce((a, b) => a + b, 0);
  if (!total) return null;
  // Pixels per board unit of the drawings once their height is scaled by `f`.
  const unitAt = (f) =>
    Math.min(
      ...svgs.map((x, i) => {
        const vb = x.viewBox?.baseVal;
        if (!vb || !vb.width || !vb.height) return Infinity;
        return Math.min(rects[i].width / vb.width, (f * rects[i].height) / vb.height);
      }),
    );
  const box = felt.getBoundingClientRect();
  const chrome = box.height - total;
  const hand = handAfter(felt);
  const below = hand ? Math.max(0, hand.getBoundingClientRect().bottom - box.bottom) : 0;
  const screen = document.documentElement.clientHeight || window.innerHeight;
  const top = box.top + window.scrollY;
  const slack = 6;
  const scaleFor = (room) => Math.min(1, Math.max(0.05, room / total));
  let scale = scaleFor(screen - top - below - chrome - slack);
  if (screen - top - below - chrome - slack < LEAST_ROOM || unitAt(scale) < minUnit) {
    // Scrolled down, the board sits under the score kept at the top,
    // unless that would bring its tiles near the smallest readable size:
    // then they keep their size and the score may cover the board's top.
    const room = screen - below - chrome - slack;
    const under = scaleFor(room - stickyHeight());
    scale = Math.max(scale, unitAt(under) >= minUnit * 1.25 ? under : scaleFor(room));
  }
  return {
    scale,
    unit: unitAt(scale),
    screen,
    apply: () => {
      if (scale < 1) svgs.forEach((x, i) => (x.style.height = `${(natural[i] * scale).toFixed(1)}px`));
    },
  };
}

// At the table the felt sits in the grid of seats, the hand after the grid.
function handAfter(felt) {
  for (let el = (felt.closest('.table-grid') || felt).nextElementSibling; el; el = el.nextElementSibling) {
    if (el.matches('.hand-area')) return el;
    const inner = el.querySelector?.('.hand-area');
    if (inner) return inner;
  }
  return null;
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
