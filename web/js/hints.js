// Hints and reviews: what the strongest bot (pimc) would play, with its
// estimated chance to win the hand, computed by the server from one seat's
// view only. At the table a "Hint" button asks for the pending prompt
// (`hint`, unrated rooms only); in a replay the review of the viewpoint
// seat's decisions (`GET /api/games/{id}/review?seat=N`) lists each one.

import { h } from './dom.js';

/** A chance as people read it: `63%`. */
export function percent(win) {
  return `${Math.round(win * 100)}%`;
}

/** What a move does, in words, with `label` naming a play's end. */
export function moveWords(m, label) {
  if (m.kind === 'draw') return 'draw a tile';
  if (m.kind === 'pass') return 'pass';
  return label(m);
}

/** The same words in the past tense: `played 6-4 on the left end`. */
function pastWords(m, label) {
  if (m.kind === 'draw') return 'drew a tile';
  if (m.kind === 'pass') return 'passed';
  return label(m).replace(/^play /, 'played ').replace(/^lead /, 'led ');
}

/** Whether `m` plays `tile` (either way round). */
function plays(m, tile) {
  if (!m || m.kind !== 'play') return false;
  const [a, b] = m.tile;
  return (a === tile[0] && b === tile[1]) || (a === tile[1] && b === tile[0]);
}

/** The tile the table's current hint would play, if any. */
export function hintedTile(t) {
  const hint = t.hint;
  if (!hint || !t.prompt || hint.prompt !== t.prompt.id || hint.best.kind !== 'play') return null;
  return hint.best.tile;
}

/** Whether `tile` is the one the current hint would play. */
export function isHinted(t, tile) {
  const hinted = hintedTile(t);
  return hinted !== null && plays({ kind: 'play', tile: hinted }, tile);
}

/** The sentence of a hint: `The strongest bot would play 6-4 on the left end: 63% to win the hand.` */
export function hintSentence(best, win, label) {
  const what = moveWords(best, label);
  return `The strongest bot would ${what}: ${percent(win)} to win the hand.`;
}

/**
 * The table's hint box: a "Hint" button while it is our turn in an unrated
 * room, and the answer for the pending prompt. `label(m)` names a move.
 */
export function hintBox(app, t, label) {
  if (!t.prompt || t.info?.rated || t.hintUnavailable) return null;
  const current = t.hint && t.hint.prompt === t.prompt.id ? t.hint : null;
  const ask = async () => {
    const prompt = t.prompt?.id;
    t.hintAsking = prompt;
    app.update();
    try {
      const r = await app.conn.request({ type: 'hint', room: t.room });
      t.hint = r;
      const best = r.moves.find((m) => JSON.stringify(m.move) === JSON.stringify(r.best));
      app.announce(hintSentence(r.best, best ? best.win : 0, label));
    } catch (e) {
      if (e.code === 'hint-unavailable') t.hintUnavailable = true;
      app.toast(e.message);
    } finally {
      if (t.hintAsking === prompt) t.hintAsking = null;
      app.update();
    }
  };
  const asking = t.hintAsking === t.prompt.id;
  let answer = null;
  if (current) {
    const best = current.moves.find((m) => JSON.stringify(m.move) === JSON.stringify(current.best));
    answer = h(
      'p',
      { class: 'hint-text', 'data-key': 'hint-text', 'data-best': JSON.stringify(current.best) },
      hintSentence(current.best, best ? best.win : 0, label),
    );
  }
  return h(
    'div',
    { class: 'hint-box row' },
    h(
      'button',
      {
        'data-key': 'hint',
        'aria-label': 'Hint: what the strongest bot would play',
        disabled: asking || Boolean(current),
        onclick: ask,
      },
      asking ? 'Thinking…' : 'Hint',
    ),
    answer,
  );
}

/** Whether `tile` is what the review's analysis would play at `step`. */
export function reviewHints(review, step, tile) {
  const now = review?.decisions?.find((d) => d.step === step);
  return Boolean(now) && plays(now.best, tile);
}

/**
 * The hint at a replay's step, when the viewpoint seat is to decide there:
 * the review's analysis of that decision. `label(m, step)` names a move.
 */
export function replayHint(review, { step, label }) {
  const now = review?.decisions?.find((d) => d.step === step);
  if (!now) return null;
  return h(
    'p',
    { class: 'banner hint-text', role: 'status', 'data-key': 'replay-hint' },
    hintSentence(now.best, now['best-win'], (m) => label(m, now.step)),
  );
}

/**
 * The review panel of a replay: each decision of the viewpoint seat, the
 * move played against the best, each a link to its step; `label(m, step)`
 * names a move at that step, `go(step)` moves the replay there.
 */
export function reviewPanel(review, { seat, step, label, go }) {
  if (!review) return null;
  if (review.error) {
    return h('section', { class: 'card review', 'aria-labelledby': 'review-h' }, h('h2', { id: 'review-h' }, 'Review'), h('p', { class: 'muted' }, review.error));
  }
  if (review.loading) {
    return h('section', { class: 'card review', 'aria-labelledby': 'review-h' }, h('h2', { id: 'review-h' }, 'Review'), h('p', { class: 'muted' }, 'The strongest bot is reviewing the decisions…'));
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const items = review.decisions.map((d) => {
    const played = pastWords(d.played, (m) => label(m, d.step));
    const best = moveWords(d.best, (m) => label(m, d.step));
    const playedWin = d['played-win'] === null || d['played-win'] === undefined ? '?' : percent(d['played-win']);
    const text = same(d.played, d.best)
      ? `${played} (${playedWin}), as the strongest bot would`
      : `${played} (${playedWin}); the strongest bot would ${best} (${percent(d['best-win'])})`;
    return h(
      'li',
      { class: `${same(d.played, d.best) ? 'agree' : 'differ'} ${d.step === step ? 'current' : ''}` },
      h(
        'a',
        {
          href: '#',
          'data-key': `review-${d.step}`,
          'aria-current': d.step === step ? 'step' : null,
          onclick: (e) => {
            e.preventDefault();
            go(d.step);
          },
        },
        `Move ${d.step + 1}`,
      ),
      `: ${text}.`,
    );
  });
  const agreed = review.decisions.filter((d) => same(d.played, d.best)).length;
  return h(
    'section',
    { class: 'card review', 'aria-labelledby': 'review-h' },
    h('h2', { id: 'review-h' }, `Review of seat ${seat + 1}'s decisions`),
    review.decisions.length
      ? h('p', { class: 'small muted' }, `${agreed} of ${review.decisions.length} decisions as the strongest bot would play them (${review.samples} sampled deals each, from this seat's view only).`)
      : h('p', { class: 'muted' }, 'This seat never had a choice to make.'),
    h('ol', { class: 'review-list', 'aria-label': 'decisions' }, items),
  );
}
