// Replays: a stored game (`GET /api/games/{id}?seat=N`, a page of steps at
// a time) stepped move by move from one seat's viewpoint or a spectator's,
// never showing more than that viewer saw. The address
// (#/replay/ID?seat=N&step=K) is the link to share.

import { h, replace, tileName, joinWords } from './dom.js';
import { renderBoard, endName } from './board.js';
import { tileSvg, needsNumerals } from './tiles.js';
import { scoreboard, seatPanels, handSummary, boardWidth, replayHash } from './table.js';
import { reviewPanel, replayHint, reviewHints } from './hints.js';
import { t, lang, errorText } from './i18n.js';
import { renderPolyBoard, polyEventText, polyHandPictures, polyScores, tileSet, byCorners } from './poly.js';

/**
 * What a stored game's listing says of its result: the winning seats (by
 * number: several bots share a name), and the scores by side.
 */
export function resultText(g) {
  if (g.winner === null || g.winner === undefined) return t('replays.drawn', { scores: g.scores.join('–') });
  const seats = g.seats.filter((s) => s.side === g.winner);
  const who =
    seats.length > 1
      ? t('seats.many', { seats: joinWords(seats.map((s) => String(s.seat + 1))) })
      : t('seats.one', { seat: (seats[0]?.seat ?? g.winner) + 1 });
  const names = seats.map((s) => s.name).filter(Boolean);
  // The winner's score first, then the others' in side order.
  const scores = [g.scores[g.winner], ...g.scores.filter((_, side) => side !== g.winner)].join('–');
  const forfeit = g.forfeit !== null && g.forfeit !== undefined;
  return t(forfeit ? 'replays.won-on-time' : 'replays.won', { who, names: names.join(', '), scores });
}

/**
 * Every stored game, newest first (`GET /api/games`), a page at a time: a
 * table whose rows link to each replay, seen as a spectator sees it.
 */
function storedGames() {
  const body = h('tbody', {});
  const status = h('p', { role: 'status', class: 'muted' }, t('replays.loading'));
  // Shown only while a page came back full (buttons are styled with a
  // display that would override `hidden`).
  const more = h('button', { type: 'button', 'data-key': 'more-games', style: 'display: none' }, t('replays.older'));
  const heads = [t('replays.col-game'), t('replays.col-variant'), t('replays.col-players'), t('replays.col-result'), t('replays.col-finished')];
  const table = h(
    'table',
    { class: 'list cards', hidden: true },
    h('caption', {}, t('replays.caption')),
    h('thead', {}, h('tr', {}, heads.map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
  const PAGE = 20;
  let last = null;
  const load = async () => {
    more.disabled = true;
    try {
      const r = await fetch(`/api/games?limit=${PAGE}${last === null ? '' : `&before=${last}`}`);
      if (!r.ok) throw new Error(t('http.status', { status: r.status }));
      const games = await r.json();
      for (const g of games) {
        const when = new Date(g['finished-at'] * 1000);
        body.append(
          h(
            'tr',
            {},
            h('td', { 'data-label': heads[0] }, h('a', { href: `#/replay/${g.id}` }, t('replays.game', { id: g.id }))),
            h('td', { 'data-label': heads[1] }, g.variant),
            h('td', { 'data-label': heads[2] }, g.seats.map((s) => s.name).join(', ')),
            h('td', { 'data-label': heads[3] }, resultText(g)),
            h('td', { 'data-label': heads[4] }, h('time', { datetime: when.toISOString() }, when.toLocaleString(lang()))),
          ),
        );
        last = g.id;
      }
      table.hidden = body.children.length === 0;
      status.textContent = body.children.length ? '' : t('replays.none');
      more.style.display = games.length < PAGE ? 'none' : '';
    } catch (e) {
      status.textContent = t('replays.cannot-list', { reason: e.message });
    }
    more.disabled = false;
  };
  more.addEventListener('click', load);
  load();
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'stored-h' },
    h('h2', { id: 'stored-h' }, t('replays.recent-server')),
    status,
    h('div', { class: 'scroll' }, table),
    more,
  );
}

function indexPage(app) {
  const game = h('input', { id: 'r-game', type: 'number', min: '1', required: true, 'data-key': 'r-game' });
  const seat = h(
    'select',
    { id: 'r-seat', 'data-key': 'r-seat' },
    h('option', { value: '' }, t('replays.spectator-no-hand')),
    Array.from({ length: 10 }, (_, i) => h('option', { value: i }, t('replays.seat', { n: i + 1 }))),
  );
  const recent = app.recentGames();
  return h(
    'div',
    {},
    h('h1', {}, t('replays.title')),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'open-h' },
      h('h2', { id: 'open-h' }, t('replays.open')),
      h(
        'form',
        {
          class: 'row',
          onsubmit: (e) => {
            e.preventDefault();
            app.go(`#/replay/${game.value}${seat.value === '' ? '' : `?seat=${seat.value}`}`);
          },
        },
        h('label', { class: 'inline' }, t('replays.game-number'), game),
        h('label', { class: 'inline' }, t('replays.seen-by'), seat),
        h('button', { type: 'submit', class: 'primary' }, t('replays.open-button')),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'recent-h' },
      h('h2', { id: 'recent-h' }, t('replays.yours')),
      recent.length
        ? h(
            'ul',
            {},
            recent.map((g) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: `#/replay/${g.id}${g.seat === null || g.seat === undefined ? '' : `?seat=${g.seat}`}` },
                  g.seat === null || g.seat === undefined
                    ? t('replays.mine-watched', { id: g.id, variant: g.variant || t('replays.match'), room: g.room })
                    : t(g.won ? 'replays.mine-won' : 'replays.mine-lost', { id: g.id, variant: g.variant || t('replays.match'), room: g.room, seat: g.seat + 1 }),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, t('replays.yours-none')),
    ),
    storedGames(),
  );
}

function eventText(ev, { who, view, variant, seat, sideName }) {
  switch (ev.event) {
    case 'played':
      return ev.end === 255
        ? t('ev.led', { who: who(ev.seat, true), tile: tileName(ev.tile) })
        : t('ev.played', { who: who(ev.seat, true), tile: tileName(ev.tile), end: endName(ev.end, { view, variant, seat }) });
    case 'drew':
      return t('ev.drew', { who: who(ev.seat, true) });
    case 'passed':
      return t('ev.passed', { who: who(ev.seat, true) });
    case 'scored':
      return t('ev.scored', { side: sideName(ev.side), points: ev.points });
    case 'hand-over':
      return t('ev.hand-over', { n: ev.hand + 1 });
    case 'hand-started':
      return t('ev.hand-started', { n: ev.hand + 1, who: who(ev.leader) });
    case 'match-over':
      return ev.winner === null || ev.winner === undefined ? t('ev.match-drawn') : t('ev.match-won', { side: sideName(ev.winner) });
    case 'overruled':
      return t('ev.overruled', { who: who(ev.seat), penalty: ev.penalty });
    default:
      return '';
  }
}

/** The replay pages: the index (#/replays) or one game. */
/** The replay's controls at move `k` of `n`: `go(to, key)` moves to a step. */
function replayControls(k, n, go) {
  const button = (label, text, to, key, disabled) =>
    h('button', { 'aria-label': label, 'data-key': key, disabled, onclick: () => go(to, key) }, text);
  return h(
    'div',
    { class: 'replay-controls', role: 'group', 'aria-label': t('replay.controls') },
    button(t('replay.first-label'), t('replay.first'), 0, 'first', k === 0),
    button(t('replay.prev-label'), t('replay.prev'), k - 1, 'prev', k === 0),
    button(t('replay.next-label'), t('replay.next'), k + 1, 'next', k === n),
    button(t('replay.last-label'), t('replay.last'), n, 'last', k === n),
    h('input', {
      type: 'range',
      min: '0',
      max: String(n),
      value: String(k),
      'aria-label': t('replay.slider'),
      'data-key': 'slider',
      oninput: (e) => go(Number(e.target.value), 'slider'),
    }),
    h('span', { role: 'status', 'aria-live': 'polite' }, t('replay.move-of', { k, n })),
  );
}

/** Steps fetched when the viewer steps back into steps not loaded yet. */
const BACK_PAGE = 50;

export function mount(app, { game, seat, step, key = null }) {
  if (game === null) return { el: indexPage(app) };
  const el = h('div', { class: 'replay' }, h('h1', {}, t('replays.game', { id: game })), h('p', {}, t('shell.loading')));
  let data = null;
  let k = 0;
  // The review of the viewpoint seat's decisions (a seat's replay only).
  let review = seat === null ? null : { loading: true };
  // The server answers a replay a page at a time (`from`, `limit`): the
  // steps are kept by index as pages arrive, and a step not yet here is
  // fetched with its page when the viewer moves to it. A long match is
  // never loaded whole, only the parts looked at.
  const viewAt = (i) => (i === 0 ? data.start : data.steps[i - 1]?.view);
  const eventsAt = (i) => (i === 0 ? [] : data.steps[i - 1]?.events || []);
  const n = () => data['total-steps'];
  const have = (i) => i === 0 || data.steps[i - 1] !== undefined;
  const who = (s, cap = false) => {
    if (s === seat) return t(cap ? 'replay.Seat-view' : 'replay.seat-view', { n: s + 1 });
    const name = data.seats[s]?.name;
    return name ? t(cap ? 'replay.Seat-named' : 'replay.seat-named', { n: s + 1, name }) : t(cap ? 'replay.Seat' : 'replay.seat', { n: s + 1 });
  };
  const sideOf = (s) => {
    const teams = viewAt(k).teams;
    if (teams) return teams.findIndex((team) => team.includes(s));
    return data.seats[s]?.side ?? s;
  };
  const sideName = (side) => {
    const seats = data.seats.filter((x) => sideOf(x.seat) === side).map((x) => x.seat + 1);
    return seats.length > 1 ? t('seats.many', { seats: joinWords(seats.map(String)) }) : t('seats.one', { seat: seats[0] ?? side + 1 });
  };
  // The seat whose view is replayed (or a spectator's), kept at this step.
  const viewpointPicker = () =>
    h(
      'select',
      {
        id: 'rp-seat',
        'data-key': 'rp-seat',
        onchange: (e) => app.go(replayHash(game, { seat: e.target.value, step: k, key })),
      },
      h('option', { value: '', selected: seat === null }, t('replay.spectator')),
      data.seats.map((x) => h('option', { value: x.seat, selected: x.seat === seat }, t('replay.seat-named', { n: x.seat + 1, name: x.name || t('replay.nobody') }))),
    );
  const go = (i, focus) => {
    const back = i < k;
    k = Math.max(0, Math.min(n(), i));
    const hash = replayHash(game, { seat, step: k, key });
    // The address follows the step without a new page (no hashchange).
    history.replaceState(null, '', hash);
    if (have(k)) return render(focus);
    // Stepping back loads the steps before it, forward the page that
    // starts there; a page also ends at its bytes, so a page started
    // before the step may stop short of it: then the step's own.
    const wanted = k;
    const load = back
      ? loadPage(Math.max(0, k - BACK_PAGE), BACK_PAGE).then(() => have(wanted) || loadPage(wanted - 1, null))
      : loadPage(k - 1, null);
    load
      .then(() => wanted === k && el.isConnected && render(focus))
      .catch((e) => replace(el, h('h1', {}, t('replays.game', { id: game })), h('p', { role: 'alert' }, t('replay.cannot', { reason: e.message }))));
  };
  const onKey = (e) => {
    if (!data || e.target.closest?.('input, select, textarea')) return;
    if (e.key === 'ArrowRight') go(k + 1, 'next');
    else if (e.key === 'ArrowLeft') go(k - 1, 'prev');
    else if (e.key === 'Home') go(0, 'first');
    else if (e.key === 'End') go(n(), 'last');
    else return;
    e.preventDefault();
  };
  window.addEventListener('keydown', onKey);

  // The step that ends a hand shows the hand's final position (its last
  // tile laid, every hand face up) instead of the next deal, which the
  // step after it shows.
  const handEndAt = (i) => (i === 0 ? null : data.steps[i - 1]?.['hand-end'] || null);
  const handsUp = (view, pictures) =>
    h(
      'section',
      { class: 'card hands-up', 'aria-label': t('replay.hands-up') },
      h('h2', {}, t('replay.hands-up-h')),
      h(
        'ul',
        { class: 'hands-up-list' },
        (view.hands || []).map((tiles, s) => h('li', {}, h('span', { class: 'name' }, who(s, true)), pictures(tiles || [], s))),
      ),
    );
  const render = (focus) => (data.poly ? renderPoly(focus) : renderTiles(focus));
  const renderTiles = (focus) => {
    const ended = handEndAt(k);
    const view = ended ? ended.view : viewAt(k);
    // A move in words; `past` for what was played (the review's "played 6-4").
    const label = (m, i, past = false) =>
      m.end === 255
        ? t(past ? 'move.led' : 'move.lead', { tile: tileName(m.tile) })
        : t(past ? 'move.played' : 'move.play', { tile: tileName(m.tile), end: endName(m.end, { view: viewAt(i), variant: data.variant, seat }) });
    const events = eventsAt(k);
    const variant = data.variant;
    const numerals = needsNumerals(variant);
    const viewpoint = viewpointPicker();
    const controls = replayControls(k, n(), go);
    const happened = events.map((ev) => eventText(ev, { who, view, variant, seat, sideName })).filter(Boolean);
    const over = events.find((ev) => ev.event === 'hand-over');
    const results = view.results || [];
    const result = ended ? ended.result : over && results.length ? results[results.length - 1] : null;
    const summary = result ? handSummary(result, { who, sideName }) : null;
    const faceUp = ended
      ? handsUp(ended.view, (tiles, s) =>
          h(
            'div',
            { class: 'hand idle', role: 'group', 'aria-label': t('replay.tiles-of', { who: who(s), tiles: tiles.length ? tiles.map(tileName).join(', ') : t('replay.empty') }) },
            tiles.map((tile) => h('span', { class: 'tile', role: 'img', 'aria-label': tileName(tile) }, tileSvg(tile, { numerals }))),
          ),
        )
      : null;
    const link = `${location.origin}/${replayHash(game, { seat, key })}`;
    const hand = view.hand;
    const parts = [
      h('h1', {}, t('replay.heading', { id: game, variant: variant.name })),
      h(
        'p',
        {},
        t('replay.seen-by'),
        ' ',
        viewpoint,
        data.room !== null && data.room !== undefined ? ` · ${t('replay.in-room', { room: data.room })}` : '',
        ` · ${data.winner === null || data.winner === undefined ? t('replay.drawn') : t('replay.won-by', { who: sideName(data.winner) })}; ${t('replay.final', { scores: data.scores.map((p, side) => `${sideName(side)}: ${p}`).join(', ') })}`,
      ),
      controls,
      h('p', { class: 'banner turn', role: 'region', 'aria-label': t('replay.this-move') }, happened.length ? happened.join(' ') : t('replay.the-deal')),
      replayHint(review, { step: k, label }),
      scoreboard({ view, variant, seat, sideOf, sideName }),
      seatPanels({ view, seats: data.seats.length, mySeat: seat, sideOf, names: (s) => data.seats[s]?.name || t('replay.nobody') }),
      summary,
    ];
    const felt = h('section', { class: 'felt', 'aria-label': t('replay.board') });
    // The hands turned up come after the seat's own hand: board and hand
    // share the window, the other hands are a scroll away.
    parts.push(felt);
    if (hand) {
      parts.push(
        h(
          'section',
          { class: 'hand-area', 'aria-label': t('replay.hand-of', { n: seat + 1 }) },
          h('h2', {}, t('replay.Hand-of', { n: seat + 1 })),
          h(
            'div',
            {
              class: 'hand idle',
              role: 'group',
              'aria-label': `${t('replay.hand-of', { n: seat + 1 })}: ${hand.length ? hand.map(tileName).join(', ') : t('replay.empty')}`,
            },
            hand.length
              ? hand.map((tile) => {
                  const hinted = reviewHints(review, k, tile);
                  const name = `${tileName(tile)}${hinted ? t('replay.the-hint') : ''}`;
                  return h('span', { class: `tile ${hinted ? 'hinted' : ''}`, role: 'img', 'aria-label': name }, tileSvg(tile, { numerals }));
                })
              : h('p', {}, t('replay.no-tiles')),
          ),
        ),
      );
    }
    parts.push(faceUp);
    parts.push(reviewPanel(review, { seat, step: k, label, go: (i) => go(i, `review-${i}`) }));
    parts.push(
      h(
        'section',
        { class: 'card' },
        h('label', { for: 'rp-link' }, t('replay.link')),
        h('input', { id: 'rp-link', class: 'share', readonly: true, value: link, onfocus: (e) => e.target.select() }),
      ),
    );
    replace(el, parts);
    felt.append(
      renderBoard({ view, variant, seat, width: boardWidth(felt.clientWidth - 20), numerals }),
    );
    if (focus) el.querySelector(`[data-key="${focus}"]`)?.focus();
    if (focus && document.activeElement?.disabled !== false) {
      // The button just pressed is now disabled (first or last move): keep focus in the controls.
      el.querySelector('.replay-controls button:not([disabled])')?.focus();
    }
  };

  // A game of tiles with 3, 4 or 6 faces: every step carries its view.
  const renderPoly = (focus) => {
    const ended = handEndAt(k);
    const view = ended ? ended.view : viewAt(k);
    const tiles = data.tiles || (data.tiles = tileSet(data.variant));
    const viewpoint = viewpointPicker();
    const happened = eventsAt(k)
      .map((ev) => polyEventText(ev, { who, view, tiles }))
      .filter(Boolean);
    const felt = h('section', { class: 'felt poly', 'aria-label': t('replay.board') }, renderPolyBoard({ view, variant: data.variant }));
    const parts = [
      h('h1', {}, t('replay.heading', { id: game, variant: data.variant.name })),
      h(
        'p',
        {},
        t('replay.seen-by'),
        ' ',
        viewpoint,
        data.room !== null && data.room !== undefined ? ` · ${t('replay.in-room', { room: data.room })}` : '',
        ` · ${data.winner === null || data.winner === undefined ? t('replay.drawn') : t('replay.won-by', { who: who(data.winner) })}; ${t('replay.final', { scores: data.scores.map((p, x) => `${who(x)}: ${p}`).join(', ') })}`,
      ),
      replayControls(k, n(), go),
      h('p', { class: 'banner turn', role: 'region', 'aria-label': t('replay.this-move') }, happened.length ? happened.join(' ') : t('replay.the-deal')),
      polyScores({ view, variant: data.variant, seat, name: (x) => who(x, true) }),
      seatPanels({ view, seats: data.seats.length, mySeat: seat, sideOf: (x) => x, names: (x) => data.seats[x]?.name || t('replay.nobody') }),
      felt,
    ];
    if (seat !== null && view.hand) {
      parts.push(
        h(
          'section',
          { class: 'hand-area', 'aria-label': t('replay.hand-of', { n: seat + 1 }) },
          h('h2', {}, t('replay.Hand-of', { n: seat + 1 })),
          polyHandPictures(view.hand, t('replay.hand-of', { n: seat + 1 }), byCorners(data.variant)),
        ),
      );
    }
    if (ended) parts.push(handsUp(ended.view, (tiles, s) => polyHandPictures(tiles, t('replay.tiles-of-poly', { who: who(s) }), byCorners(data.variant))));
    replace(el, parts);
    if (focus) el.querySelector(`[data-key="${focus}"]`)?.focus();
    if (focus && document.activeElement?.disabled !== false) {
      el.querySelector('.replay-controls button:not([disabled])')?.focus();
    }
  };

  // A page of steps from step index `from`, at most `limit` (the server's
  // default when null); the first page read also gives the game's head.
  const loadPage = async (from, limit) => {
    const q = new URLSearchParams();
    if (seat !== null) q.set('seat', seat);
    if (from > 0) q.set('from', from);
    if (limit) q.set('limit', limit);
    if (key) q.set('key', key);
    const query = q.toString();
    const r = await fetch(`/api/games/${game}${query ? `?${query}` : ''}`);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.code ? errorText(body) : t('http.status', { status: r.status }));
    const steps = data ? data.steps : [];
    body.steps.forEach((s, j) => {
      steps[body.from + j] = s;
    });
    if (!data) data = { ...body, steps };
    return body;
  };

  loadPage(0, null)
    .then((g) => {
      const wanted = Number(step);
      k = Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, g['total-steps']) : 0;
      // A link to a step past the first page loads that step's page too.
      return have(k) ? g : loadPage(k - 1, null).then(() => g);
    })
    .then((g) => {
      render();
      if (seat !== null && !g.poly) loadReview();
    })
    .catch((e) => replace(el, h('h1', {}, t('replays.game', { id: game })), h('p', { role: 'alert' }, t('replay.cannot', { reason: e.message }))));

  const loadReview = () =>
    fetch(`/api/games/${game}/review?seat=${seat}${key ? `&key=${encodeURIComponent(key)}` : ''}`)
      .then(async (r) => {
        const body = await r.json().catch(() => ({}));
        if (!r.ok) throw new Error(body.code ? errorText(body) : t('http.status', { status: r.status }));
        review = body;
      })
      .catch((e) => {
        // The catalog's sentence ends the reason: an error worded with its own full stop loses it.
        review = { error: t('review.none', { reason: e.message.replace(/[.\s]+$/, '') }) };
      })
      .then(() => data && el.isConnected && render());

  const resize = () => data && render();
  window.addEventListener('resize', resize);
  return {
    el,
    unmount: () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', resize);
    },
  };
}
