// Answering a prompt: the one way a table, two-faced or poly, sends a move.

import { errorText } from './i18n.js';

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
