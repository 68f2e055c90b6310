// Answering a prompt: the one way a table, two-faced or poly, sends a move.

import { h } from './dom.js';
import { t as say, errorText } from './i18n.js';

/**
 * Answers the pending prompt with `move`, of the table's `family` (`tiles`
 * or `poly`): the prompt is set aside at once, and given back if the
 * server finds the move illegal.
 */
export function sendMove(app, t, move, family = 'tiles') {
  const p = t.prompt;
  if (!p) return;
  t.prompt = null;
  t.choosing = null;
  t.focusHand = true;
  app.update();
  app.conn.request({ type: 'move', room: t.room, prompt: p.id, family, move }).catch((e) => {
    app.toast(errorText(e));
    if (e.code === 'illegal-move') t.prompt = p;
    else app.conn.request({ type: 'resync', room: t.room }).catch(() => {});
    app.update();
  });
}

// Whether the page passes for its player when passing is the only legal
// move (on unless turned off, remembered in this browser).
const AUTO_PASS_KEY = 'capicua.auto-pass';

export function autoPass() {
  return localStorage.getItem(AUTO_PASS_KEY) !== 'off';
}

/**
 * Passes for the player when `t`'s pending prompt allows nothing else and
 * auto-pass is on: the pass is sent at once and announced; the room's
 * answer shows it on the table as any pass. Whether it passed.
 */
export function passIfForced(app, t, family) {
  const legal = t.prompt?.legal || [];
  if (!autoPass() || legal.length !== 1 || legal[0].kind !== 'pass') return false;
  app.announce(say('tb.auto-passed'));
  sendMove(app, t, legal[0], family);
  return true;
}

/** The table's auto-pass switch, the same at every table and before a match. */
export function autoPassSwitch(app) {
  const box = h('input', {
    type: 'checkbox',
    'data-key': 'auto-pass',
    'aria-label': say('tb.auto-pass'),
    checked: autoPass(),
    onchange: () => {
      localStorage.setItem(AUTO_PASS_KEY, box.checked ? 'on' : 'off');
      app.update();
    },
  });
  return h('label', { class: 'auto-pass' }, box, ` ${say('tb.auto-pass')}`);
}

/**
 * The prompt's moves other than a tile's play (draw, pass) as a row of
 * buttons, the same at every table; `label(m)` names a move for a screen
 * reader.
 */
export function otherMoves(t, { label, send }) {
  const others = (t.prompt?.legal || []).filter((m) => m.kind !== 'play');
  if (!others.length) return null;
  return h(
    'div',
    { class: 'row' },
    others.map((m) =>
      h(
        'button',
        { class: 'primary', 'data-key': `move-${m.kind}`, 'aria-label': label(m), onclick: () => send(m) },
        m.kind === 'draw' ? say('tb.draw') : say('tb.pass'),
      ),
    ),
  );
}

/** The prompt's legal moves in words: the playable tiles by `name`, else draw or pass. */
export function legalInWords(t, name) {
  const legal = t.prompt?.legal || [];
  const plays = [...new Set(legal.filter((m) => m.kind === 'play').map((m) => name(m.tile)))];
  if (plays.length) return say('tb.playable-list', { list: plays.join(', ') });
  if (legal.some((m) => m.kind === 'draw')) return say('tb.nothing-draw');
  return say('tb.nothing-pass');
}

/** The seconds left to `endsAt` (a `performance.now()` time), as shown on a clock. */
export function secondsLeft(endsAt) {
  return `${Math.max(0, Math.ceil((endsAt - performance.now()) / 1000))} s`;
}

/** The hand's title: whose turn, the clock of the move and its choices in words. */
export function handTitle(t, describe) {
  if (!t.prompt) return h('h2', {}, say('tb.your-hand'));
  return h(
    'h2',
    {},
    `${say('tb.your-turn')} `,
    h('span', { class: 'clock', role: 'timer', 'aria-label': say('tb.time-yours'), 'data-ends-at': t.prompt.endsAt }, secondsLeft(t.prompt.endsAt)),
    h('span', { class: 'turn-text' }, ` ${describe(t)}`),
  );
}
