// Standings: the rating leaderboard of each variant (`/api/leaderboard`)
// and tournaments with their standings (`/api/tournaments...`).

import { h, replace, joinWords } from './dom.js';
import { t, errorText } from './i18n.js';

async function getJson(url) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.code ? errorText(body) : t('http.status', { status: r.status }));
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
                r.name,
                r.ordinal.toFixed(1),
                String(r.games),
                String(r.wins),
                String(r.draws),
                String(r.losses),
              ]),
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

function tournamentBody(id, tn, standings) {
  const rows = standings.map((s) => [
    String(s.rank),
    s.name,
    String(s.points),
    String(s.wins),
    String(s.draws),
    String(s.losses),
    String(s.games),
    s.disqualified ? t('st.disqualified') : s.eliminated ? t('st.out') : '',
  ]);
  const rounds = (tn.rounds || []).map((r) =>
    h(
      'li',
      {},
      t(r['in-progress'] ? 'st.round-line-playing' : 'st.round-line', { n: r.number + 1, variant: r.variant }),
      ' ',
      (r.tables || []).map((tb, i) => [
        i ? ', ' : '',
        tb.game !== null && tb.game !== undefined
          ? h('a', { href: `#/replay/${tb.game}` }, t('st.table', { n: tb.id + 1 }))
          : tb.room
            ? t('st.table-room', { n: tb.id + 1, room: tb.room })
            : t('st.table', { n: tb.id + 1 }),
      ]),
    ),
  );
  const status = t(`tn-status.${tn.status}`);
  return [
    h('h1', {}, tn.name || t('st.tournament-n', { id })),
    h(
      'p',
      { role: 'status', 'aria-label': t('st.status-label') },
      tn.winners?.length ? t('st.status-winners', { status, winners: tn.winners.join(', ') }) : t('st.status-line', { status }),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'st-h' },
      h('h2', { id: 'st-h' }, t('st.standings')),
      rows.length
        ? table(t('st.standings-of', { name: tn.name }), [t('st.rank'), t('st.entrant-col'), t('st.points'), t('st.won'), t('st.drawn'), t('st.lost'), t('st.games'), ''], rows)
        : h('p', { class: 'muted' }, t('st.no-result')),
    ),
    bracket(tn),
    rounds.length
      ? h('section', { class: 'card', 'aria-labelledby': 'rd-h' }, h('h2', { id: 'rd-h' }, t('st.rounds')), h('ul', {}, rounds))
      : null,
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
