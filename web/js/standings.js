// Standings: the rating leaderboard of each variant (`/api/leaderboard`)
// and tournaments with their standings (`/api/tournaments...`).

import { h, replace } from './dom.js';

async function getJson(url) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.message || `the server answered ${r.status}`);
  return body;
}

function table(caption, head, rows) {
  return h(
    'table',
    { class: 'list' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c, i) => (i === 1 ? h('th', { scope: 'row' }, c) : h('td', {}, c)))))),
  );
}

function leaderboard(app) {
  const select = h('select', { id: 'lb-variant', 'data-key': 'lb-variant' });
  const body = h('div', { 'aria-live': 'polite' });
  const load = async () => {
    const variant = select.value;
    replace(body, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const rows = await getJson(`/api/leaderboard?variant=${encodeURIComponent(variant)}&limit=100`);
      replace(
        body,
        rows.length
          ? table(
              `leaderboard of ${variant}`,
              ['Rank', 'Player', 'Rating', 'Games', 'Wins', 'Draws', 'Losses'],
              rows.map((r) => [
                String(r.rank),
                r.name,
                r.ordinal.toFixed(1),
                String(r.games),
                String(r.wins),
                String(r.draws),
                String(r.losses),
              ]),
            )
          : h('p', { class: 'muted' }, `No rated ${variant} games yet. Rated rooms (registered players) count.`),
      );
    } catch (e) {
      replace(body, h('p', { role: 'alert' }, `The leaderboard cannot be shown: ${e.message}.`));
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
        const label = print ? `${name} (custom rules ${print})` : name;
        return h('option', { value: b, selected: b === 'latin' }, label);
      }),
    );
    load();
  });
  select.addEventListener('change', load);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'lb-h' },
    h('h2', { id: 'lb-h' }, 'Ratings'),
    h('p', { class: 'small muted' }, 'Weng-Lin ratings of rated games, ordered by the conservative rating (mean minus three deviations).'),
    h('label', { class: 'inline' }, 'Variant', select),
    body,
  );
}

function tournaments() {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  getJson('/api/tournaments')
    .then((list) =>
      replace(
        body,
        list.length
          ? table(
              'tournaments',
              ['Number', 'Tournament', 'Status', 'Entrants', 'Results'],
              list.map((t) => [
                String(t.id),
                h('a', { href: `#/standings/tournament/${t.id}` }, t.name),
                t.status,
                String(Array.isArray(t.entrants) ? t.entrants.length : t.entrants ?? ''),
                String(t.results ?? ''),
              ]),
            )
          : h('p', { class: 'muted' }, 'No tournament yet (see the README: capicua-server tournament create).'),
      ),
    )
    .catch((e) => replace(body, h('p', { role: 'alert' }, `Tournaments cannot be shown: ${e.message}.`)));
  return h('section', { class: 'card', 'aria-labelledby': 'tn-h' }, h('h2', { id: 'tn-h' }, 'Tournaments'), body);
}

/** An entrant's name from the detail's `entrants` (names, or objects with one). */
function entrantName(t, i) {
  const e = (t.entrants || [])[i];
  if (e === undefined || e === null) return `entrant ${i + 1}`;
  return typeof e === 'string' ? e : e.name ?? e.player ?? `entrant ${i + 1}`;
}

/** A side's name: its entrants, joined. */
function sideName(t, side) {
  return joinNames((side || []).map((i) => entrantName(t, i)));
}

function joinNames(names) {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** What a knockout table says: "ana beat ben", "ana against ben, in play". */
function matchText(t, tb) {
  const sides = tb.sides || [];
  const w = tb.result ? tb.result.winner : undefined;
  if (w === undefined) return `${sides.map((s) => sideName(t, s)).join(' against ')}${tb.room ? ', in play' : ', to play'}`;
  if (w === null) return `${joinNames(sides.map((s) => sideName(t, s)))} drew`;
  const losers = sides.filter((_, i) => i !== w).map((s) => sideName(t, s));
  return `${sideName(t, sides[w])} beat ${joinNames(losers)}`;
}

/**
 * The knockout rounds as a bracket: one column per round, each match with
 * its entrants and, once played, its winner marked (in words too, as its
 * accessible name: "round 2, table 1: ana beat ben").
 */
function bracket(t) {
  const stages = t.spec?.stages || [];
  const rounds = (t.rounds || []).filter((r) => stages[r.stage]?.format === 'knockout');
  if (!rounds.length) return null;
  const columns = rounds.map((r) =>
    h(
      'div',
      { class: 'bracket-round', role: 'list', 'aria-label': `round ${r.number + 1}` },
      h('h3', { 'aria-hidden': 'true' }, `Round ${r.number + 1}`),
      (r.tables || []).map((tb) => {
        const w = tb.result ? tb.result.winner : undefined;
        return h(
          'div',
          { class: 'bracket-match', role: 'listitem', 'aria-label': `round ${r.number + 1}, table ${tb.id + 1}: ${matchText(t, tb)}` },
          (tb.sides || []).map((side, i) =>
            h('div', { class: `bracket-side${w === i ? ' winner' : ''}`, 'aria-hidden': 'true' }, sideName(t, side), w === i ? ' ✓' : ''),
          ),
          tb.game !== null && tb.game !== undefined ? h('a', { href: `#/replay/${tb.game}`, class: 'small' }, 'replay') : null,
        );
      }),
    ),
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'br-h' },
    h('h2', { id: 'br-h' }, 'Bracket'),
    h('div', { class: 'bracket', role: 'group', 'aria-label': 'bracket' }, columns),
  );
}

function tournamentBody(id, t, standings) {
  const rows = standings.map((s) => [
    String(s.rank),
    s.name,
    String(s.points),
    String(s.wins),
    String(s.draws),
    String(s.losses),
    String(s.games),
    s.disqualified ? 'disqualified' : s.eliminated ? 'out' : '',
  ]);
  const rounds = (t.rounds || []).map((r) =>
    h(
      'li',
      {},
      `Round ${r.number + 1} (${r.variant}${r['in-progress'] ? ', in play' : ''}): `,
      (r.tables || []).map((tb, i) => [
        i ? ', ' : '',
        tb.game !== null && tb.game !== undefined
          ? h('a', { href: `#/replay/${tb.game}` }, `table ${tb.id + 1}`)
          : `table ${tb.id + 1}${tb.room ? ` (room ${tb.room})` : ''}`,
      ]),
    ),
  );
  return [
    h('h1', {}, t.name || `Tournament ${id}`),
    h('p', { role: 'status', 'aria-label': 'tournament status' }, `Status: ${t.status}${t.winners?.length ? `; winners: ${t.winners.join(', ')}` : ''}.`),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'st-h' },
      h('h2', { id: 'st-h' }, 'Standings'),
      rows.length
        ? table(`standings of ${t.name}`, ['Rank', 'Entrant', 'Points', 'Won', 'Drawn', 'Lost', 'Games', ''], rows)
        : h('p', { class: 'muted' }, 'No result yet.'),
    ),
    bracket(t),
    rounds.length
      ? h('section', { class: 'card', 'aria-labelledby': 'rd-h' }, h('h2', { id: 'rd-h' }, 'Rounds (finished tables link to their replay)'), h('ul', {}, rounds))
      : null,
    h('p', {}, h('a', { href: '#/standings' }, 'All standings')),
  ];
}

/**
 * One tournament's page, kept current while open: it subscribes to the
 * tournament's progress and reloads its detail when a table or round
 * finishes (one load at a time; progress during a load asks for another).
 */
function tournament(app, id) {
  const el = h('div', {}, h('h1', {}, `Tournament ${id}`), h('p', { class: 'muted' }, 'Loading…'));
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
      if (!gone) replace(el, h('h1', {}, `Tournament ${id}`), h('p', { role: 'alert' }, `It cannot be shown: ${e.message}.`));
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
  return { el: h('div', {}, h('h1', {}, 'Standings'), leaderboard(app), tournaments()) };
}
