// A room: the waiting room before a match, the table during one (board,
// your hand, the other seats, scores, clock), the result after it.

import { h, replace, tileName, sameTile, joinWords, rovingTiles } from './dom.js';
import { renderBoard, endName, endPip, endSum, endSumPoints, stickyHeight } from './board.js';
import { tileSvg, needsNumerals } from './tiles.js';
import { strengthOptions } from './lobby.js';
import { hintBox, isHinted } from './hints.js';
import { renderPolyBoard, polyTargets, polyHandArea, polyScores, describePoly, polyHandPictures, byCorners } from './poly.js';
import { sendMove, otherMoves, legalInWords, handTitle, secondsLeft, autoPassSwitch } from './prompt.js';

export { secondsLeft };
import { t as say } from './i18n.js';
import { shownRating, signed } from './rating.js';

/** A replay's address: its game, the seat watched, the step and a private room's key. */
export function replayHash(game, { seat = null, step = 0, key = null } = {}) {
  const q = new URLSearchParams();
  if (seat !== null && seat !== '') q.set('seat', seat);
  if (step) q.set('step', step);
  if (key) q.set('key', key);
  const query = q.toString();
  return `#/replay/${game}${query ? `?${query}` : ''}`;
}

// --- shared pieces (also used by the replay page) -----------------------------

/** The side names and scores, with the match target. */
export function scoreboard({ view, variant, seat, sideOf, sideName }) {
  const scores = view?.scores || [];
  const target = variant?.target;
  let goal = '';
  if (target?.points) goal = say('tb.to-points', { n: target.points.points });
  else if (target?.hands !== undefined) goal = say('tb.to-hands', { n: target.hands });
  const mine = seat === null || seat === undefined ? null : sideOf(seat);
  return h(
    'section',
    { class: 'scoreboard', 'aria-label': say('tb.match-score') },
    scores.map((pts, side) =>
      h(
        'div',
        { class: `score ${side === mine ? 'mine' : ''}`, role: 'group', 'aria-label': say('tb.side-points', { side: sideName(side), n: pts }) },
        h('div', { class: 'small' }, sideName(side)),
        h('strong', {}, String(pts)),
      ),
    ),
    goal ? h('div', { class: 'score small muted' }, goal) : null,
  );
}

/** `subject` scores `points` (or wins the hand), with the verb agreeing. */
export function scoresText(subject, points) {
  // "You" and "Seats 2 and 4" take a plural verb in English; the catalog agrees its own way.
  const you = subject === say('tb.you-cap');
  const plural = you || subject.startsWith(say('tb.seats-prefix'));
  return say(points ? 'tb.scores' : 'tb.wins-hand', { who: subject, n: points, plural, you });
}

/** A hand's result in words: how it ended and who scored. */
export function handWords(result, { who, sideName }) {
  const end = result.end || {};
  // Spanish conjugates for "you": the catalog is told when the seat is the reader's.
  const you = (s) => who(s, true) === say('tb.you-cap');
  let how = '';
  switch (end.kind) {
    case 'out':
      how = say(end.capicua ? 'tb.out-capicua' : 'tb.out', { who: who(end.seat, true), you: you(end.seat) });
      break;
    case 'blocked':
      how = say('tb.blocked', { who: who(end.blocker), you: you(end.blocker) });
      break;
    case 'target':
      how = say('tb.end-target');
      break;
    case 'passes':
      how = say('tb.end-passes');
      break;
    case 'hand-score':
      how = say('tb.end-hand-score', { who: who(end.seat, true), you: you(end.seat) });
      break;
    default:
      how = say('tb.end-over');
  }
  const scored =
    result.winner === null || result.winner === undefined
      ? say('tb.nobody-wins')
      : `${scoresText(sideName(result.winner), result.points)}.`;
  return { how, scored };
}

/** A hand's result: how it ended, who scored, the pips left. */
export function handSummary(result, { who, sideName, onClose }) {
  const { how, scored } = handWords(result, { who, sideName });
  const pips = (result.pips || []).map((p, s) => `${who(s)}: ${p}`);
  return h(
    'section',
    { class: 'card summary', 'aria-labelledby': 'sum-h' },
    h('h2', { id: 'sum-h' }, say('tb.hand-result', { n: result.hand + 1 })),
    h('p', {}, how, ' ', h('strong', {}, scored)),
    pips.length ? h('p', { class: 'small' }, say('tb.pips-left', { list: pips.join('; ') })) : null,
    onClose ? h('button', { onclick: onClose, 'data-key': 'sum-ok' }, say('tb.ok')) : null,
  );
}

/**
 * The end of a hand as at a table: every seat's remaining tiles face up
 * with their pips, each team's total, how the hand ended and the points
 * scored, and a button to go on to the next hand.
 */
function handEndPanel(app, t) {
  const end = t.handEnd;
  const r = end.result || {};
  const v = end.view || {};
  const who = (s, cap) => app.who(t, s, { cap });
  const sn = (side) => sideName(app, t, side);
  const { how, scored } = handWords(r, { who, sideName: sn });
  const n = v['hand-sizes']?.length ?? r.pips?.length ?? 0;
  const numerals = needsNumerals(t.variant);
  const pipsOf = (s) => r.pips?.[s] ?? (v.hands?.[s] || []).reduce((a, [x, y]) => a + x + y, 0);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const s = t.seat === null ? i : (t.seat + i) % n;
    const tiles = v.hands?.[s] || (s === t.seat ? v.hand : null) || [];
    const pips = pipsOf(s);
    const label = `${who(s, true)}: ${tiles.length ? tiles.map(tileName).join(', ') : say('tb.no-tiles')}; ${say('tb.pips', { n: pips })}`;
    rows.push(
      h(
        'li',
        { class: 'row', 'aria-label': label },
        h('strong', { class: 'he-who' }, who(s, true)),
        h('span', { class: 'revealed', 'aria-hidden': 'true' }, tiles.map((tile) => tileSvg(tile, { numerals }))),
        h('span', { class: 'pips', 'aria-hidden': 'true' }, say('tb.pips', { n: pips })),
      ),
    );
  }
  // Teams count their pips together.
  const sides = new Map();
  for (let s = 0; s < n; s++) {
    const side = app.sideOf(t, s);
    if (!sides.has(side)) sides.set(side, []);
    sides.get(side).push(s);
  }
  const teams = [...sides.entries()].filter(([, list]) => list.length > 1);
  const teamLine = teams.length
    ? h('p', {}, say('tb.pips-team', { list: teams.map(([side, list]) => `${sn(side)}: ${list.reduce((a, s) => a + pipsOf(s), 0)}`).join('; ') }))
    : null;
  const played = (r['play-points'] || []).map((p, side) => (p ? `${sn(side)} ${p}` : null)).filter(Boolean);
  const watcher = app.watching(t);
  return h(
    'section',
    { class: 'card summary hand-end', 'aria-labelledby': 'sum-h', tabindex: '-1' },
    h('h2', { id: 'sum-h' }, say('tb.hand-result', { n: (r.hand ?? end.hand) + 1 })),
    h('p', {}, how, ' ', h('strong', {}, scored)),
    h('ul', { class: 'hands-up', 'aria-label': say('tb.hands-up') }, rows),
    teamLine,
    played.length ? h('p', { class: 'small' }, say('tb.play-points', { list: played.join('; ') })) : null,
    !end.last && watcher ? h('p', { class: 'small muted' }, say('tb.next-soon')) : null,
  );
}

/**
 * The open ends' count, in a variant that scores it during play (all
 * fives, fives and threes): the sum and the points it scores now.
 */
function endsCount(t, view) {
  const rule = t.variant?.scoring?.['during-play'];
  if (!view?.ends?.length || !rule || rule === 'none' || rule === 'headers') return null;
  const sum = endSum(view.ends);
  const points = endSumPoints(rule, sum);
  const plays = (view.history || []).filter((r) => r.action.kind === 'play').length;
  return h(
    'p',
    { class: 'ends-count', 'data-sum': sum, 'data-points': points, 'data-hand': view['hand-number'] ?? 0, 'data-plays': plays },
    points ? say('tb.ends-score', { sum, n: points }) : say('tb.ends-sum', { sum }),
  );
}

/** A two-faced hand's end in a line: how it ended and who scored. */
function handEndLine(app, t) {
  const r = t.handEnd.result || {};
  const { how, scored } = handWords(r, { who: (s, cap) => app.who(t, s, { cap }), sideName: (side) => sideName(app, t, side) });
  return `${how} ${scored}`;
}

/**
 * Over the final board, at a hand's end: the hand, how it ended, the
 * points, and Continue. The board, the hands face up around it and the
 * score stay in sight together while the player reads.
 */
function handEndBar(app, t, line) {
  const hand = t.handEnd.result?.hand ?? t.handEnd.hand ?? 0;
  return h(
    'div',
    { class: 'hand-end-bar' },
    h('p', {}, h('strong', {}, `${say('tb.hand-result', { n: hand + 1 })}: `), line),
    t.handEnd.last
      ? null
      : h('button', { class: 'primary', 'data-key': 'hand-continue', onclick: () => app.continueHand(t) }, say('tb.continue')),
  );
}

/**
 * Where a seat sits around the table, seen from `mySeat` at the bottom.
 * Seats are numbered clockwise, so the next seat is on the left: in four,
 * left, opposite (top) and right; in three, left and right; in two, opposite.
 */
export function seatPlace(seat, mySeat, n) {
  const rel = (seat - (mySeat ?? 0) + n) % n;
  if (rel === 0) return 'bottom';
  if (n === 2) return 'top';
  if (n === 3) return rel === 1 ? 'left' : 'right';
  if (n === 4) return ['bottom', 'left', 'top', 'right'][rel];
  return rel === 1 ? 'left' : rel === n - 1 ? 'right' : 'top';
}

/**
 * What the table says of seat `s` when its person's connection dropped in a
 * match (null otherwise): that they are disconnected, and what the room's
 * timeout policy does with their turns meanwhile.
 */
function awayNote(t, s) {
  const o = t.info?.seats?.[s]?.occupant;
  if (!o || o.kind === 'hosted-bot' || o.connected !== false || t.info?.status !== 'playing') return null;
  const policy = t.info?.['on-timeout']?.kind;
  const then = policy === 'pass' ? 'tb.away-pass' : policy === 'forfeit' ? 'tb.away-forfeit' : 'tb.away-bot';
  return say(then);
}

/** The other seats: names, partners, tile counts, passes, the seat to move. */
export function seatPanels({ view, seats, mySeat, sideOf, names, clockFor, passed, last, away, around = false, numerals = false }) {
  const n = view?.['hand-sizes']?.length ?? seats;
  const mySide = mySeat === null || mySeat === undefined ? null : sideOf(mySeat);
  const order = [];
  for (let i = 1; i <= n; i++) {
    const s = mySeat === null || mySeat === undefined ? i - 1 : (mySeat + i) % n;
    if (s !== mySeat) order.push(s);
  }
  return h(
    'section',
    { class: `seats ${around ? 'around' : ''}`, 'aria-label': say('tb.other-seats') },
    order.map((s) => {
      const count = view?.['hand-sizes']?.[s];
      const toMove = view?.['to-move'] === s;
      // Seen from a seat: partner or opponent; from outside: whose partner.
      const mates = [...Array(n).keys()].filter((x) => x !== s && sideOf(x) === sideOf(s));
      const rel =
        mySide !== null ? (sideOf(s) === mySide ? say('tb.partner') : say('tb.opponent')) : mates.length ? say('tb.partner-of', { seats: joinWords(mates.map((x) => String(x + 1))) }) : null;
      const didPass = passed?.has(s);
      const action = last?.get?.(s);
      const shown = view?.hands?.[s];
      const bits = rel ? [names(s), rel] : [names(s)];
      if (count !== undefined) bits.push(say('tb.tiles', { n: count }));
      if (didPass) bits.push(say('tb.passed'));
      else if (action) bits.push(say('tb.last', { action }));
      if (toMove) bits.push(say('tb.to-move'));
      // A seated person whose connection dropped: said at once, with what
      // happens to their turns.
      const gone = away?.(s);
      if (gone) bits.push(gone);
      const place = around ? seatPlace(s, mySeat, n) : null;
      return h(
        'div',
        {
          class: `seat ${toMove ? 'to-move' : ''} ${gone ? 'away' : ''} ${place ? `at-${place}` : ''}`,
          role: 'group',
          'aria-label': say('tb.seat-label', { n: s + 1, bits: bits.join(', ') }),
        },
        h('div', { class: 'name' }, say('tb.seat-name', { n: s + 1, name: names(s) })),
        h(
          'div',
          {},
          rel ? h('span', { class: 'tag' }, rel) : null,
          didPass ? h('span', { class: 'tag pass' }, say('tb.passed')) : action ? h('span', { class: 'tag last' }, action) : null,
          toMove ? h('span', { class: 'tag turn' }, say('tb.to-move')) : null,
          toMove && clockFor ? clockFor(s) : null,
        ),
        gone ? h('div', { class: 'tag away', role: 'status' }, gone) : null,
        shown && s !== mySeat && around
          ? h(
              'div',
              { class: 'revealed', role: 'img', 'aria-label': say('tb.seat-tiles', { n: s + 1, list: shown.length ? shown.map(tileName).join(', ') : say('tb.none') }) },
              shown.map((tile) => tileSvg(tile, { numerals })),
            )
          : count !== undefined
            ? h(
                'div',
                { class: 'small' },
                say('tb.tiles', { n: count }),
                h('div', { class: 'backs', 'aria-hidden': 'true' }, Array.from({ length: Math.min(count, 21) }, () => h('span'))),
              )
            : null,
        shown && s !== mySeat && !around ? h('div', { class: 'small' }, say('tb.shown', { list: shown.map(tileName).join(', ') })) : null,
      );
    }),
  );
}

/** A clock's text (the page's ticker keeps it current). */
/** Tile halves across the board for a container this wide (in CSS pixels). */
export function boardWidth(px) {
  const w = Math.round((px || 900) / 30);
  return Math.max(10, Math.min(30, w - (w % 2)));
}

// --- the room page ---------------------------------------------------------------

function names(t, s) {
  const o = t.info?.seats?.[s]?.occupant;
  if (s === t.seat) return o ? say('tb.you-named', { name: o.name }) : say('tb.you');
  return o ? o.name : say('tb.empty');
}

/** A side as the scoreboard names it: "You", "Your side (you and seat 3)", "Seat 2", "Seats 2 and 4". */
export function sideName(app, t, side) {
  const seats = (t.info?.seats || []).filter((x) => app.sideOf(t, x.seat) === side).map((x) => x.seat);
  const mine = t.seat !== null && seats.includes(t.seat);
  if (!seats.length) return say('tb.side', { n: side + 1 });
  if (mine) {
    if (seats.length === 1) return say('tb.you-cap');
    return say('tb.your-side', { list: joinWords(seats.map((s) => (s === t.seat ? say('tb.you') : say('tb.seat', { n: s + 1 })))) });
  }
  if (seats.length === 1) return say('tb.seat-cap', { n: seats[0] + 1 });
  return `${say('tb.seats-prefix')}${joinWords(seats.map((s) => String(s + 1)))}`;
}

/** Whether another legal move puts the same tile on the same end (by its other face). */
function twoWays(t, m) {
  return (t.prompt?.legal || []).some((o) => o !== m && o.kind === 'play' && o.end === m.end && sameTile(o.tile, m.tile));
}

function moveLabel(t, m) {
  if (m.kind === 'draw') return say('tb.draw-lc');
  if (m.kind === 'pass') return say('tb.pass-lc');
  const name = tileName(m.tile);
  if (m.end === 255) return say('tb.lead', { tile: name });
  const where = say('tb.play-on', { tile: name, end: endName(m.end, { view: t.view, variant: t.variant, seat: t.seat }) });
  // Rules where any face may join (wild tiles, sums): say which one touches.
  return twoWays(t, m) ? say('tb.touching', { where, pip: m.tile[m.face] }) : where;
}

function pickTile(app, t, tile) {
  const moves = (t.prompt?.legal || []).filter((m) => m.kind === 'play' && sameTile(m.tile, tile));
  if (!moves.length) return;
  // The room offers one move per result: more than one is a real choice.
  if (moves.length === 1) return sendMove(app, t, moves[0]);
  t.choosing = tile;
  t.focusChoice = true;
  app.announce(say('tb.choose-where', { tile: tileName(tile), list: moves.map((m) => moveLabel(t, m)).join('; ') }));
  app.update();
}

function handArea(app, t) {
  const hand = t.view?.hand || [];
  const legal = t.prompt?.legal || [];
  const movesOf = (tile) => legal.filter((m) => m.kind === 'play' && sameTile(m.tile, tile));
  const playable = (tile) => movesOf(tile).length > 0;
  const choose = (tile) => movesOf(tile).length > 1;
  const numerals = needsNumerals(t.variant);
  const names = hand.map(tileName);
  const buttons = hand.map((tile, i) => {
    const ok = playable(tile);
    const chosen = t.choosing && sameTile(t.choosing, tile);
    const hinted = ok && isHinted(t, tile);
    return h(
      'button',
      {
        class: `tile ${ok ? 'legal' : ''} ${chosen ? 'chosen' : ''} ${hinted ? 'hinted' : ''}`,
        'aria-label': `${tileName(tile)}${t.prompt ? (ok ? (choose(tile) ? say('tb.playable-choose') : say('tb.playable')) : say('tb.not-playable')) : ''}${hinted ? say('tb.the-hint') : ''}`,
        'aria-disabled': t.prompt && !ok ? 'true' : null,
        'aria-pressed': chosen ? 'true' : null,
        tabindex: '-1',
        'data-key': `hand-${tileName(tile)}`,
        'data-index': i,
        onclick: () => ok && pickTile(app, t, tile),
      },
      tileSvg(tile, { numerals }),
    );
  });
  // One tab stop for the hand; arrows move within it (a roving tabindex).
  const first = buttons.find((b) => b.classList.contains('legal')) || buttons[0];
  if (first) first.tabIndex = 0;
  const row = h(
    'div',
    {
      class: `hand ${t.prompt ? '' : 'idle'}`,
      role: 'toolbar',
      'aria-label': say('tb.your-hand-label', { list: names.length ? names.join(', ') : say('tb.hand-empty') }),
      onkeydown: (e) => rovingTiles(e, row),
    },
    buttons,
  );
  const extra = [];
  if (t.choosing && t.prompt) {
    const moves = legal.filter((m) => m.kind === 'play' && sameTile(m.tile, t.choosing));
    extra.push(
      h(
        'div',
        {
          class: 'choices row',
          role: 'group',
          'aria-label': say('tb.where-to-play', { tile: tileName(t.choosing) }),
          onkeydown: (e) => {
            if (e.key === 'Escape') {
              t.choosing = null;
              t.focusHand = true;
              app.update();
            }
          },
        },
        h('span', {}, say('tb.play-tile', { tile: tileName(t.choosing) })),
        moves.map((m, i) => {
          const pip = m.end === 255 ? null : endPip(m.end, t.view);
          return h(
            'button',
            {
              class: 'primary',
              'aria-label': moveLabel(t, m),
              'data-key': `choice-${i}`,
              onclick: () => sendMove(app, t, m),
            },
            `${moveLabel(t, m).replace(say('tb.play-prefix', { tile: tileName(m.tile) }), '')}${pip === null ? '' : say('tb.open-at', { pip })}`,
          );
        }),
        h(
          'button',
          {
            'data-key': 'choice-cancel',
            onclick: () => {
              t.choosing = null;
              t.focusHand = true;
              app.update();
            },
          },
          say('tb.choose-another'),
        ),
      ),
    );
  }
  // The hint's move is a copy: name it as the legal move it equals.
  const same = (m) => legal.find((o) => JSON.stringify(o) === JSON.stringify(m)) || m;
  const hint = hintBox(app, t, (m) => moveLabel(t, same(m)));
  if (hint) extra.push(hint);
  extra.push(otherMoves(t, { label: (m) => moveLabel(t, m), send: (m) => sendMove(app, t, m) }));
  if (t.seat !== null) extra.push(autoPassSwitch(app));
  return h('section', { class: `hand-area ${t.prompt ? 'my-turn' : ''}`, 'aria-label': say('tb.hand-and-moves') }, handTitle(t, describe), row, extra);
}

function boardTargets(app, t) {
  if (!t.choosing || !t.prompt) return [];
  return t.prompt.legal
    .filter((m) => m.kind === 'play' && sameTile(m.tile, t.choosing))
    .filter((m) => !twoWays(t, m))
    .map((m) => ({ end: m.end, label: moveLabel(t, m), pick: () => sendMove(app, t, m) }));
}

/**
 * A seat's team in the waiting room, named as the table names it: your
 * partner or a rival when you sit, whose partner it is when you watch;
 * nothing when every seat plays for itself.
 */
function waitSide(info, t, s) {
  const mates = info.seats.filter((x) => x.seat !== s.seat && x.side === s.side).map((x) => x.seat);
  const mine = t.seat === null ? null : info.seats.find((x) => x.seat === t.seat)?.side;
  if (s.seat === t.seat) return '';
  if (mine !== null && mine !== undefined) return ` (${s.side === mine ? say('tb.partner') : say('tb.opponent')})`;
  return mates.length ? ` (${say('tb.partner-of', { seats: joinWords(mates.map((x) => String(x + 1))) })})` : '';
}

function waitingRoom(app, t) {
  const info = t.info;
  if (!info) return h('p', {}, say('tb.loading-room'));
  const seated = t.seat !== null && !t.lost;
  const me = seated ? info.seats[t.seat]?.occupant : null;
  const empty = info.seats.filter((s) => !s.occupant).length;
  const rows = info.seats.map((s) => {
    const o = s.occupant;
    let status = 'empty';
    if (o) status = o.kind === 'hosted-bot' ? say('tb.bot-ready') : `${o.ready ? say('tb.ready') : say('tb.not-ready')}${o.connected ? '' : say('tb.away')}`;
    return h(
      'li',
      { 'aria-label': say('tb.wait-seat-label', { n: s.seat + 1, name: o ? o.name : say('tb.empty'), status }) },
      h('strong', {}, say('tb.seat-cap', { n: s.seat + 1 })),
      `${waitSide(info, t, s)}: `,
      o ? `${s.seat === t.seat ? say('tb.you-comma') : ''}${o.name} — ${status}` : `${say('tb.empty')} `,
      !o && !seated && info.status === 'waiting'
        ? h(
            'button',
            {
              'data-key': `take-${s.seat}`,
              'aria-label': say('tb.take-seat', { n: s.seat + 1 }),
              onclick: async () => {
                // A private room takes its invite, not its number.
                const r = await app.ask(t.invite ? { type: 'join', invite: t.invite, seat: s.seat } : { type: 'join', room: t.room, seat: s.seat });
                t.seat = r.seat;
                t.lost = false;
                t.spectating = false;
                if (app.me?.guest) app.rememberGuestSeat(t.room, r.seat);
                app.update();
              },
            },
            say('tb.take-this'),
          )
        : null,
      o && t.creator && s.seat !== t.seat && info.status === 'waiting'
        ? h(
            'button',
            {
              'data-key': `free-${s.seat}`,
              'aria-label': say('tb.free-seat-label', { n: s.seat + 1 }),
              onclick: () => app.ask({ type: 'unseat', room: t.room, seat: s.seat }).catch(() => {}),
            },
            say('tb.free-seat'),
          )
        : null,
    );
  });
  const controls = [];
  if (seated && empty > 0) {
    const select = h(
      'select',
      { id: 'fill-strength', 'data-key': 'fill-strength', onchange: (e) => (t.strength = e.target.value) },
      strengthOptions(app.catalog, t.strength, Boolean(t.info?.poly)),
    );
    if (!app.catalog) app.variants().then(() => app.update());
    controls.push(
      h(
        'div',
        { class: 'row' },
        h('label', { for: 'fill-strength' }, say('tb.bots')),
        select,
        h(
          'button',
          {
            'data-key': 'fill',
            onclick: () => app.ask({ type: 'fill-bots', room: t.room, strategy: t.strength }).catch(() => {}),
          },
          say('tb.fill', { n: empty }),
        ),
      ),
    );
  }
  if (seated) {
    controls.push(
      h(
        'div',
        { class: 'row' },
        me?.ready
          ? h('p', {}, empty ? say('tb.ready-wait-seats') : say('tb.ready-wait'))
          : h(
              'button',
              {
                class: 'primary',
                'data-key': 'ready',
                onclick: () => app.ask({ type: 'ready', room: t.room, 'read-hand-ends': true }).catch(() => {}),
              },
              t.gameOver ? say('tb.play-another') : say('tb.im-ready'),
            ),
        h('button', { 'data-key': 'leave', onclick: () => leave(app, t) }, say('tb.leave-room')),
      ),
      autoPassSwitch(app),
    );
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'wait-h' },
    h('h2', { id: 'wait-h' }, info.status === 'playing' ? say('tb.in-play') : say('tb.waiting')),
    t.invite ? inviteBox(app, t, empty > 0) : null,
    h('ul', { 'aria-label': say('tb.seats') }, rows),
    controls,
  );
}

/** A private room's invite link, for its members to pass on: it seats a friend while a seat is `free`, else lets them watch. */
function inviteBox(app, t, free) {
  const link = `${location.origin}${location.pathname}#/invite/${t.invite}`;
  const field = h('input', { id: 'invite-link', type: 'text', readonly: true, value: link, 'aria-label': say('tb.invite-link'), size: '60' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No clipboard access (an insecure origin, a refused permission):
      // select the link so that the person copies it.
      field.select();
      app.announce(say('tb.select-copy'));
      return;
    }
    app.announce(say('tb.copied'));
  };
  return h(
    'div',
    { class: 'row' },
    h('label', { for: 'invite-link' }, free ? say('tb.private-join') : say('tb.private-watch')),
    field,
    h('button', { type: 'button', 'data-key': 'copy-invite', onclick: copy }, say('tb.copy-invite')),
  );
}

async function leave(app, t) {
  try {
    await app.conn.request({ type: 'leave', room: t.room });
  } catch {
    // Not in the room any more: nothing to leave.
  }
  t.seat = null;
  t.spectating = false;
  app.go('#/');
}

/** What a rated match did to each rated seat's rating, the reader's own first. */
function ratingChanges(app, t, ratings) {
  if (!ratings?.length) return null;
  const mineFirst = [...ratings].sort((a, b) => (b.seat === t.seat) - (a.seat === t.seat));
  return h(
    'ul',
    { class: 'rating-changes', 'aria-label': say('tb.rating-changes') },
    mineFirst.map((r) =>
      h(
        'li',
        { class: r.seat === t.seat ? 'mine' : null },
        say('tb.rating-change', { who: app.who(t, r.seat, { cap: true }), rating: shownRating(r), change: signed(r.change) }),
        r.provisional ? h('span', { class: 'muted small' }, ` ${say('tb.provisional')}`) : null,
      ),
    ),
  );
}

function gameOverCard(app, t) {
  const g = t.gameOver;
  const r = g.result;
  const mine = t.seat === null ? null : app.sideOf(t, t.seat);
  const headline =
    r.winner === null || r.winner === undefined
      ? say('tb.match-drawn')
      : r.winner === mine
        ? say('tb.you-won')
        : mine === null
          ? say('tb.side-won', { side: sideName(app, t, r.winner) })
          : say('tb.you-lost');
  const link = g.game !== null && g.game !== undefined ? replayHash(g.game, { seat: t.seat, key: t.invite }) : null;
  if (t.overClosed) {
    return h(
      'p',
      { class: 'over-line row' },
      h('strong', {}, `${headline}.`),
      h('button', { 'data-key': 'over-open', onclick: () => ((t.overClosed = false), (t.focusOver = true), app.update()) }, say('tb.show-result')),
    );
  }
  // Over the table, where the player is looking; closed, it leaves the final board in view.
  return h(
    'section',
    { class: 'card summary over-dialog', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'over-h', tabindex: '-1', 'data-key': 'over-dialog',
      onkeydown: (e) => {
        if (e.key === 'Escape') {
          t.overClosed = true;
          app.update();
        }
      },
    },
    h('h2', { id: 'over-h' }, headline),
    h('p', {}, say('tb.final-score', { list: r.scores.map((p, side) => `${sideName(app, t, side)}: ${p}`).join(', '), n: r.hands })),
    r.forfeit !== undefined && r.forfeit !== null ? h('p', {}, say('tb.forfeit', { n: r.forfeit + 1 })) : null,
    ratingChanges(app, t, g.ratings),
    h(
      'div',
      { class: 'row' },
      link ? h('a', { class: 'button', href: link }, say('tb.replay-game', { n: g.game })) : null,
      h('a', { class: 'button', href: '#/' }, say('tb.back-lobby')),
      h('button', { 'data-key': 'over-close', onclick: () => ((t.overClosed = true), app.update()) }, say('tb.close')),
    ),
  );
}

/** A poly hand's end: the final position stays on the board; each seat's tiles face up. */
function polyHandEnd(app, t) {
  const v = t.handEnd.view || {};
  const n = v['hand-sizes']?.length ?? 0;
  const r = t.handEnd.result || {};
  const hand = r.hand ?? t.handEnd.hand ?? 0;
  const seats = [];
  for (let i = 0; i < n; i++) {
    const s = t.seat === null ? i : (t.seat + i) % n;
    const tiles = v.hands?.[s] || (s === t.seat ? v.hand : null) || [];
    seats.push(h('div', {}, h('strong', {}, app.who(t, s, { cap: true })), polyHandPictures(tiles, say('tb.who-tiles', { who: app.who(t, s) }), byCorners(t.variant))));
  }
  return h(
    'section',
    { class: 'card summary hand-end', 'aria-labelledby': 'sum-h', tabindex: '-1' },
    h('h2', { id: 'sum-h' }, say('tb.hand-result', { n: hand + 1 })),
    t.banner ? h('p', {}, t.banner.text) : null,
    seats,
  );
}

/**
 * The parts of a table that a tile family draws its own way: the scores,
 * the board, the hand and a hand's end. The page around them (seats,
 * clocks, banners, the match's end, the log) is one for every family.
 */
const TILES_TABLE = {
  feltClass: 'felt',
  // Up to four seats sit around the board; more sit in a row above it.
  around: (n) => n <= 4,
  stockLine: true,
  scores: (app, t) =>
    scoreboard({ view: t.view, variant: t.variant, seat: t.seat, sideOf: (s) => app.sideOf(t, s), sideName: (side) => sideName(app, t, side) }),
  hand: handArea,
  handEnd: handEndPanel,
  handEndLine,
  /** The board is drawn once the page is in place, at the felt's width. */
  drawBoard(app, t, felt) {
    const shown = t.handEnd?.view || t.view;
    felt.append(
      renderBoard({
        view: shown,
        variant: t.variant,
        seat: t.seat,
        width: boardWidth(felt.clientWidth - 20),
        numerals: needsNumerals(t.variant),
        targets: t.handEnd ? [] : boardTargets(app, t),
      }),
    );
    markLastTile(app, t, felt, shown);
  },
};

const POLY_TABLE = {
  feltClass: 'felt poly',
  around: () => false,
  // The poly scoreboard counts the stock itself.
  stockLine: false,
  scores: (app, t) =>
    polyScores({ view: t.view, variant: t.variant, seat: t.seat, name: (s) => (s === t.seat ? say('tb.you-cap') : say('tb.seat-cap', { n: s + 1 })) }),
  hand: (app, t) => polyHandArea(app, t, { title: handTitle(t, describePoly) }),
  handEnd: polyHandEnd,
  handEndLine: (app, t) => t.banner?.text || '',
  drawBoard(app, t, felt) {
    felt.append(renderPolyBoard({ view: t.handEnd?.view || t.view, variant: t.variant, targets: t.handEnd ? [] : polyTargets(app, t) }));
  },
};

/** The family's parts for the table `t`. */
function familyOf(t) {
  return t.poly || t.info?.poly ? POLY_TABLE : TILES_TABLE;
}

/**
 * A match at the table: scores, the seats around the felt, the hand or
 * the hand's end, and the log. Returns the page's parts and the felt, whose
 * board the family draws once the parts are in place.
 */
function playing(app, t) {
  const fam = familyOf(t);
  const v = t.view;
  // At a hand's end the table shows that hand's final position, hands face up.
  const shown = t.handEnd?.view || v;
  const moveMs = t.info?.time?.['move-ms'] || 30000;
  const n = shown?.['hand-sizes']?.length ?? t.info?.seats?.length ?? 4;
  const parts = [fam.scores(app, t)];
  const felt = h('section', { class: fam.feltClass, 'aria-label': say('tb.the-board') });
  if (t.banner && !t.handEnd) felt.append(h('p', { class: 'banner', role: 'status' }, t.banner.text));
  if (t.handEnd) felt.append(handEndBar(app, t, fam.handEndLine(app, t)));
  const count = fam === TILES_TABLE ? endsCount(t, shown) : null;
  if (count) felt.append(count);
  const around = fam.around(n);
  parts.push(
    h(
      'div',
      { class: around ? `table-grid n${n}` : 'table-rows' },
      seatPanels({
        view: shown,
        seats: t.info?.seats?.length,
        mySeat: t.seat,
        sideOf: (s) => app.sideOf(t, s),
        names: (s) => names(t, s),
        passed: t.handEnd ? null : t.passed,
        last: t.handEnd ? null : t.lastAction,
        away: (s) => awayNote(t, s),
        around,
        numerals: needsNumerals(t.variant),
        clockFor: () =>
          h('span', { class: 'clock small', role: 'timer', 'aria-label': say('tb.time-this'), 'data-ends-at': t.turnSince + moveMs }, secondsLeft(t.turnSince + moveMs)),
      }),
      felt,
    ),
  );
  if (t.gameOver) parts.push(gameOverCard(app, t));
  if (fam.stockLine && shown?.stock) parts.push(h('p', { class: 'small muted stock' }, say('tb.stock', { n: shown.stock })));
  if (t.handEnd) parts.push(fam.handEnd(app, t));
  else if (t.seat !== null && v?.hand) parts.push(fam.hand(app, t));
  // Without the hand's end in the frame (an older server), its result
  // comes under the hand, where it pushes nothing out of view.
  if (t.summary && !t.handEnd) {
    parts.push(
      handSummary(t.summary, {
        who: (s, cap) => app.who(t, s, { cap }),
        sideName: (side) => sideName(app, t, side),
        onClose: t.gameOver
          ? null
          : () => {
              t.summary = null;
              app.update();
            },
      }),
    );
  }
  parts.push(
    h(
      'section',
      { 'aria-labelledby': 'log-h' },
      h('h2', { id: 'log-h' }, say('tb.log')),
      h('ol', { class: 'log' }, t.log.slice(-12).reverse().map((l) => h('li', {}, l))),
    ),
  );
  return { parts, felt, draw: () => fam.drawBoard(app, t, felt) };
}

function describe(t) {
  return legalInWords(t, tileName);
}

/** The room page. */
/** The table chat: a log and a line to type, kept across re-renders of the
 * table (so typing is never interrupted by a move). */
function chatBox(app, t) {
  const log = h('ul', { class: 'chat-log small', role: 'log', 'aria-label': say('tb.chat-log') });
  const input = h('input', { id: 'chat-text', type: 'text', maxlength: '200', autocomplete: 'off', 'aria-label': say('tb.chat-message') });
  const err = h('p', { id: 'chat-err', class: 'small error', role: 'alert', hidden: true });
  input.setAttribute('aria-describedby', 'chat-err');
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        err.hidden = true;
        try {
          await app.conn.request({ type: 'chat', room: t.room, text });
          input.value = '';
        } catch (x) {
          err.textContent = x.code === 'rate-limited' ? say('tb.rate-limited') : x.message;
          err.hidden = false;
        }
      },
    },
    input,
    h('button', { type: 'submit', 'data-key': 'chat-send' }, say('tb.send')),
  );
  const section = h('section', { class: 'card chat', 'aria-labelledby': 'chat-h' }, h('h2', { id: 'chat-h' }, say('tb.chat')), log, form, err);
  let last = null;
  const render = () => {
    section.hidden = !(t.seat !== null && !t.lost) && !t.spectating;
    // Only new lines are appended: a log is read by what it gains.
    const from = last ? t.chat.indexOf(last) + 1 : 0;
    if (last && from === 0) log.replaceChildren();
    if (t.chat.length) last = t.chat[t.chat.length - 1];
    for (const m of t.chat.slice(from)) {
      const who = m.seat !== undefined && m.seat !== null ? say('tb.chat-seat', { n: m.seat + 1, name: m.seat === t.seat ? say('tb.you') : m.name }) : say('tb.chat-watcher', { name: m.name });
      log.append(h('li', {}, h('strong', {}, `${who}: `), m.text));
    }
    while (log.children.length > 100) log.firstChild.remove();
    log.scrollTop = log.scrollHeight;
  };
  return { section, render };
}

/** Speeds a watcher may choose: how many times faster than the pace moves are shown. */
const SPEEDS = [0.5, 1, 2, 4];

/**
 * Play/pause, step and speed for a watcher. Paused, moves wait in the
 * table's queue (nothing is lost) and each step shows the next one; the
 * log's live region announces them as they are shown.
 */
function watchControls(app, t) {
  const held = t.queue.filter((f) => f.type === 'events').length;
  // Moves of this hand on the board: what the watcher has been shown.
  const shown = t.view?.history?.length ?? t.view?.board?.length ?? 0;
  return h(
    'div',
    // A press holds back renders until it is let go (see `mount`): a
    // button rebuilt by a move arriving meanwhile would lose the click.
    { class: 'watch-controls', role: 'group', 'aria-label': say('tb.watch-controls'), onpointerdown: () => (t.pressing = true) },
    h(
      'button',
      { 'data-key': 'watch-play', onclick: () => app.setPaused(t, !t.paused) },
      t.paused ? say('tb.play') : say('tb.pause'),
    ),
    h(
      'button',
      { 'data-key': 'watch-step', disabled: !t.paused || held === 0, onclick: () => app.stepOnce(t) },
      say('tb.step'),
    ),
    h(
      'span',
      { class: 'watch-speeds', role: 'group', 'aria-label': say('tb.speed') },
      ...SPEEDS.map((x) =>
        h(
          'button',
          {
            'data-key': `watch-speed-${x}`,
            'aria-pressed': String(t.speed === x),
            'aria-label': say('tb.speed-x', { x }),
            onclick: () => {
              t.speed = x;
              app.update();
            },
          },
          `${x}x`,
        ),
      ),
    ),
    h(
      'span',
      { class: 'small muted', role: 'status', 'aria-label': say('tb.moves-shown'), 'data-moves': String(shown), 'data-seq': String(t.seq) },
      `${say('tb.moves-hand', { n: shown })}${held ? say('tb.moves-waiting', { n: held }) : ''}`,
    ),
  );
}

/** How long a played tile takes to slide to its place. */
const SLIDE_MS = 380;

/**
 * Marks the tile just played, for the eye (its class) and for screen
 * readers (its name says who played it), and slides it in from the side
 * of the table its player sits on, unless the person asked for less motion.
 */
function markLastTile(app, t, felt, view) {
  const history = view?.history || [];
  let i = history.length - 1;
  while (i >= 0 && history[i].action.kind !== 'play') i--;
  if (i < 0) return;
  const tile = felt.querySelector('.t-last');
  if (!tile) return;
  const rec = history[i];
  tile.classList.add('just-played');
  const name = tile.getAttribute('aria-label') || tileName(rec.action.tile);
  tile.setAttribute('aria-label', say('tb.just-played', { tile: name, who: app.who(t, rec.seat) }));
  // A re-render within the slide continues it rather than starting again.
  const key = `${view['hand-number'] ?? ''}:${i}`;
  if (t.slid?.key !== key) t.slid = { key, at: performance.now() };
  const elapsed = performance.now() - t.slid.at;
  if (elapsed >= SLIDE_MS || matchMedia('(prefers-reduced-motion: reduce)').matches || !tile.animate) return;
  const n = view['hand-sizes']?.length ?? 4;
  // A short slide, within the drawing's margin (a third of a tile's short
  // side): a tile at the board's edge never leaves the board, nor the window.
  const from = { bottom: '0 0.3px', top: '0 -0.3px', left: '-0.3px 0', right: '0.3px 0' }[seatPlace(rec.seat, t.seat, n)];
  tile.animate(
    [
      { translate: from, opacity: 0.3 },
      { translate: '0 0', opacity: 1 },
    ],
    { duration: SLIDE_MS, delay: -elapsed, easing: 'ease-out' },
  );
}

export function mount(app, { room }) {
  const t = app.table(room);
  const el = h('div', { class: 'room' });
  const chat = chatBox(app, t);
  t.onChat = chat.render;
  const root = h('div', {}, el, chat.section);
  let started = false;
  const start = async () => {
    if (started || !app.conn.ready) return;
    started = true;
    const info = app.rooms.find((r) => r.id === room);
    if (t.seat !== null && !t.lost) {
      // Ours (after a reload the room sends its state by itself).
      if (!t.view && !t.gameOver) app.conn.request({ type: 'resync', room }).catch(() => {});
    } else if (!t.spectating) {
      // Not seated: watch (a match in play can only be watched; a waiting
      // room shows its seats, to take one).
      try {
        // A private room is watched by its invite, not its number.
        await app.conn.request(t.invite ? { type: 'spectate', invite: t.invite } : { type: 'spectate', room });
        t.spectating = true;
        t.seq = 0;
      } catch (e) {
        // Another server of this site hosts the room: watch it there.
        if (e.code === 'wrong-node' && /^https?:\/\//.test(e.url || '')) {
          window.location.assign(`${e.url}/#/room/${room}`);
          return;
        }
        if (e.code === 'no-such-room') t.closed = say('tb.no-such-room');
        app.update();
      }
    }
    if (!info) app.conn.request({ type: 'list-rooms' }).catch(() => {});
  };
  // Keyboard play: focus follows the turn (only if focus is not elsewhere in a form).
  const free = () => {
    const active = document.activeElement;
    return !active || active === document.body || active.id === 'main' || el.contains(active) || !active.isConnected;
  };
  const resize = () => app.update();
  window.addEventListener('resize', resize);
  // While a watch control is held down, moves that arrive wait to be
  // drawn: a render would take the button from under the press.
  let deferred = false;
  const release = () => {
    if (!t.pressing) return;
    t.pressing = false;
    // After the click the release belongs to.
    if (deferred) setTimeout(() => ((deferred = false), app.update()), 0);
  };
  window.addEventListener('pointerup', release);
  window.addEventListener('pointercancel', release);
  const update = () => {
    if (t.pressing) {
      deferred = true;
      return;
    }
    start();
    chat.render();
    const inMatch = t.view && (t.info?.status === 'playing' || t.gameOver || t.view['to-move'] !== null);
    const head = h(
      'div',
      { class: 'table-head' },
      h('h1', {}, `${say('tb.room', { id: room })}${t.variant ? `: ${t.variant.name}` : t.info ? `: ${t.info.variant}` : ''}`),
      t.spectating && t.seat === null ? h('span', { class: 'tag' }, say('tb.watching')) : null,
      t.info?.spectators ? h('span', { class: 'small muted' }, say('tb.n-watching', { n: t.info.spectators })) : null,
      inMatch && (t.seat !== null || t.spectating)
        ? h('button', { 'data-key': 'leave-top', onclick: () => leave(app, t) }, t.seat !== null ? say('tb.leave-table') : say('tb.stop-watching'))
        : null,
    );
    const kids = [head];
    if (inMatch && app.watching(t)) kids.push(watchControls(app, t));
    if (t.lost) {
      kids.push(
        h(
          'p',
          { class: 'banner', role: 'status' },
          say('tb.guest-lost'),
        ),
      );
    }
    if (t.closed) kids.push(h('p', { class: 'banner', role: 'status' }, say('tb.closed', { reason: t.closed })));
    if (!inMatch || (t.gameOver && t.info?.status === 'waiting')) {
      if (!t.closed) kids.push(waitingRoom(app, t));
    }
    const match = inMatch ? playing(app, t) : null;
    if (match) kids.push(...match.parts);
    replace(el, kids);
    // What scrolls into view (a focused tile, a button) stops below the
    // score kept at the top of the window.
    const sticky = stickyHeight();
    document.documentElement.style.scrollPaddingTop = sticky ? `${sticky}px` : '';
    // The board is drawn in place, where the felt's width is known.
    match?.draw();
    if (t.gameOver && !t.overClosed && t.focusOver !== false && free()) {
      t.focusOver = false;
      el.querySelector('[role="dialog"][aria-labelledby="over-h"]')?.focus();
      return;
    }
    if (t.handEnd && t.focusContinue && free()) {
      t.focusContinue = false;
      // The table from its top (under the score, which stays on screen):
      // the final board with the result over it, the hands around it.
      const grid = el.querySelector('.table-grid, .table-rows');
      if (grid) window.scrollTo({ top: grid.getBoundingClientRect().top + window.scrollY - sticky, behavior: 'instant' });
      (el.querySelector('[data-key="hand-continue"]') || el.querySelector('.hand-end'))?.focus({ preventScroll: true });
      return;
    }
    // Keyboard play: focus follows the turn (only if focus is not elsewhere in a form).
    if (t.focusConfirm && free()) {
      t.focusConfirm = false;
      el.querySelector('[data-key="poly-confirm"]')?.focus();
    } else if (t.focusSpot && free()) {
      const key = t.focusSpot;
      t.focusSpot = null;
      const spot = key === 'first' ? el.querySelector('.p-target') : el.querySelector(`[data-key="spot-${CSS.escape(key)}"]`);
      spot?.focus();
    } else if (t.focusChoice && free()) {
      t.focusChoice = false;
      el.querySelector('.choices button')?.focus();
    } else if (t.focusHand && t.prompt && free()) {
      t.focusHand = false;
      const target =
        el.querySelector('.hand button.tile.legal') || el.querySelector('button[data-key="move-draw"], button[data-key="move-pass"]');
      target?.focus();
    }
  };
  return {
    el: root,
    update,
    keepFocus: false,
    unmount: () => {
      window.removeEventListener('resize', resize);
      window.removeEventListener('pointerup', release);
      window.removeEventListener('pointercancel', release);
      t.pressing = false;
      if (t.onChat === chat.render) t.onChat = null;
      document.documentElement.style.scrollPaddingTop = '';
    },
  };
}
