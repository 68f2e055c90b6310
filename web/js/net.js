// The WebSocket connection: the public protocol of the book's Protocol reference, nothing
// private. Requests carry an `id` and resolve with the reply carrying it;
// every other frame goes to `onFrame`. A dropped connection is reopened with
// capped, jittered backoff and greeted again (with the stored token, so a
// registered player gets its seats back); close codes that say "do not come
// back" (bad token, version mismatch, the player opened elsewhere) stop it.

import { t, errorText } from './i18n.js';

const NO_RECONNECT = new Set([1008, 1009, 4001, 4002, 4005]);

export class Connection {
  /**
   * `token()` gives the token for `hello` (or null for a guest);
   * `onFrame(frame)` receives unsolicited frames; `onWelcome(welcome,
   * again)` each greeting; `onStatus(text|null)` the connection's state
   * for people; `onClose(code)` a close that will not be retried.
   */
  constructor({ token, onFrame, onWelcome, onStatus, onClose }) {
    Object.assign(this, { token, onFrame, onWelcome, onStatus, onClose });
    this.nextId = 1;
    this.pending = new Map();
    this.ws = null;
    this.ready = false;
    this.attempt = 0;
    this.greeted = 0;
    this.waiters = [];
    this.stopped = false;
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${location.host}/ws`;
  }

  open() {
    this.stopped = false;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: 'hello', version: 2 };
      const token = this.token();
      if (token) hello.token = token;
      this.request(hello, { early: true })
        .then((welcome) => {
          this.ready = true;
          this.attempt = 0;
          this.onStatus(null);
          const again = this.greeted > 0;
          this.greeted += 1;
          this.onWelcome(welcome, again);
          for (const w of this.waiters.splice(0)) w();
        })
        .catch(() => {});
    };
    ws.onmessage = (e) => {
      let frame;
      try {
        frame = JSON.parse(e.data);
      } catch {
        return;
      }
      if (frame.id !== undefined && this.pending.has(frame.id)) {
        const { resolve, reject } = this.pending.get(frame.id);
        this.pending.delete(frame.id);
        // The error in the player's words (from its code); the server's own
        // message stays for what only it says (which rule is at fault).
        if (frame.type === 'error') {
          reject(Object.assign(new Error(errorText(frame)), { code: frame.code, url: frame.url, serverMessage: frame.message }));
        }
        else resolve(frame);
        // A reply can also be news (a `room` reply updates the lobby).
        if (frame.type !== 'error') this.onFrame(frame, true);
        return;
      }
      this.onFrame(frame, false);
    };
    ws.onclose = (e) => {
      this.ready = false;
      for (const { reject } of this.pending.values()) reject(Object.assign(new Error(t('net.lost')), { code: 'disconnected' }));
      this.pending.clear();
      if (this.ws !== ws || this.stopped) return;
      if (NO_RECONNECT.has(e.code)) {
        this.onClose(e.code);
        return;
      }
      this.attempt += 1;
      const delay = Math.min(8000, 400 * 2 ** Math.min(this.attempt, 5)) * (0.5 + Math.random() / 2);
      this.onStatus(t('net.reconnecting', { n: Math.ceil(delay / 1000) }));
      setTimeout(() => this.open(), delay);
    };
  }

  /** Closes for good (then `open` again, e.g. after signing out). */
  restart() {
    const old = this.ws;
    this.ws = null;
    this.ready = false;
    if (old) old.close(1000);
    this.open();
  }

  /** Resolves once greeted. */
  whenReady() {
    return this.ready ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  /** Sends a message with a fresh id; resolves with its reply, rejects with an `error` reply. */
  async request(msg, { early = false } = {}) {
    if (!early) await this.whenReady();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ ...msg, id }));
    });
  }
}
