// Hints and reviews: what the strongest bot (pimc) would play, with its
// estimated chance to win the hand, computed by the server from one seat's
// view only. At the table a "Hint" button asks for the pending prompt
// (`hint`, unrated rooms only); in a replay the review of the viewpoint
// seat's decisions (`GET /api/games/{id}/review?seat=N`) lists each one.

import { h } from './dom.js';
import { t } from './i18n.js';

/** A chance as people read it: `63%`. */
export function percent(win) {
  return `${Math.round(win * 100)}%`;
}

/** What a move does, in words, with `label` naming a play's end. */
export function moveWords(m, label) {
  if (m.kind === 'draw') return t('hint.draw');
  if (m.kind === 'pass') return t('hint.pass');
  return label(m);
}

/** The same words in the past tense: `played 6-4 on the left end`. */
function pastWords(m, label) {
  if (m.kind === 'draw') return t('hint.drew');
  if (m.kind === 'pass') return t('hint.passed');
  // `label(m, true)` names a move in the past where the caller can;
  // otherwise its English present is turned.
  return label(m, true).replace(/^play /, 'played ').replace(/^lead /, 'led ');
}

/** Whether `m` plays `tile` (either way round). */
function plays(m, tile) {
  if (!m || m.kind !== 'play') return false;
  const [a, b] = m.tile;
  return (a === tile[0] && b === tile[1]) || (a === tile[1] && b === tile[0]);
}

/** The tile the table's current hint would play, if any. */
export function hintedTile(tb) {
  const hint = tb.hint;
  if (!hint || !tb.prompt || hint.prompt !== tb.prompt.id || hint.best.kind !== 'play') return null;
  return hint.best.tile;
}

/** Whether `tile` is the one the current hint would play. */
export function isHinted(tb, tile) {
  const hinted = hintedTile(tb);
  return hinted !== null && plays({ kind: 'play', tile: hinted }, tile);
}

/** The sentence of a hint: `The strongest bot would play 6-4 on the left end: 63% to win the hand.` */
export function hintSentence(best, win, label) {
  const what = moveWords(best, label);
  return t('hint.sentence', { what, win: percent(win) });
}

/**
 * The table's hint box: a "Hint" button while it is our turn in an unrated
 * room, and the answer for the pending prompt. `label(m)` names a move.
 */
export function hintBox(app, tb, label) {
  if (!tb.prompt || tb.info?.rated || tb.hintUnavailable) return null;
  const current = tb.hint && tb.hint.prompt === tb.prompt.id ? tb.hint : null;
  const ask = async () => {
    const prompt = tb.prompt?.id;
    tb.hintAsking = prompt;
    app.update();
    try {
      const r = await app.conn.request({ type: 'hint', room: tb.room });
      tb.hint = r;
      const best = r.moves.find((m) => JSON.stringify(m.move) === JSON.stringify(r.best));
      app.announce(hintSentence(r.best, best ? best.win : 0, label));
    } catch (e) {
      if (e.code === 'hint-unavailable') tb.hintUnavailable = true;
      app.toast(e.message);
    } finally {
      if (tb.hintAsking === prompt) tb.hintAsking = null;
      app.update();
    }
  };
  const asking = tb.hintAsking === tb.prompt.id;
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
        'aria-label': t('hint.button-label'),
        disabled: asking || Boolean(current),
        onclick: ask,
      },
      asking ? t('hint.thinking') : t('hint.button'),
    ),
    answer,
  );
}

/**
 * The decision behind the move that led to a replay's step `k` (move k is
 * the one made from step k - 1), when the viewpoint seat made it.
 */
function decisionOf(review, k) {
  return review?.decisions?.find((d) => d.step + 1 === k) || null;
}

/** Whether `tile` is what the review's analysis would have played for move `k`. */
export function reviewHints(review, k, tile) {
  const now = decisionOf(review, k);
  return Boolean(now) && plays(now.best, tile);
}

/**
 * The review's analysis of move `k` (the move just shown at step k), when
 * the viewpoint seat made it: what the strongest bot would have played.
 * `label(m, step)` names a move.
 */
export function replayHint(review, { step, label }) {
  const now = decisionOf(review, step);
  if (!now) return null;
  return h(
    'p',
    { class: 'banner hint-text', role: 'status', 'data-key': 'replay-hint' },
    t('review.at-move', { n: step }),
    ' ',
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
    return h('section', { class: 'card review', 'aria-labelledby': 'review-h' }, h('h2', { id: 'review-h' }, t('review.title')), h('p', { class: 'muted' }, review.error));
  }
  if (review.loading) {
    return h('section', { class: 'card review', 'aria-labelledby': 'review-h' }, h('h2', { id: 'review-h' }, t('review.title')), h('p', { class: 'muted' }, t('review.loading')));
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  // A mistake is a loss beyond the estimates' own error (the server's
  // `mistake`); another move a few sampled points better is no mistake.
  const mistake = (d) => (d.mistake === undefined ? !same(d.played, d.best) : d.mistake);
  const items = review.decisions.map((d) => {
    const played = pastWords(d.played, (m, past) => label(m, d.step, past));
    const best = moveWords(d.best, (m) => label(m, d.step));
    const playedWin = d['played-win'] === null || d['played-win'] === undefined ? '?' : percent(d['played-win']);
    const text = same(d.played, d.best)
      ? t('review.agree', { played, win: playedWin })
      : t(mistake(d) ? 'review.differ' : 'review.close', { played, win: playedWin, best, bestWin: percent(d['best-win']) });
    return h(
      'li',
      { class: `${mistake(d) ? 'differ' : 'agree'} ${d.step + 1 === step ? 'current' : ''}`, 'data-mistake': String(mistake(d)) },
      h(
        'a',
        {
          href: '#',
          'data-key': `review-${d.step + 1}`,
          'aria-current': d.step + 1 === step ? 'step' : null,
          onclick: (e) => {
            e.preventDefault();
            // "Move 3" opens move 3: the step after it, the move on the board.
            go(d.step + 1);
          },
        },
        t('review.move', { n: d.step + 1 }),
      ),
      `: ${text}.`,
    );
  });
  const agreed = review.decisions.filter((d) => same(d.played, d.best)).length;
  const mistakes = review.decisions.filter(mistake).length;
  return h(
    'section',
    { class: 'card review', 'aria-labelledby': 'review-h' },
    h('h2', { id: 'review-h' }, t('review.of-seat', { seat: seat + 1 })),
    review.decisions.length
      ? h('p', { class: 'small muted' }, t('review.summary', { agreed, n: review.decisions.length, samples: review.samples }), ' ', t('review.mistakes', { n: mistakes }))
      : h('p', { class: 'muted' }, t('review.no-choice')),
    h('ol', { class: 'review-list', 'aria-label': t('review.decisions') }, items),
  );
}
