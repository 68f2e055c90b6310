// Tiles with 3, 4 or 6 faces: the board in SVG (triangle, square and hex
// lattices, or the graph board as a tree), the hand, and the moves of a
// poly room (the book's "Poly rooms" page: the game messages of family `poly`).
//
// Lattice cells follow the engine's conventions: sides numbered clockwise
// on screen (y grows downwards); a tile turned by `rotation` shows its face
// i on side (i + rotation) % faces; centres as `Lattice::centre` gives them
// for cells of side 1. Pips are written as numerals beside their side.

import { h, s, rovingTiles } from './dom.js';
import { sendMove, otherMoves, legalInWords, autoPassSwitch } from './prompt.js';
import { fitFelt } from './board.js';
// `tr`: the table is `t` throughout this file.
import { t as tr } from './i18n.js';

const R3 = Math.sqrt(3);

/** A tile's name as people read it: its pips clockwise, `0-1-2`. */
export function polyName(pips) {
  return pips.join('-');
}

/** The lattice of a board kind (`"graph"` or `{lattice}`), or null for the graph board. */
export function latticeOf(kind) {
  return kind && typeof kind === 'object' ? kind.lattice : null;
}

function facesOf(lattice, variant) {
  if (lattice === 'triangle') return 3;
  if (lattice === 'square') return 4;
  if (lattice === 'hex') return 6;
  return variant?.faces || 3;
}

/**
 * The tiles of a variant's set in the engine's order (tuples ascending,
 * last face fastest; `ascending` keeps non-decreasing tuples, `all` each
 * tuple that is the smallest of its rotations): a tile id indexes it.
 */
export function tileSet(variant) {
  const faces = variant?.faces;
  const base = (variant?.['max-pip'] ?? -1) + 1;
  const rule = variant?.set || 'ascending';
  if (![3, 4, 6].includes(faces) || base < 1 || base ** faces > 1e6) return [];
  const out = [];
  const d = new Array(faces).fill(0);
  const rotated = (t, r) => t.map((_, i) => t[(i - r + faces) % faces]);
  const less = (a, b) => {
    for (let i = 0; i < faces; i++) if (a[i] !== b[i]) return a[i] < b[i];
    return false;
  };
  for (let n = 0; n < base ** faces; n++) {
    let keep;
    if (rule === 'all') {
      keep = true;
      for (let r = 1; r < faces && keep; r++) if (less(rotated(d, r), d)) keep = false;
    } else {
      keep = d.every((x, i) => i === 0 || d[i - 1] <= x);
    }
    if (keep) out.push([...d]);
    for (let i = faces - 1; i >= 0; i--) {
      d[i] += 1;
      if (d[i] < base) break;
      d[i] = 0;
    }
  }
  return out;
}

function pointsUp(x, y) {
  return (((x + y) % 2) + 2) % 2 === 0;
}

/** The centre of a lattice cell (cells of side 1), as `Lattice::centre`. */
export function centre(lattice, x, y) {
  if (lattice === 'square') return [x, y];
  if (lattice === 'hex') return [R3 * (x + y / 2), 1.5 * y];
  const third = pointsUp(x, y) ? 2 / 3 : 1 / 3;
  return [(x + 1) / 2, ((y + third) * R3) / 2];
}

/** A cell's corners, in order: side i runs from corner i to corner i + 1. */
export function corners(lattice, x, y) {
  if (lattice === 'square') {
    return [
      [x - 0.5, y - 0.5],
      [x + 0.5, y - 0.5],
      [x + 0.5, y + 0.5],
      [x - 0.5, y + 0.5],
    ];
  }
  if (lattice === 'hex') {
    const [cx, cy] = centre('hex', x, y);
    return Array.from({ length: 6 }, (_, i) => {
      const a = ((-90 + 60 * i) * Math.PI) / 180;
      return [cx + Math.cos(a), cy + Math.sin(a)];
    });
  }
  const hgt = R3 / 2;
  if (pointsUp(x, y)) {
    // Sides: 0 right, 1 bottom, 2 left.
    return [
      [(x + 1) / 2, y * hgt],
      [(x + 2) / 2, (y + 1) * hgt],
      [x / 2, (y + 1) * hgt],
    ];
  }
  // Sides: 0 top, 1 right, 2 left.
  return [
    [x / 2, y * hgt],
    [(x + 2) / 2, y * hgt],
    [(x + 1) / 2, (y + 1) * hgt],
  ];
}

const FONT = { triangle: 0.22, square: 0.3, hex: 0.36 };
const REACH = { triangle: 0.62, square: 0.68, hex: 0.7 };

/**
 * The pips shown on side `side` of a cell by a tile turned by `rotation`;
 * where tiles match by their corners, the pips at corner `side` (the
 * corner where side `side` starts).
 */
export function sidePips(pips, rotation, side) {
  const n = pips.length;
  return pips[(((side - rotation) % n) + n) % n];
}

/** Whether a variant's tiles match by their corners (Tri-Ominos) rather than their sides. */
export function byCorners(variant) {
  return variant?.matching === 'corners';
}

/**
 * What side `side` of a placed tile shows, in words: its pips, or where
 * tiles match by their corners the pips at its two ends, read along it
 * (`reversed`: read the other way, as the tile across the side reads it).
 */
function sideText(pips, rotation, side, atCorners, reversed = false) {
  if (!atCorners) return String(sidePips(pips, rotation, side));
  const ends = [sidePips(pips, rotation, side), sidePips(pips, rotation, side + 1)];
  return (reversed ? ends.reverse() : ends).join('-');
}

/** Corner numbers sit nearer the middle than side numbers, clear of the edges. */
const CORNER_REACH = { triangle: 0.58, square: 0.62 };

/** A tile in its cell: its shape and each side's pips (or each corner's). */
function cellTile(lattice, x, y, pips, rotation, attrs, atCorners = false) {
  const pts = corners(lattice, x, y);
  const [cx, cy] = centre(lattice, x, y);
  const nums = pts.map((p, i) => {
    const q = atCorners ? p : pts[(i + 1) % pts.length];
    const mx = (p[0] + q[0]) / 2;
    const my = (p[1] + q[1]) / 2;
    const k = atCorners ? CORNER_REACH[lattice] || REACH[lattice] : REACH[lattice];
    return s(
      'text',
      { class: 'p-pip', x: cx + (mx - cx) * k, y: cy + (my - cy) * k, 'font-size': FONT[lattice] },
      String(sidePips(pips, rotation, i)),
    );
  });
  return s(
    'g',
    attrs,
    s('polygon', { class: 'p-face', points: pts.map((p) => p.map((v) => v.toFixed(4)).join(',')).join(' ') }),
    nums,
  );
}

/** A standalone tile picture for the hand: face i on side i (or at corner i). */
export function polyTileSvg(pips, atCorners = false) {
  const lattice = pips.length === 3 ? 'triangle' : pips.length === 4 ? 'square' : 'hex';
  const pts = corners(lattice, 0, 0);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const pad = 0.06;
  const [x0, y0] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
  const [w, hh] = [Math.max(...xs) - x0 + pad, Math.max(...ys) - y0 + pad];
  return s(
    'svg',
    { class: `p-hand-tile p-${lattice}`, viewBox: `${x0} ${y0} ${w} ${hh}`, 'aria-hidden': 'true', focusable: 'false' },
    cellTile(lattice, 0, 0, pips, 0, { class: 'p-tile' }, atCorners),
  );
}

/** Where a move goes, as a key (moves to the same spot share it). */
export function spotKey(at) {
  if (at.kind === 'root') return 'root';
  if (at.kind === 'face') return `f${at.node}.${at.face}`;
  return `c${at.x},${at.y}`;
}

/** The cell across side `side` of cell (x, y), and its side that touches it (as `Lattice::neighbour`). */
export function neighbour(lattice, x, y, side) {
  if (lattice === 'square') {
    const [dx, dy] = [[0, -1], [1, 0], [0, 1], [-1, 0]][side % 4];
    return [x + dx, y + dy, (side + 2) % 4];
  }
  if (lattice === 'hex') {
    const [dx, dy] = [[1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0], [0, -1]][side % 6];
    return [x + dx, y + dy, (side + 3) % 6];
  }
  if (pointsUp(x, y)) return [[x + 1, y, 2], [x, y + 1, 0], [x - 1, y, 1]][side % 3];
  return [[x, y - 1, 1], [x + 1, y, 2], [x - 1, y, 0]][side % 3];
}

// Where a side of a cell lies, as people say it: `HERE` for what lies
// across it from the cell itself ("on its left"), `BY` for a cell across
// it ("to the left of").
// Each side's direction, worded by the catalog (`poly.here.*`, `poly.by.*`).
const HERE = 'here';
const BY = 'by';
const SIDES = {
  square: ['above', 'right', 'below', 'left'],
  hex: ['up-right', 'right', 'down-right', 'down-left', 'left', 'up-left'],
  up: ['right', 'below', 'left'],
  down: ['above', 'right', 'left'],
};
function words(table, lattice, x, y, side) {
  const key = lattice === 'triangle' ? (pointsUp(x, y) ? 'up' : 'down') : lattice;
  return tr(`poly.${table}.${SIDES[key][side]}`);
}

/** The placed tiles a cell touches: [{ side, tile, theirs }] (their side that touches). */
function touching(lattice, view, x, y) {
  const at = new Map();
  for (const p of view?.board || []) if (p.at.kind === 'cell') at.set(`${p.at.x},${p.at.y}`, p);
  const out = [];
  const n = lattice === 'square' ? 4 : lattice === 'hex' ? 6 : 3;
  for (let side = 0; side < n; side++) {
    const [nx, ny, theirs] = neighbour(lattice, x, y, side);
    const tile = at.get(`${nx},${ny}`);
    if (tile) out.push({ side, tile, theirs });
  }
  return out;
}

/** A spot as people say it, after a verb: "to the right of the 1-2-3". */
export function spotName(at, view) {
  if (at.kind === 'root') return tr('poly.spot-root');
  if (at.kind === 'face') {
    const parent = view?.board?.[at.node];
    return tr('poly.spot-face', { pip: ordinalPip(parent?.pips || [], at.face), n: at.node + 1, name: parent ? ` (${polyName(parent.pips)})` : '' });
  }
  const lattice = latticeOf(view?.['board-kind']) || 'triangle';
  const near = touching(lattice, view, at.x, at.y).filter((n) => !(n.tile.at.x === at.x && n.tile.at.y === at.y));
  if (!near.length) return tr('poly.spot-middle');
  return near.map((n) => tr('poly.spot-by', { where: words(BY, lattice, n.tile.at.x, n.tile.at.y, n.theirs), tile: polyName(n.tile.pips) })).join(tr('poly.and'));
}

/**
 * How a tile at cell (x, y) turned by `rotation` meets the tiles around it,
 * as players say it: "5 meets 5" for each side against a tile.
 */
function meetings(lattice, view, x, y, pips, rotation, atCorners = false) {
  return touching(lattice, view, x, y).map((n) => ({
    ...n,
    mine: sideText(pips, rotation, n.side, atCorners),
    their: sideText(n.tile.pips, n.tile.rotation, n.theirs, atCorners, true),
  }));
}

/** A placed tile's words: "2-3-5, beside the 1-2-3 on its left (3 meets 3)". */
function placedName(lattice, view, p, atCorners) {
  const around = meetings(lattice, view, p.at.x, p.at.y, p.pips, p.rotation, atCorners);
  return `${polyName(p.pips)}${p.node === 0 ? tr('poly.first-tile') : ''}${around.length ? `, ${beside(lattice, p, around)}` : ''}`;
}

function beside(lattice, p, around) {
  const list = around
    .map((n) =>
      tr('poly.beside-one', {
        tile: polyName(n.tile.pips),
        where: words(HERE, lattice, p.at.x, p.at.y, n.side),
        meet: tr('poly.meets', { mine: n.mine, their: n.their }),
      }),
    )
    .join(tr('poly.and'));
  return tr('poly.beside', { list });
}

/**
 * A face named by its pips, told apart from faces with the same pips by
 * its place among them: "4", or "first 2" and "second 2" on a 2-2-5.
 */
function ordinalPip(pips, face) {
  const pip = pips[face];
  const same = pips.map((p, i) => [p, i]).filter(([p]) => p === pip);
  if (same.length < 2) return String(pip);
  const k = same.findIndex(([, i]) => i === face);
  return tr(`poly.ord.${k}`, { pip });
}

/** How a tile of the graph board is joined: "its 4 against the 4 of tile 2 (1-4-5)". */
function joined(p, parent) {
  const theirs = parent ? ordinalPip(parent.pips, p.at.face) : '?';
  return tr('poly.joined', { mine: ordinalPip(p.pips, p.rotation), theirs, n: p.at.node + 1, name: parent ? ` (${polyName(parent.pips)})` : '' });
}

// --- the graph board as a tree --------------------------------------------------

const BOX = 0.62; // a face's box
const LEVEL = 1.5; // rows apart

/** Node positions of the tree: each node centred over its children, leaves left to right. */
function treeLayout(board) {
  const kids = board.map(() => []);
  for (const p of board) if (p.at.kind === 'face' && kids[p.at.node]) kids[p.at.node].push(p);
  for (const k of kids) k.sort((a, b) => a.at.face - b.at.face || a.node - b.node);
  const width = (p) => p.pips.length * BOX + 0.9;
  const pos = new Map();
  let next = 0;
  const place = (p, depth) => {
    const children = kids[p.node];
    if (!children.length) {
      const w = width(p);
      pos.set(p.node, { x: next + w / 2, y: depth * LEVEL });
      next += w;
      return;
    }
    for (const c of children) place(c, depth + 1);
    const first = pos.get(children[0].node).x;
    const last = pos.get(children[children.length - 1].node).x;
    let x = (first + last) / 2;
    const w = width(p);
    if (x - w / 2 < next - (last - first) - w) x = Math.max(x, w / 2);
    pos.set(p.node, { x, y: depth * LEVEL });
    next = Math.max(next, x + w / 2);
  };
  for (const p of board) if (p.at.kind === 'root') place(p, 0);
  return pos;
}

function faceBox(pos, p, face) {
  const n = p.pips.length;
  const x = pos.x - (n * BOX) / 2 + face * BOX;
  return [x, pos.y - BOX / 2, BOX, BOX];
}

// --- rendering the board ----------------------------------------------------------

/**
 * The board as SVG, fitted to its drawing. `targets`: [{ at, label, pick,
 * preview: {pips, rotation} | null }] for the spots the chosen tile may go.
 */
export function renderPolyBoard({ view, variant, targets = [] }) {
  const kind = view?.['board-kind'] ?? variant?.board;
  const lattice = latticeOf(kind);
  const atCorners = byCorners(variant);
  const board = view?.board || [];
  const boxes = [];
  const items = [];
  const last = board.length ? board[board.length - 1].node : null;
  if (lattice) {
    for (const p of board) {
      const { x, y } = p.at;
      boxes.push(...corners(lattice, x, y));
      items.push(
        cellTile(lattice, x, y, p.pips, p.rotation, {
          class: `p-tile ${p.node === last ? 'p-last' : ''}`,
          role: 'img',
          'data-placed': p.node,
          'data-cell': `${x},${y}`,
          'data-turn': p.rotation,
          'aria-label': `${placedName(lattice, view, p, atCorners)}${p.node === last ? tr('poly.last-played') : ''}`,
        }, atCorners),
      );
    }
    for (const t of targets) {
      const x = t.at.kind === 'cell' ? t.at.x : 0;
      const y = t.at.kind === 'cell' ? t.at.y : 0;
      boxes.push(...corners(lattice, x, y));
      const [cx, cy] = centre(lattice, x, y);
      const pts = corners(lattice, x, y)
        .map((p) => p.join(','))
        .join(' ');
      const kids = [s('polygon', { class: 'p-ghost', points: pts })];
      if (t.preview) kids.push(cellTile(lattice, x, y, t.preview.pips, t.preview.rotation, { class: 'p-preview' }, atCorners));
      else kids.push(s('text', { class: 'p-plus', x: cx, y: cy, 'font-size': FONT[lattice] * 1.6 }, '+'));
      items.push(target(t, kids));
    }
  } else {
    const pos = treeLayout(board);
    for (const p of board) {
      const at = pos.get(p.node);
      if (!at) continue;
      const n = p.pips.length;
      boxes.push([at.x - (n * BOX) / 2 - 0.35, at.y - BOX / 2], [at.x + (n * BOX) / 2, at.y + BOX / 2]);
      if (p.at.kind === 'face') {
        const parent = board[p.at.node];
        const ppos = pos.get(p.at.node);
        if (parent && ppos) {
          const [fx, fy] = faceBox(ppos, parent, p.at.face);
          const [cx, cy] = faceBox(at, p, p.rotation);
          items.unshift(s('line', { class: 'p-edge', x1: fx + BOX / 2, y1: fy + BOX, x2: cx + BOX / 2, y2: cy }));
        }
      }
      items.push(
        s(
          'g',
          {
            class: `p-tile p-node ${p.node === last ? 'p-last' : ''}`,
            role: 'img',
            'data-placed': p.node,
            'data-face': p.at.kind === 'face' ? p.at.face : null,
            'data-joined': p.at.kind === 'face' ? p.at.node : null,
            'data-turn': p.rotation,
            'aria-label': `${tr('poly.node', { n: p.node + 1, name: polyName(p.pips) })}${p.at.kind === 'face' ? `, ${joined(p, board[p.at.node])}` : tr('poly.first-tile')}`,
          },
          p.pips.map((pip, f) => {
            const [x, y] = faceBox(at, p, f);
            const open = (p.open >> f) & 1;
            return [
              s('rect', { class: `p-face ${open ? 'p-open' : ''}`, x, y, width: BOX, height: BOX }),
              s('text', { class: 'p-pip', x: x + BOX / 2, y: y + BOX / 2, 'font-size': 0.36 }, String(pip)),
            ];
          }),
          s('text', { class: 'p-node-id', x: at.x - (n * BOX) / 2 - 0.06, y: at.y, 'font-size': 0.2 }, `#${p.node + 1}`),
        ),
      );
    }
    for (const t of targets) {
      let x;
      let y;
      if (t.at.kind === 'root') {
        [x, y] = [0, 0];
      } else {
        const parent = board[t.at.node];
        const ppos = parent && pos.get(t.at.node);
        if (!ppos) continue;
        const [fx, fy] = faceBox(ppos, parent, t.at.face);
        [x, y] = [fx, fy + BOX + 0.05];
      }
      boxes.push([x, y], [x + BOX, y + BOX]);
      const kids = [s('rect', { class: 'p-ghost', x, y, width: BOX, height: BOX })];
      const shown = t.preview ? String(t.preview.pips[t.preview.rotation]) : '+';
      kids.push(s('text', { class: t.preview ? 'p-pip p-preview-pip' : 'p-plus', x: x + BOX / 2, y: y + BOX / 2, 'font-size': 0.36 }, shown));
      items.push(target(t, kids));
    }
  }
  if (!boxes.length) {
    return h('p', { class: 'empty' }, tr('poly.board-empty'));
  }
  const pad = 0.3;
  const xs = boxes.map((p) => p[0]);
  const ys = boxes.map((p) => p[1]);
  const [x0, y0] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
  const [w, hh] = [Math.max(...xs) - x0 + pad, Math.max(...ys) - y0 + pad];
  // A few tiles are not blown up to the felt's size: a unit is at most UNIT pixels.
  const unit = UNIT[lattice || 'graph'];
  const svg = s(
    'svg',
    {
      class: 'fitted poly-board',
      viewBox: `${x0} ${y0} ${w} ${hh}`,
      preserveAspectRatio: 'xMidYMid meet',
      role: 'group',
      'aria-label': tr('poly.board', { n: board.length }),
      'data-placed-count': board.length,
    },
    items,
  );
  svg.style.maxWidth = `${Math.round(w * unit)}px`;
  svg.style.maxHeight = `${Math.round(hh * unit)}px`;
  svg.style.margin = '0 auto';
  // Then scaled to the room left above the hand, once in the page.
  // Pips are written beside the sides: a cell needs room to read them.
  queueMicrotask(() => fitFelt(svg.closest('.felt') || svg.parentElement, MIN_UNIT[lattice || 'graph']));
  return svg;
}

const UNIT = { triangle: 104, square: 72, hex: 46, graph: 80 };
const MIN_UNIT = { triangle: 48, square: 36, hex: 30, graph: 30 };

function target(t, kids) {
  const g = s('g', { class: `p-target ${t.preview ? 'p-pending' : ''}`, role: 'button', tabindex: '0', 'aria-label': t.label, 'data-key': `spot-${spotKey(t.at)}` }, kids);
  g.addEventListener('click', t.pick);
  g.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      t.pick();
    } else if (e.key === 'Escape' && t.cancel) {
      e.preventDefault();
      t.cancel();
    }
  });
  return g;
}

// --- the table's state -------------------------------------------------------------

/** Applies a poly match's events to its table; true when it showed another seat's move. */
export function applyPolyEvents(app, t, events, log) {
  const v = t.view;
  const n = v['hand-sizes'].length;
  const who = (seat) => app.who(t, seat, { cap: true });
  if (!t.tiles) t.tiles = tileSet(t.variant);
  let watched = false;
  for (const ev of events) {
    switch (ev.event) {
      case 'played': {
        const mine = (v.hand || []).find(([id]) => id === ev.tile);
        const pips = mine ? mine[1] : t.tiles[ev.tile] || [];
        const graph = !latticeOf(v['board-kind']);
        const all = (1 << pips.length) - 1;
        const node = v.board.length;
        v.board.push({
          node,
          tile: ev.tile,
          pips,
          at: ev.at,
          rotation: ev.rotation,
          open: graph ? (ev.at.kind === 'root' ? all : all & ~(1 << ev.rotation)) : 0,
        });
        if (graph && ev.at.kind === 'face' && v.board[ev.at.node]) v.board[ev.at.node].open &= ~(1 << ev.at.face);
        v['hand-sizes'][ev.seat] -= 1;
        if (v.hand) v.hand = v.hand.filter(([id]) => id !== ev.tile);
        if (ev.points) v.scores[ev.seat] += ev.points;
        v.drawn = 0;
        v.passes = 0;
        v['to-move'] = (ev.seat + 1) % n;
        t.passed.delete(ev.seat);
        t.banner = null;
        log(t, tr('poly.played', { who: who(ev.seat), tile: polyName(pips), spot: spotName(ev.at, v), score: ev.points ? tr('poly.scoring', { n: ev.points }) : '' }));
        watched = ev.seat !== t.seat;
        break;
      }
      case 'drew':
        v.stock = Math.max(0, (v.stock || 0) - 1);
        v['hand-sizes'][ev.seat] += 1;
        v.drawn = (v.drawn || 0) + 1;
        v['to-move'] = ev.seat;
        log(t, tr('poly.drew', { who: who(ev.seat), tile: ev.tile !== undefined && t.tiles[ev.tile] ? ` (${polyName(t.tiles[ev.tile])})` : '' }));
        watched = ev.seat !== t.seat;
        break;
      case 'passed': {
        v.passes = (v.passes || 0) + 1;
        v.drawn = 0;
        v['to-move'] = (ev.seat + 1) % n;
        t.passed.add(ev.seat);
        const text = tr('poly.passed', { who: who(ev.seat) });
        t.banner = { text, seat: ev.seat };
        log(t, text);
        watched = ev.seat !== t.seat;
        break;
      }
      case 'hand-ended': {
        const pts = (ev.points || []).slice(0, n);
        pts.forEach((p, seat) => (v.scores[seat] += p));
        t.passed = new Set();
        const winner = ev.winner === null || ev.winner === undefined ? null : app.who(t, ev.winner);
        const won = winner === null ? tr('poly.nobody-wins') : ev.winner === t.seat ? tr('poly.you-win') : tr('poly.wins', { who: winner });
        const scored = pts.map((p, seat) => (p ? `${app.who(t, seat)} +${p}` : null)).filter(Boolean);
        const blocked = ev.blocked ? tr('poly.blocked') : '';
        log(t, tr('poly.hand-over', { n: ev.hand + 1, blocked, won, scored: scored.length ? `; ${scored.join(', ')}` : '' }));
        // Shown until the next tile is played.
        t.banner = { text: tr('poly.hand-over', { n: ev.hand + 1, blocked, won, scored: scored.length ? ` (${scored.join(', ')})` : '' }) };
        watched = true;
        break;
      }
      case 'match-ended':
        v['to-move'] = null;
        break;
    }
  }
  return watched;
}

/** The legal moves in words. */
export function describePoly(t) {
  const hand = new Map((t.view?.hand || []).map(([id, pips]) => [id, pips]));
  return legalInWords(t, (id) => polyName(hand.get(id) || []));
}

// --- the table page's parts ----------------------------------------------------------

function send(app, t, move) {
  t.pending = null;
  sendMove(app, t, move, 'poly');
}

function movesFor(t, tile) {
  return (t.prompt?.legal || []).filter((m) => m.kind === 'play' && m.tile === tile);
}

/** The chosen tile's spots, each with its legal rotations. */
function spots(t) {
  const bySpot = new Map();
  for (const m of movesFor(t, t.choosing)) {
    const k = spotKey(m.at);
    if (!bySpot.has(k)) bySpot.set(k, []);
    bySpot.get(k).push(m);
  }
  return bySpot;
}

function pipsOf(t, id) {
  const mine = (t.view?.hand || []).find(([x]) => x === id);
  return mine ? mine[1] : t.tiles?.[id] || [];
}

/** Picks a spot: plays at once when one rotation fits, else shows the first and cycles on each pick. */
function pickSpot(app, t, key) {
  const moves = spots(t).get(key) || [];
  if (!moves.length) return;
  if (moves.length === 1) return send(app, t, moves[0]);
  if (t.pending?.key === key) t.pending.index = (t.pending.index + 1) % moves.length;
  else {
    t.pending = { key, index: 0 };
    // From the keyboard: Play here confirms, Rotate (just before it) turns.
    t.focusConfirm = true;
  }
  const m = moves[t.pending.index];
  app.announce(tr('poly.ways-here', { how: rotationText(t, m), n: moves.length }));
  app.update();
}

function rotationText(t, m) {
  const pips = pipsOf(t, m.tile);
  if (m.at.kind === 'cell') {
    const lattice = latticeOf(t.view['board-kind']) || 'triangle';
    const { x, y } = m.at;
    const atCorners = byCorners(t.variant);
    const around = meetings(lattice, t.view, x, y, pips, m.rotation, atCorners);
    const met = new Set(around.map((n) => n.side));
    const n = pips.length;
    // The sides against no tile tell apart turns that meet alike.
    const free = [];
    for (let side = 0; side < n; side++) {
      if (!met.has(side)) free.push(`${sideText(pips, m.rotation, side, atCorners)} ${words(HERE, lattice, x, y, side)}`);
    }
    const meet = around.map((a) => tr('poly.meets', { mine: a.mine, their: a.their }));
    const and = tr('poly.and');
    return tr('poly.turned', { tile: polyName(pips), how: `${meet.length ? meet.join(and) : `${free.shift()}`}${free.length ? `, ${free.join(and)}` : ''}` });
  }
  const parent = t.view?.board?.[m.at.node];
  const theirs = parent ? parent.pips[m.at.face] : pips[m.rotation];
  return tr('poly.turned-graph', { tile: polyName(pips), mine: ordinalPip(pips, m.rotation), theirs });
}

/** The board's targets for the chosen tile. */
export function polyTargets(app, t) {
  if (t.choosing === null || t.choosing === undefined || !t.prompt) return [];
  const out = [];
  for (const [key, moves] of spots(t)) {
    const pending = t.pending?.key === key ? moves[t.pending.index] : null;
    const pips = pipsOf(t, t.choosing);
    const where = spotName(moves[0].at, t.view);
    const label = pending
      ? tr('poly.target-pending', { where: `${where[0].toUpperCase()}${where.slice(1)}`, how: rotationText(t, pending) })
      : tr('poly.target', { tile: polyName(pips), where, ways: moves.length > 1 ? tr('poly.ways', { n: moves.length }) : '' });
    out.push({
      at: moves[0].at,
      label,
      pick: () => pickSpot(app, t, key),
      cancel: () => {
        t.choosing = null;
        t.pending = null;
        t.focusHand = true;
        app.update();
      },
      preview: pending ? { pips, rotation: pending.rotation } : null,
    });
  }
  return out;
}

/** The hand, the rotation controls, draw and pass. */
export function polyHandArea(app, t, { title }) {
  const hand = t.view?.hand || [];
  const buttons = hand.map(([id, pips], i) => {
    const ok = movesFor(t, id).length > 0;
    const chosen = t.choosing === id;
    return h(
      'button',
      {
        class: `tile poly ${ok ? 'legal' : ''} ${chosen ? 'chosen' : ''}`,
        'aria-label': `${polyName(pips)}${t.prompt ? (ok ? tr('poly.playable') : tr('poly.not-playable')) : ''}`,
        'aria-disabled': t.prompt && !ok ? 'true' : null,
        'aria-pressed': chosen ? 'true' : null,
        tabindex: '-1',
        'data-key': `hand-${id}`,
        'data-index': i,
        onclick: () => {
          if (!ok) return;
          t.choosing = chosen ? null : id;
          t.pending = null;
          if (t.choosing !== null) {
            t.focusSpot = 'first';
            app.announce(tr('poly.choose-where', { tile: polyName(pips), n: spots(t).size }));
          }
          app.update();
        },
      },
      polyTileSvg(pips, byCorners(t.variant)),
    );
  });
  const first = buttons.find((b) => b.classList.contains('legal')) || buttons[0];
  if (first) first.tabIndex = 0;
  const row = h(
    'div',
    {
      class: `hand ${t.prompt ? '' : 'idle'}`,
      role: 'toolbar',
      'aria-label': tr('poly.your-hand-tiles', { tiles: hand.length ? hand.map(([, p]) => polyName(p)).join(', ') : tr('poly.empty') }),
      onkeydown: (e) => {
        if (e.key === 'Escape' && t.choosing !== null) {
          t.choosing = null;
          t.pending = null;
          app.update();
          return;
        }
        rovingTiles(e, row);
      },
    },
    buttons,
  );
  const extra = [];
  if (t.choosing !== null && t.choosing !== undefined && t.prompt) {
    const bySpot = spots(t);
    const moves = t.pending ? bySpot.get(t.pending.key) || [] : [];
    const m = moves[t.pending?.index ?? 0];
    extra.push(
      h(
        'div',
        {
          class: 'choices row',
          role: 'group',
          'aria-label': tr('poly.where-to-play', { tile: polyName(pipsOf(t, t.choosing)) }),
          onkeydown: (e) => {
            if (e.key === 'Escape') {
              t.choosing = null;
              t.pending = null;
              t.focusHand = true;
              app.update();
            }
          },
        },
        h('span', {}, m ? tr('poly.choice-of', { how: rotationText(t, m), k: t.pending.index + 1, n: moves.length }) : tr('poly.pick-spot', { n: bySpot.size })),
        m
          ? h('button', { 'data-key': 'poly-rotate', onclick: () => pickSpot(app, t, t.pending.key) }, tr('poly.rotate'))
          : null,
        m ? h('button', { class: 'primary', 'data-key': 'poly-confirm', onclick: () => send(app, t, m) }, tr('poly.play-here')) : null,
        h(
          'button',
          {
            'data-key': 'choice-cancel',
            onclick: () => {
              t.choosing = null;
              t.pending = null;
              t.focusHand = true;
              app.update();
            },
          },
          tr('poly.another-tile'),
        ),
      ),
    );
  }
  extra.push(otherMoves(t, { label: (m) => (m.kind === 'draw' ? tr('tb.draw-lc') : tr('tb.pass-lc')), send: (m) => send(app, t, m) }));
  if (t.seat !== null) extra.push(autoPassSwitch(app));
  return h('section', { class: `hand-area ${t.prompt ? 'my-turn' : ''}`, 'aria-label': tr('tb.hand-and-moves') }, title, row, extra);
}

/** The scores of a poly match (every seat its own side) with the target. */
export function polyScores({ view, variant, seat, name }) {
  const target = variant?.target;
  let goal = '';
  if (target?.points) goal = tr('poly.goal-points', { n: target.points.points });
  else if (target?.hands !== undefined) goal = tr('poly.goal-hands', { n: target.hands });
  return h(
    'section',
    { class: 'scoreboard', 'aria-label': tr('poly.match-score') },
    (view?.scores || []).map((pts, s) =>
      h(
        'div',
        { class: `score ${s === seat ? 'mine' : ''} ${view?.['to-move'] === s ? 'turn' : ''}`, role: 'group', 'aria-label': tr('poly.seat-score', { name: name(s), n: pts, turn: view?.['to-move'] === s ? tr('poly.to-move') : '' }) },
        h('div', { class: 'small' }, name(s)),
        h('strong', {}, String(pts)),
      ),
    ),
    h('div', { class: 'score small muted', 'data-hand': view?.['hand-number'] ?? 0 }, tr('poly.hand-n', { n: (view?.['hand-number'] ?? 0) + 1 }), goal ? h('br') : null, goal),
    h('div', { class: 'score small muted', 'aria-label': tr('poly.stock-label', { n: view?.stock ?? 0 }) }, tr('poly.stock', { n: view?.stock ?? 0 })),
  );
}

/** One event of a stored poly game, in words (for the replay page). */
export function polyEventText(ev, { who, view, tiles }) {
  switch (ev.event) {
    case 'played': {
      const placed = (view?.board || []).find((p) => p.tile === ev.tile);
      const pips = placed ? placed.pips : tiles[ev.tile] || [];
      return tr('poly.played', { who: who(ev.seat, true), tile: polyName(pips), spot: spotName(ev.at, view), score: ev.points ? tr('poly.scoring', { n: ev.points }) : '' });
    }
    case 'drew':
      return tr('poly.drew', { who: who(ev.seat, true), tile: ev.tile !== undefined && tiles[ev.tile] ? ` (${polyName(tiles[ev.tile])})` : '' });
    case 'passed':
      return tr('poly.passed', { who: who(ev.seat, true) });
    case 'hand-ended': {
      const won = ev.winner === null || ev.winner === undefined ? tr('poly.nobody-wins') : tr('poly.wins', { who: who(ev.winner) });
      return tr('poly.hand-over', { n: ev.hand + 1, blocked: ev.blocked ? tr('poly.blocked') : '', won, scored: '' });
    }
    case 'match-ended':
      return ev.winner === null || ev.winner === undefined ? tr('poly.match-drawn') : tr('poly.match-won', { who: who(ev.winner, true) });
    default:
      return '';
  }
}

/** A seat's hand as pictures (the replay page: not buttons). */
export function polyHandPictures(hand, label, atCorners = false) {
  return h(
    'div',
    { class: 'hand idle', role: 'group', 'aria-label': `${label}: ${hand.length ? hand.map(([, p]) => polyName(p)).join(', ') : tr('poly.empty')}` },
    hand.length
      ? hand.map(([, pips]) => h('span', { class: 'tile poly', role: 'img', 'aria-label': polyName(pips) }, polyTileSvg(pips, atCorners)))
      : h('p', {}, tr('poly.no-tiles-left')),
  );
}
