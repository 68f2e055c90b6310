// A player's profile (#/player/NAME): the name, its rating on every board
// it plays rated (`GET /api/players/{name}`), and its recent games with what
// each did to its rating, each a link to the replay from its seat
// (`GET /api/games?player=NAME`).

import { h, replace } from './dom.js';
import { t, lang } from './i18n.js';
import { getJson } from './standings.js';
import { shownRating, signed } from './rating.js';
import { resultText } from './replay.js';

function ratingsTable(p) {
  if (!p.ratings.length) return h('p', { class: 'muted' }, t('pf.no-ratings'));
  const heads = [t('pf.board'), t('st.rating'), t('st.rank'), t('st.games'), t('st.wins'), t('st.draws'), t('st.losses')];
  return h(
    'table',
    { class: 'list cards' },
    h('caption', { class: 'visually-hidden' }, t('pf.ratings-of', { name: p.name })),
    h('thead', {}, h('tr', {}, heads.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      p.ratings.map((r) => {
        const [name, print] = r.board.split('#');
        const cells = [
          h('th', { scope: 'row', 'data-label': heads[0] }, print ? t('st.custom', { name, print }) : name),
          h('td', { 'data-label': heads[1], title: t('st.rating-detail', { mu: r.mu.toFixed(1), sigma: r.sigma.toFixed(1) }) }, shownRating(r)),
          h('td', { 'data-label': heads[2] }, String(r.rank)),
          h('td', { 'data-label': heads[3] }, String(r.games)),
          h('td', { 'data-label': heads[4] }, String(r.wins)),
          h('td', { 'data-label': heads[5] }, String(r.draws)),
          h('td', { 'data-label': heads[6] }, String(r.losses)),
        ];
        return h('tr', {}, cells);
      }),
    ),
  );
}

/** The player's outcome of a listed game: won, lost or drawn, from its seat's side. */
function outcome(g, seat) {
  if (g.winner === null || g.winner === undefined) return t('pf.drawn');
  return g.winner === seat.side ? t('pf.won') : t('pf.lost');
}

function gamesTable(name, games) {
  if (!games.length) return h('p', { class: 'muted' }, t('pf.no-games'));
  const heads = [t('replays.col-game'), t('replays.col-variant'), t('pf.outcome'), t('replays.col-result'), t('pf.rating-change'), t('replays.col-finished')];
  return h(
    'table',
    { class: 'list cards' },
    h('caption', { class: 'visually-hidden' }, t('pf.games-of', { name })),
    h('thead', {}, h('tr', {}, heads.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      games.map((g) => {
        // The player's seat: the first of its name (a hosted bot may hold several).
        const seat = g.seats.find((s) => s.name === name) || g.seats[0];
        const when = new Date(g['finished-at'] * 1000);
        const r = seat.rating;
        return h(
          'tr',
          {},
          h('td', { 'data-label': heads[0] }, h('a', { href: `#/replay/${g.id}?seat=${seat.seat}` }, t('replays.game', { id: g.id }))),
          h('td', { 'data-label': heads[1] }, g.variant),
          h('td', { 'data-label': heads[2] }, outcome(g, seat)),
          h('td', { 'data-label': heads[3] }, resultText(g)),
          h('td', { 'data-label': heads[4] }, r ? `${shownRating(r)} (${signed(r.change)})` : g.rated ? '—' : t('pf.casual')),
          h('td', { 'data-label': heads[5] }, h('time', { datetime: when.toISOString() }, when.toLocaleString(lang()))),
        );
      }),
    ),
  );
}

export function mount(app, { name }) {
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, t('shell.loading')));
  const el = h('div', {}, h('h1', {}, name), body);
  (async () => {
    try {
      const p = await getJson(`/api/players/${encodeURIComponent(name)}`);
      const games = await getJson(`/api/games?player=${encodeURIComponent(p.name)}&limit=20`);
      const since = new Date(p.since * 1000);
      el.firstChild.textContent = p.name;
      replace(
        body,
        h(
          'p',
          { class: 'muted' },
          p.kind === 'hosted-bot' ? t('pf.hosted-bot') : t('pf.registered', { date: since.toLocaleDateString(lang()) }),
          app.me && app.me.name === p.name ? ` ${t('pf.you')}` : '',
        ),
        h('section', { class: 'card', 'aria-labelledby': 'pf-ratings-h' }, h('h2', { id: 'pf-ratings-h' }, t('st.ratings')), h('div', { class: 'scroll' }, ratingsTable(p))),
        h('section', { class: 'card', 'aria-labelledby': 'pf-games-h' }, h('h2', { id: 'pf-games-h' }, t('pf.recent')), h('div', { class: 'scroll' }, gamesTable(p.name, games))),
      );
    } catch (e) {
      replace(body, h('p', { role: 'alert' }, t('pf.cannot', { reason: e.message })));
    }
  })();
  return { el };
}
