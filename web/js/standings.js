// Standings: the rating leaderboard of each variant (`/api/leaderboard`)
// and tournaments with their standings (`/api/tournaments...`).

import { h, replace, joinWords } from './dom.js';
import { t, errorText } from './i18n.js';
import { shownRating } from './rating.js';

/** A JSON answer of the API, or an error in the reader's words. */
export async function getJson(url) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.code ? errorText(body) : t('http.status', { status: r.status }));
  return body;
}

/** A list table; `rowAttrs(i)` gives row `i`'s attributes (the reader's own row marked). */
function table(caption, head, rows, rowAttrs = () => ({})) {
  return h(
    'table',
    { class: 'list' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((r, n) => h('tr', rowAttrs(n), r.map((c, i) => (i === 1 ? h('th', { scope: 'row' }, c) : h('td', {}, c)))))),
  );
}

function leaderboard(app) {
  const select = h('select', { id: 'lb-variant', 'data-key': 'lb-variant' });
  const body = h('div', { 'aria-live': 'polite' });
  const load = async () => {
    const variant = select.value;
    replace(body, h('p', { class: 'muted' }, t('shell.loading')));
    try {
      const rows = await getJson(`/api/leaderboard?variant=${encodeURIComponent(variant)}&limit=100`);
      replace(
        body,
        rows.length
          ? table(
              t('st.leaderboard-of', { variant }),
              [t('st.rank'), t('st.player'), t('st.rating'), t('st.games'), t('st.wins'), t('st.draws'), t('st.losses')],
              rows.map((r) => [
                String(r.rank),
                h('a', { href: `#/player/${encodeURIComponent(r.name)}` }, r.name),
                h('span', { title: t('st.rating-detail', { mu: r.mu.toFixed(1), sigma: r.sigma.toFixed(1) }) }, shownRating(r)),
                String(r.games),
                String(r.wins),
                String(r.draws),
                String(r.losses),
              ]),
              (n) => (app.me && rows[n].name === app.me.name ? { class: 'mine', 'aria-current': 'true' } : {}),
            )
          : h('p', { class: 'muted' }, t('st.no-rated', { variant })),
      );
    } catch (e) {
      replace(body, h('p', { role: 'alert' }, t('st.leaderboard-cannot', { reason: e.message })));
    }
  };
  // The presets, then every other board with rated games: a custom
  // variant's board is its name and rules fingerprint (`house#3f09c2a1b7d4`).
  Promise.all([app.variants(), getJson('/api/leaderboards').catch(() => [])]).then(([cat, rated]) => {
    const names = cat.presets.map((p) => p.name);
    const boards = names.concat(rated.filter((b) => !names.includes(b)));
    select.replaceChildren(
      ...boards.map((b) => {
        const [name, print] = b.split('#');
        const label = print ? t('st.custom', { name, print }) : name;
        return h('option', { value: b, selected: b === 'latin' }, label);
      }),
    );
    load();
  });
  select.addEventListener('change', load);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'lb-h' },
    h('h2', { id: 'lb-h' }, t('st.ratings')),
    h('p', { class: 'small muted' }, t('st.ratings-help')),
    h('label', { class: 'inline' }, t('lobby.variant'), select),
    body,
  );
}

function tournaments() {
  const body = h('div', {}, h('p', { class: 'muted' }, t('shell.loading')));
  getJson('/api/tournaments')
    .then((list) =>
      replace(
        body,
        list.length
          ? table(
              t('st.tournaments-caption'),
              [t('st.number'), t('st.tournament'), t('st.status'), t('st.entrants'), t('st.results')],
              list.map((x) => [
                String(x.id),
                h('a', { href: `#/standings/tournament/${x.id}` }, x.name),
                t(`tn-status.${x.status}`),
                String(Array.isArray(x.entrants) ? x.entrants.length : x.entrants ?? ''),
                String(x.results ?? ''),
              ]),
            )
          : h('p', { class: 'muted' }, t('st.no-tournament')),
      ),
    )
    .catch((e) => replace(body, h('p', { role: 'alert' }, t('st.tournaments-cannot', { reason: e.message }))));
  return h('section', { class: 'card', 'aria-labelledby': 'tn-h' }, h('h2', { id: 'tn-h' }, t('st.tournaments')), body);
}

/** An entrant's name from the detail's `entrants` (names, or objects with one). */
function entrantName(tn, i) {
  const e = (tn.entrants || [])[i];
  if (e === undefined || e === null) return t('st.entrant', { n: i + 1 });
  return typeof e === 'string' ? e : e.name ?? e.player ?? t('st.entrant', { n: i + 1 });
}

/** A side's name: its entrants, joined. */
function sideName(tn, side) {
  return joinNames((side || []).map((i) => entrantName(tn, i)));
}

const joinNames = joinWords;

/** What a knockout table says: "ana beat ben", "ana against ben, in play". */
function matchText(tn, tb) {
  const sides = tb.sides || [];
  const w = tb.result ? tb.result.winner : undefined;
  if (w === undefined) return t(tb.room ? 'st.match-playing' : 'st.match-to-play', { sides: sides.map((s) => sideName(tn, s)).join(t('st.against')) });
  if (w === null) return t('st.match-drew', { sides: joinNames(sides.map((s) => sideName(tn, s))) });
  const losers = sides.filter((_, i) => i !== w).map((s) => sideName(tn, s));
  return t('st.match-beat', { winner: sideName(tn, sides[w]), losers: joinNames(losers) });
}

/**
 * The knockout rounds as a bracket: one column per round, each match with
 * its entrants and, once played, its winner marked (in words too, as its
 * accessible name: "round 2, table 1: ana beat ben").
 */
function bracket(tn) {
  const stages = tn.spec?.stages || [];
  const rounds = (tn.rounds || []).filter((r) => stages[r.stage]?.format === 'knockout');
  if (!rounds.length) return null;
  const columns = rounds.map((r) =>
    h(
      'div',
      { class: 'bracket-round', role: 'list', 'aria-label': t('st.round', { n: r.number + 1 }) },
      h('h3', { 'aria-hidden': 'true' }, t('st.Round', { n: r.number + 1 })),
      (r.tables || []).map((tb) => {
        const w = tb.result ? tb.result.winner : undefined;
        return h(
          'div',
          { class: 'bracket-match', role: 'listitem', 'aria-label': t('st.match-label', { round: r.number + 1, table: tb.id + 1, text: matchText(tn, tb) }) },
          (tb.sides || []).map((side, i) =>
            h('div', { class: `bracket-side${w === i ? ' winner' : ''}`, 'aria-hidden': 'true' }, sideName(tn, side), w === i ? ' ✓' : ''),
          ),
          tb.game !== null && tb.game !== undefined ? h('a', { href: `#/replay/${tb.game}`, class: 'small' }, t('st.replay')) : null,
        );
      }),
    ),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'br-h' },
    h('h2', { id: 'br-h' }, t('st.bracket')),
    h('div', { class: 'bracket', role: 'group', 'aria-label': t('st.bracket-label') }, columns),
  );
}

/** What a tie-break's value shows: "fewer is better" ones count up. */
function tieBreakValue(name, v) {
  return name === 'fewest-timeouts' || name === 'lot' ? String(Math.abs(v)) : String(v);
}

/** A standing's status: withdrawn, disqualified, out, or nothing. */
function standingStatus(s, withdrawn) {
  if (s.withdrawn || withdrawn.has(s.entrant)) return t('st.withdrawn');
  if (s.disqualified) return t('st.disqualified');
  return s.eliminated ? t('st.out') : '';
}

/** The standings with byes and every tie-break the tournament ranks by. */
function standingsTable(tn, standings) {
  const tieBreaks = tn.spec?.scoring?.['tie-breaks'] || [];
  const withdrawn = new Set(tn.withdrawn || []);
  const head = [t('st.rank'), t('st.entrant-col'), t('st.points'), t('st.won'), t('st.drawn'), t('st.lost'), t('st.games'), t('st.byes')]
    .concat(tieBreaks.map((name) => t(`tb.${name}`)))
    .concat([t('st.status')]);
  const rows = standings.map((s) =>
    [String(s.rank), s.name, String(s.points), String(s.wins), String(s.draws), String(s.losses), String(s.games), String(s.byes ?? 0)]
      .concat(tieBreaks.map((name, i) => tieBreakValue(name, (s['tie-breaks'] || [])[i] ?? 0)))
      .concat([standingStatus(s, withdrawn)]),
  );
  return h('div', { class: 'scroll-x' }, table(t('st.standings-of', { name: tn.name }), head, rows));
}

/** A side's score: the sum of its seats' match scores. */
function sideScore(tb, side) {
  const seats = tb.result?.seats || [];
  return (tb.seats || []).reduce((sum, seat, i) => (seat.side === side ? sum + (seats[i]?.score ?? 0) : sum), 0);
}

/** Who sits where: "ana (seat 1) against ben (seat 2)"; a team's entrant
 *  name leads its players ("Reds: ana (seat 1), cy (seat 3)"). */
function seatsText(tn, tb) {
  return (tb.sides || [])
    .map((side, s) => {
      const seats = (tb.seats || []).map((seat, i) => ({ ...seat, i })).filter((seat) => seat.side === s);
      const players = joinNames(seats.map((seat) => t('st.seat-of', { player: seat.player, n: seat.i + 1 })));
      const entrants = sideName(tn, side);
      const sameNames = seats.every((seat) => seat.player === entrantName(tn, seat.entrant));
      return sameNames ? players : `${entrants}: ${players}`;
    })
    .join(t('st.against'));
}

/** Where a table stands: its result, or in play (and where), or whom it waits for. */
function tableState(tn, tb, inProgress) {
  const parts = [];
  if (tb.result) {
    const w = tb.result.winner;
    parts.push(w === null || w === undefined ? t('st.drawn-result') : t('st.won-by', { winner: sideName(tn, tb.sides[w]) }));
    if (tb['corrected-by']) parts.push(t('st.corrected-by', { by: tb['corrected-by'] }));
  } else if (tb.waiting?.length) {
    parts.push(t('st.waiting-for', { names: joinNames(tb.waiting) }));
  } else if (tb.room) {
    parts.push(t('st.in-play'));
  } else {
    parts.push(t(inProgress ? 'st.to-open' : 'st.not-played'));
  }
  if (!tb.result && tb.node) parts.push(t('st.on-node', { node: tb.node.id, url: tb.node.url }));
  return parts.join('; ');
}

/** One round's pairings: each table's seats, score and result, its byes. */
function roundPairings(tn, r, open) {
  const rows = (r.tables || []).map((tb) =>
    h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row', 'data-label': t('st.table-col') },
        tb.game !== null && tb.game !== undefined ? h('a', { href: `#/replay/${tb.game}` }, t('st.table', { n: tb.id + 1 })) : t('st.table', { n: tb.id + 1 }),
      ),
      h('td', { 'data-label': t('st.players-col') }, seatsText(tn, tb)),
      h('td', { 'data-label': t('st.score-col') }, tb.result ? (tb.sides || []).map((_, s) => sideScore(tb, s)).join(' – ') : ''),
      h('td', { 'data-label': t('st.result-col') }, tableState(tn, tb, r['in-progress'])),
    ),
  );
  const title = t(r['in-progress'] ? 'st.round-line-playing' : 'st.round-line', { n: r.number + 1, variant: r.variant });
  return h(
    'details',
    { class: 'round', open: open || null },
    h('summary', {}, title),
    rows.length
      ? h(
          'table',
          { class: 'list cards pairings' },
          h('caption', { class: 'visually-hidden' }, t('st.pairings-of', { n: r.number + 1 })),
          h('thead', {}, h('tr', {}, [t('st.table-col'), t('st.players-col'), t('st.score-col'), t('st.result-col')].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, rows),
        )
      : null,
    r.byes?.length ? h('p', { class: 'byes' }, t('st.byes-line', { names: joinNames(r.byes.map((e) => entrantName(tn, e))) })) : null,
  );
}

/** Who is here: entrants playing, waiting and missing (and the others, counted). */
function presence(tn) {
  const rows = tn.presence;
  if (!Array.isArray(rows) || ['finished', 'cancelled'].includes(tn.status)) return null;
  const name = (p) => {
    const away = (p.players || []).filter((pl) => !pl.connected).map((pl) => pl.name);
    if (!away.length || p.state === 'withdrawn' || p.state === 'out') return p.name;
    // A team names who of it is away; a player alone is simply away.
    return away.length === 1 && away[0] === p.name ? t('st.not-connected-self', { name: p.name }) : t('st.not-connected', { name: p.name, players: joinNames(away) });
  };
  const group = (state) => rows.filter((p) => p.state === state);
  const lines = ['playing', 'waiting', 'missing', 'idle', 'withdrawn', 'out']
    .map((state) => [state, group(state)])
    .filter(([, ps]) => ps.length)
    .map(([state, ps]) =>
      h('li', { class: `presence-${state}` }, h('strong', {}, t(`st.presence-${state}`, { n: ps.length })), ' ', joinNames(ps.map(name))),
    );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'here-h' },
    h('h2', { id: 'here-h' }, t('st.who-is-here')),
    lines.length ? h('ul', { class: 'presence' }, lines) : h('p', { class: 'muted' }, t('st.nobody')),
  );
}

/** Links to the tournament's exports, for a spreadsheet or a rating office. */
function downloads(id) {
  const link = (what) => h('a', { href: `/api/tournaments/${id}/${what}.csv`, download: `tournament-${id}-${what}.csv` }, t(`st.csv-${what}`));
  return h('p', { class: 'downloads' }, t('st.download'), ' ', link('standings'), ' · ', link('pairings'), ' · ', link('results'));
}

function tournamentBody(id, tn, standings) {
  const all = tn.rounds || [];
  const rounds = all.map((r, i) => roundPairings(tn, r, r['in-progress'] || i === all.length - 1));
  const status = t(`tn-status.${tn.status}`);
  return [
    h('h1', {}, tn.name || t('st.tournament-n', { id })),
    h(
      'p',
      { role: 'status', 'aria-label': t('st.status-label') },
      tn.winners?.length ? t('st.status-winners', { status, winners: tn.winners.join(', ') }) : t('st.status-line', { status }),
    ),
    presence(tn),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'st-h' },
      h('h2', { id: 'st-h' }, t('st.standings')),
      standings.length ? standingsTable(tn, standings) : h('p', { class: 'muted' }, t('st.no-result')),
      downloads(id),
    ),
    bracket(tn),
    rounds.length ? h('section', { class: 'card', 'aria-labelledby': 'rd-h' }, h('h2', { id: 'rd-h' }, t('st.rounds')), rounds) : null,
    h('p', {}, h('a', { href: '#/standings' }, t('st.all'))),
  ];
}

/**
 * One tournament's page, kept current while open: it subscribes to the
 * tournament's progress and reloads its detail when a table or round
 * finishes (one load at a time; progress during a load asks for another).
 */
function tournament(app, id) {
  const el = h('div', {}, h('h1', {}, t('st.tournament-n', { id })), h('p', { class: 'muted' }, t('shell.loading')));
  let loading = false;
  let again = false;
  let gone = false;
  const load = async () => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        const [t, standings] = await Promise.all([getJson(`/api/tournaments/${id}`), getJson(`/api/tournaments/${id}/standings`)]);
        if (!gone) replace(el, ...tournamentBody(id, t, standings));
      } while (again && !gone);
    } catch (e) {
      if (!gone) replace(el, h('h1', {}, t('st.tournament-n', { id })), h('p', { role: 'alert' }, t('st.tournament-cannot', { reason: e.message })));
    } finally {
      loading = false;
    }
  };
  const onProgress = (f) => {
    if (String(f.tournament) === String(id)) load();
  };
  app.onTournament = onProgress;
  // A subscription lasts as long as its connection: each greeting (the
  // first, and every one after a dropped connection) subscribes again.
  let subscribedOn = 0;
  const subscribe = () => {
    if (!app.conn?.ready || subscribedOn === app.conn.greeted) return;
    subscribedOn = app.conn.greeted;
    // The reply is the first progress frame; later ones come unasked.
    app.conn.request({ type: 'subscribe-tournament', tournament: Number(id) }).then(onProgress, () => {});
  };
  subscribe();
  load();
  return {
    el,
    // Called after a (re)connection too: subscribe once the socket is up
    // (the reply, a progress frame, reloads what was missed meanwhile).
    update: subscribe,
    unmount: () => {
      gone = true;
      if (app.onTournament === onProgress) app.onTournament = null;
    },
  };
}

/** The standings page, or one tournament's. */
export function mount(app, { tournament: id }) {
  if (id !== null) return tournament(app, id);
  return { el: h('div', {}, h('h1', {}, t('st.standings')), leaderboard(app), tournaments()) };
}
