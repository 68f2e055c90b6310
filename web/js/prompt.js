// Answering a prompt: the one way a table, two-faced or poly, sends a move.

import { errorText } from './i18n.js';

/**
 * Answers the pending prompt with `move` (a `move`, or for a poly table a
 * `poly-move`): the prompt is set aside at once, and given back if the
 * server finds the move illegal.
 */
export function sendMove(app, t, move, type = 'move') {
  const p = t.prompt;
  if (!p) return;
  t.prompt = null;
  t.choosing = null;
  t.focusHand = true;
  app.update();
  app.conn.request({ type, room: t.room, prompt: p.id, move }).catch((e) => {
    app.toast(errorText(e));
    if (e.code === 'illegal-move') t.prompt = p;
    else app.conn.request({ type: 'resync', room: t.room }).catch(() => {});
    app.update();
  });
}
