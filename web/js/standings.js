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
              ['Rank', 'Player', 'Rating', 'Games', 'Wins'],
              rows.map((r) => [String(r.rank), r.name, r.ordinal.toFixed(1), String(r.games), String(r.wins)]),
            )
          : h('p', { class: 'muted' }, `No rated ${variant} games yet. Rated rooms (registered players) count.`),
      );
    } catch (e) {
      replace(body, h('p', { role: 'alert' }, `The leaderboard cannot be shown: ${e.message}.`));
    }
  };
  app.variants().then((cat) => {
    select.replaceChildren(...cat.presets.map((p) => h('option', { value: p.name, selected: p.name === 'latin' }, p.name)));
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

function tournament(id) {
  const el = h('div', {}, h('h1', {}, `Tournament ${id}`), h('p', { class: 'muted' }, 'Loading…'));
  Promise.all([getJson(`/api/tournaments/${id}`), getJson(`/api/tournaments/${id}/standings`)])
    .then(([t, standings]) => {
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
      replace(
        el,
        h('h1', {}, t.name || `Tournament ${id}`),
        h('p', {}, `Status: ${t.status}${t.winners?.length ? `; winners: ${t.winners.join(', ')}` : ''}.`),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'st-h' },
          h('h2', { id: 'st-h' }, 'Standings'),
          rows.length
            ? table(`standings of ${t.name}`, ['Rank', 'Entrant', 'Points', 'Won', 'Drawn', 'Lost', 'Games', ''], rows)
            : h('p', { class: 'muted' }, 'No result yet.'),
        ),
        rounds.length
          ? h('section', { class: 'card', 'aria-labelledby': 'rd-h' }, h('h2', { id: 'rd-h' }, 'Rounds (finished tables link to their replay)'), h('ul', {}, rounds))
          : null,
        h('p', {}, h('a', { href: '#/standings' }, 'All standings')),
      );
    })
    .catch((e) => replace(el, h('h1', {}, `Tournament ${id}`), h('p', { role: 'alert' }, `It cannot be shown: ${e.message}.`)));
  return el;
}

/** The standings page, or one tournament's. */
export function mount(app, { tournament: id }) {
  if (id !== null) return { el: tournament(id) };
  return { el: h('div', {}, h('h1', {}, 'Standings'), leaderboard(app), tournaments()) };
}
