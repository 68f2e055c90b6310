// capicua in the browser: state, routing and the protocol's frames.
//
// Pages are hash routes (#/, #/room/ID, #/replay/ID?seat=N, #/replays,
// #/standings, #/standings/tournament/ID), so the server serves one page
// and its assets. Each page module exports `mount(app, params)` returning
// `{ el, update?, unmount? }`; `app.update()` refreshes the mounted page
// after a state change, keeping keyboard focus where it was.

import { Connection } from './net.js';
import { h, tileName, sameTile } from './dom.js';
import { endName } from './board.js';
import * as lobby from './lobby.js';
import * as playNow from './playnow.js';
import * as table from './table.js';
import * as replay from './replay.js';
import * as standings from './standings.js';
import * as profile from './profile.js';
import * as account from './account.js';
import * as rules from './rules.js';
import { t as say, errorText } from './i18n.js';
import { passIfForced } from './prompt.js';
import { applyPolyEvents, describePoly, tileSet } from './poly.js';

const TOKEN_KEY = 'capicua.token';
const PACE_KEY = 'capicua.pace';
const GAMES_KEY = 'capicua.games';
const GUEST_SEAT_KEY = 'capicua.guest-seat';
// A guest's session, per tab: a reload is the same guest, seats included.
const GUEST_SESSION_KEY = 'capicua.guest-session';

// `?pace=MS` (kept in this browser): how long each move of another seat
// stays on screen before the next is shown. 0 shows moves as they come.
{
  const q = new URLSearchParams(location.search).get('pace');
  if (q !== null && /^\d+$/.test(q)) localStorage.setItem(PACE_KEY, q);
}

export const app = {
  me: null,
  rooms: [],
  roomsAt: 0,
  tables: new Map(),
  catalog: null,
  page: null,
  route: null,
  pace: Number(localStorage.getItem(PACE_KEY) ?? 450),
  conn: null,
  // What this connection seeks with Play now (`seeking`), or null.
  seek: null,

  // A signed-in player's session is an HttpOnly cookie the page never
  // sees: the socket carries it. The token `hello` names is a guest's
  // session in this tab, if any.
  token() {
    return sessionStorage.getItem(GUEST_SESSION_KEY);
  },

  /** Registered, signed in or out: the guest this tab was is done. */
  setToken() {
    localStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(GUEST_SESSION_KEY);
  },

  /** A room's table state, created on first use. */
  table(room) {
    room = Number(room);
    if (!this.tables.has(room)) {
      this.tables.set(room, {
        room,
        seat: null,
        spectating: false,
        info: this.rooms.find((r) => r.id === room) || null,
        variant: null,
        view: null,
        seq: 0,
        prompt: null,
        gameOver: null,
        closed: null,
        lost: false,
        log: [],
        chat: [],
        banner: null,
        summary: null,
        handsSeen: 0,
        passed: new Set(),
        queue: [],
        // Watch controls (a spectator only): paused holds moves in the
        // queue; each step lets one through; speed divides the pace.
        paused: false,
        steps: 0,
        speed: 1,
        busy: false,
        turnSince: performance.now(),
        strength: 'random',
        choosing: null,
      });
    }
    return this.tables.get(room);
  },

  /** Variants and strategies from `GET /api/variants`, fetched once. */
  async variants() {
    if (!this.catalog) {
      const r = await fetch('/api/variants');
      this.catalog = await r.json();
    }
    return this.catalog;
  },

  announce(text) {
    const el = document.getElementById('announce');
    const p = document.createElement('p');
    p.textContent = text;
    el.append(p);
    while (el.childElementCount > 5) el.firstElementChild.remove();
  },

  toast(text) {
    const el = document.getElementById('toast');
    el.textContent = text;
    el.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => (el.hidden = true), 5000);
  },

  update() {
    if (this.updating) return;
    this.updating = true;
    queueMicrotask(() => {
      this.updating = false;
      renderWho();
      if (!this.page?.update) return;
      const active = document.activeElement;
      const key = active?.getAttribute?.('data-key');
      this.page.update();
      // A rebuilt control gets focus back, unless the page moved it on purpose.
      const lost = !document.activeElement || document.activeElement === document.body;
      if (key && lost) {
        const again = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
        if (again) again.focus();
      }
    });
  },

  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },

  /** Sends a request, turning an error reply into a message for people. */
  async ask(msg) {
    try {
      return await this.conn.request(msg);
    } catch (e) {
      this.toast(e.message || String(e));
      throw e;
    }
  },

  recentGames() {
    try {
      return JSON.parse(localStorage.getItem(GAMES_KEY) || '[]');
    } catch {
      return [];
    }
  },

  rememberGame(entry) {
    const list = this.recentGames().filter((g) => g.id !== entry.id);
    list.unshift(entry);
    localStorage.setItem(GAMES_KEY, JSON.stringify(list.slice(0, 30)));
  },

  rememberGuestSeat(room, seat) {
    sessionStorage.setItem(GUEST_SEAT_KEY, JSON.stringify({ room, seat }));
  },

  /** A seat as people read it (seats count from 1 on screen). */
  who(t, seat, { cap = false } = {}) {
    if (seat === t.seat && t.seat !== null) return cap ? say('tb.you-cap') : say('tb.you');
    const name = t.info?.seats?.[seat]?.occupant?.name;
    return `${say(cap ? 'tb.seat-cap' : 'tb.seat', { n: seat + 1 })}${name ? ` (${name})` : ''}`;
  },

  sideOf(t, seat) {
    const teams = t.view?.teams;
    if (teams) return teams.findIndex((team) => team.includes(seat));
    const side = t.info?.seats?.[seat]?.side;
    return side ?? seat;
  },
};

function renderWho() {
  const el = document.getElementById('who');
  if (!app.me) {
    el.textContent = '';
    return;
  }
  if (app.me.guest) {
    el.textContent = say('shell.who-guest', { name: app.me.name });
    return;
  }
  // A registered name links to its profile.
  el.replaceChildren(
    h('a', { href: `#/player/${encodeURIComponent(app.me.name)}`, title: say('pf.my-profile') }, say('shell.who', { name: app.me.name })),
  );
}

// --- frames ------------------------------------------------------------------

const TABLE_FRAMES = new Set([
  'game-started',
  'prompt',
  'events',
  'game-over',
  'sync',
  'room-closed',
]);

function onFrame(f) {
  if (f.type === 'rooms') {
    app.rooms = f.rooms;
    app.roomsAt = performance.now();
    for (const r of f.rooms) if (app.tables.has(r.id)) app.tables.get(r.id).info = r;
    app.update();
    return;
  }
  if (f.type === 'room') {
    const i = app.rooms.findIndex((r) => r.id === f.room.id);
    if (i >= 0) app.rooms[i] = f.room;
    else app.rooms.push(f.room);
    if (app.tables.has(f.room.id)) app.tables.get(f.room.id).info = f.room;
    app.update();
    return;
  }
  if (f.type === 'chat') {
    // Words are not paced like moves: shown as they come (the last 100).
    const t = app.table(f.room);
    t.chat.push(f);
    if (t.chat.length > 100) t.chat.shift();
    t.onChat?.();
    return;
  }
  if (TABLE_FRAMES.has(f.type)) {
    const t = app.table(f.room);
    f.at = performance.now();
    t.queue.push(f);
    pump(t);
    return;
  }
  if (f.type === 'unseated') {
    // The room's creator freed our seat before the match.
    const t = app.table(f.room);
    if (t.seat === f.seat) {
      t.seat = null;
      t.lost = false;
    }
    app.toast(say('tb.unseated', { n: f.seat + 1 }));
    app.update();
    return;
  }
  if (f.type === 'seeking' || f.type === 'paired') {
    playNow.onFrame(app, f);
    return;
  }
  if (f.type === 'tournament-progress') {
    // The tournament page, if open, refreshes what changed.
    app.onTournament?.(f);
    return;
  }
  if (f.type === 'closing') {
    setStatus(say('tb.going-away', { reason: f.reason }));
    return;
  }
  if (f.type === 'error') app.toast(errorText(f));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Whether `t` is watched from outside its seats (the watch controls apply). */
export function watching(t) {
  return t.spectating && t.seat === null;
}

/** Pauses or resumes a watched table; resuming shows the held moves at the pace. */
export function setPaused(t, paused) {
  t.paused = paused;
  t.steps = 0;
  app.update();
  if (!paused) pump(t);
}

/** Lets one held move of a paused, watched table through. */
export function stepOnce(t) {
  t.steps += 1;
  pump(t);
}

// The table page reaches the watch controls through `app` (no import cycle).
app.watching = watching;
app.setPaused = setPaused;
app.stepOnce = stepOnce;

/** Whether a frame carries a move (a play, a draw or a pass), and whether another seat made it. */
function moveIn(t, f) {
  if (f.type !== 'events') return null;
  const moves = (f.events || []).filter((e) => e.event === 'played' || e.event === 'drew' || e.event === 'passed');
  if (!moves.length) return null;
  return { others: moves.some((e) => e.seat !== t.seat) };
}

/**
 * Applies a table's frames in order. Each WebSocket message arrives on its
 * own, a few milliseconds after the one before, so waiting "when more is
 * queued" would never wait: instead a move of another seat waits in the
 * queue until the move before it has been on screen for the pace. Our own
 * moves show at once. A hand's end stays on screen (holding what follows)
 * until the player continues.
 */
async function pump(t) {
  if (t.busy) return;
  t.busy = true;
  // Frames applied but not drawn yet (a watcher catching up).
  let stale = false;
  try {
    while (t.queue.length) {
      const next = t.queue[0];
      // A paused watcher holds moves (and what follows them, to keep the
      // order) until a step lets the next one through.
      const held = t.paused && watching(t) && next.type === 'events';
      if (held && t.steps === 0) {
        app.update(); // the count of held moves, and the step button
        break;
      }
      // The end of a hand stays until the player continues (or its few seconds pass).
      if (t.handEnd && !t.handEnd.last) {
        app.update();
        break;
      }
      const move = moveIn(t, next);
      const pace = watching(t) ? app.pace / t.speed : app.pace;
      // A watcher who fell behind the live match (more moves waiting than
      // a glance takes in) is shown them at once, drawn once caught up.
      const behind = watching(t) && !t.paused && t.queue.filter((f) => f.type === 'events').length > CATCH_UP;
      if (!held && !behind && move?.others && pace > 0 && !document.hidden) {
        const wait = (t.shownAt ?? -Infinity) + pace - performance.now();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
      }
      if (held) t.steps -= 1;
      t.queue.shift();
      applyFrame(t, next);
      if (behind) {
        stale = true;
        continue;
      }
      stale = false;
      app.update();
      if (move) {
        // The pace counts from the move on screen: after the render that
        // `update` queued (a microtask queued now runs after it).
        await new Promise((r) => queueMicrotask(r));
        t.shownAt = performance.now();
      }
    }
    if (stale) app.update();
  } finally {
    t.busy = false;
  }
}

/**
 * Lets the frames held behind a hand's end through, and tells the room the
 * seat has read it: the next hand waits for the people at the table.
 */
export function continueHand(t) {
  if (!t.handEnd) return;
  if (!t.handEnd.last) handEndRead(t);
  t.handEnd = null;
  clearTimeout(t.handEndTimer);
  t.focusHand = true;
  app.update();
  pump(t);
}
app.continueHand = continueHand;

/** Tells the room our seat is not reading a hand's end (any more). */
function handEndRead(t) {
  if (t.seat !== null && t.seat !== undefined && !watching(t)) app.conn.request({ type: 'ready', room: t.room }).catch(() => {});
}

/** Until the player continues, the table shows a finished hand: its last tile laid and every hand face up. */
function showHandEnd(t, end, last) {
  // The match's last hand stays on screen under the match's result, holding nothing back.
  t.handEnd = { ...end, last };
  t.summary = null;
  t.focusContinue = true;
  clearTimeout(t.handEndTimer);
  const check = () => {
    if (t.handEnd?.hand !== end.hand || t.handEnd.last) return;
    // A watcher is shown it a few seconds; a player continues, unless a
    // turn of theirs is waiting behind it and its clock runs short.
    const waiting = t.queue.find((q) => q.type === 'prompt');
    const short = waiting && waiting.at + waiting['deadline-ms'] - performance.now() < 8000;
    const seen = performance.now() - shown > HAND_END_WATCH_MS / (t.speed || 1);
    if ((watching(t) && seen && !t.paused) || short) continueHand(t);
    else t.handEndTimer = setTimeout(check, 250);
  };
  const shown = performance.now();
  t.handEndTimer = setTimeout(check, 250);
}

/** How many moves a watcher may have waiting before the pace is skipped. */
const CATCH_UP = 1;

/** How long a watcher is shown the end of a hand. */
const HAND_END_WATCH_MS = 4000;

function log(t, text) {
  t.log.push(text);
  if (t.log.length > 60) t.log.shift();
  app.announce(text);
}

function noteSummary(t) {
  const results = t.view?.results || [];
  if (results.length > t.handsSeen) {
    // A hand's end on screen already tells its result.
    t.summary = t.handEnd ? null : results[results.length - 1];
    t.handsSeen = results.length;
  }
}

/** Applies one frame; true when it showed another seat's move. */
function applyFrame(t, f) {
  // Game frames carry their tile family; the family applies its own
  // events and words its own moves, and the rest is one.
  const poly = f.family === 'poly';
  switch (f.type) {
    case 'game-started': {
      t.poly = poly;
      t.variant = f.variant;
      t.tiles = poly ? tileSet(f.variant) : null;
      t.view = f.view;
      t.seq = f.seq;
      t.seat = f.seat ?? null;
      t.gameOver = null;
      t.summary = null;
      t.handsSeen = f.view.results?.length || 0;
      t.prompt = null;
      t.banner = null;
      t.choosing = null;
      t.pending = null;
      t.passed = new Set();
      t.lastAction = new Map();
      t.handEnd = null;
      t.overClosed = false;
      t.focusOver = undefined;
      t.log = [];
      t.turnSince = f.at;
      log(t, say('tb.match-started', { name: f.variant.name }));
      return false;
    }
    case 'prompt': {
      t.poly = poly;
      if (f.view) t.view = f.view;
      if (t.view) t.view['to-move'] = f.seat;
      t.seat = f.seat;
      t.prompt = { id: f.prompt, legal: f['legal-moves'], endsAt: f.at + f['deadline-ms'] };
      t.choosing = null;
      t.pending = null;
      t.focusHand = true;
      if (passIfForced(app, t, poly ? 'poly' : 'tiles')) return false;
      app.announce(`${say('tb.your-turn')}. ${poly ? describePoly(t) : describeLegal(t)}`);
      return false;
    }
    case 'events': {
      if (t.seq && f.seq <= t.seq) return false;
      if (!t.view || (t.seq && f.seq !== t.seq + 1)) {
        // Frames were missed (or the match began before we watched):
        // the room sends its whole state again.
        t.seq = f.seq;
        if (f.view) {
          t.view = f.view;
          return false;
        }
        app.conn.request({ type: 'resync', room: t.room }).catch(() => {});
        return false;
      }
      t.seq = f.seq;
      t.poly = poly;
      const watched = poly ? applyPolyEvents(app, t, f.events, log) : applyEvents(t, f.events);
      // The last hand's end comes with the match's (`match-over`; `match-ended` for poly tiles).
      const last = f.events.some((e) => e.event === 'match-over' || e.event === 'match-ended');
      if (f['hand-end']) showHandEnd(t, f['hand-end'], last);
      if (f.view) t.view = f.view;
      if (!poly) {
        noteSummary(t);
        predictMover(t, f.events, Boolean(f.view));
      }
      t.turnSince = f.at;
      return watched;
    }
    case 'game-over': {
      t.seq = f.seq;
      t.prompt = null;
      t.choosing = null;
      t.gameOver = { game: f.game, result: f.result };
      if (t.view) t.view['to-move'] = null;
      const r = f.result;
      const mine = t.seat !== null ? app.sideOf(t, t.seat) : null;
      const text =
        r.winner === null || r.winner === undefined
          ? `${say('tb.match-drawn')}.`
          : mine === r.winner
            ? say('tb.your-side-won')
            : `${say('tb.side-won', { side: table.sideName(app, t, r.winner) })}.`;
      log(t, `${text} ${say('tb.final-scores', { list: r.scores.map((p, side) => `${table.sideName(app, t, side)} ${p}`).join(', ') })}`);
      if (f.game !== null && f.game !== undefined) {
        app.rememberGame({ id: f.game, seat: t.seat, variant: t.variant?.name, room: t.room, won: mine === r.winner });
        if (!t.handEnd || t.info?.rated) storedResult(t, f.game, { summary: !t.handEnd });
      }
      return false;
    }
    case 'sync': {
      t.seq = f.seq;
      t.info = f.info;
      if (f.variant) t.variant = f.variant;
      t.poly = f.family === 'poly';
      if (t.poly && f.variant) t.tiles = tileSet(t.variant);
      if (t.poly && f.view) {
        t.view = f.view;
        t.seat = f.view.seat ?? null;
        t.gameOver = null;
        t.pending = null;
        t.choosing = null;
      } else if (f.view) {
        t.view = f.view;
        t.seat = f.view.seat ?? null;
        t.gameOver = null;
        t.handsSeen = Math.max(t.handsSeen, f.view.results?.length || 0);
      } else if (!t.gameOver) {
        t.view = null;
      }
      t.closed = null;
      // Back at a match in play with no hand's end on screen (a reload):
      // the room need not wait for us to read one.
      if (f.view && !t.handEnd) handEndRead(t);
      return false;
    }
    case 'room-closed': {
      t.closed = f.reason;
      t.prompt = null;
      log(t, say('tb.room-closed', { reason: f.reason }));
      return false;
    }
  }
  return false;
}

function removeTile(list, tile) {
  const i = list.findIndex((x) => sameTile(x, tile));
  if (i >= 0) list.splice(i, 1);
}

/** Applies a move's public events to the table's view (the book's "Tiles, moves and views" page, "Keeping a view current"). */
function applyEvents(t, events) {
  const v = t.view;
  let watched = false;
  let handOver = false;
  for (const ev of events) {
    switch (ev.event) {
      case 'played': {
        v.history.push({ seat: ev.seat, action: { kind: 'play', tile: ev.tile, end: ev.end, face: ev.face } });
        v['hand-sizes'][ev.seat] -= 1;
        if (v.hand && ev.seat === v.seat) removeTile(v.hand, ev.tile);
        if (v.hands?.[ev.seat]) removeTile(v.hands[ev.seat], ev.tile);
        v['lead-requirement'] = null;
        v['legal-moves'] = [];
        t.passed.delete(ev.seat);
        (t.lastAction ||= new Map()).set(ev.seat, say('tb.act-played', { tile: tileName(ev.tile) }));
        t.banner = null;
        const who = app.who(t, ev.seat, { cap: true });
        const tile = tileName(ev.tile);
        const you = ev.seat === t.seat;
        log(t, ev.end === 255 ? say('tb.log-led', { who, tile, you }) : say('tb.log-played', { who, tile, you, end: endName(ev.end, { view: v, variant: t.variant, seat: t.seat }) }));
        watched = ev.seat !== t.seat;
        break;
      }
      case 'drew':
        v.history.push({ seat: ev.seat, action: { kind: 'draw' } });
        v.stock = Math.max(0, (v.stock || 0) - 1);
        v['hand-sizes'][ev.seat] += 1;
        (t.lastAction ||= new Map()).set(ev.seat, say('tb.act-drew'));
        if (ev.seat !== t.seat) t.banner = { text: say('tb.log-drew', { who: app.who(t, ev.seat, { cap: true }), you: ev.seat === t.seat }), seat: ev.seat };
        log(t, say('tb.log-drew', { who: app.who(t, ev.seat, { cap: true }), you: ev.seat === t.seat }));
        watched = ev.seat !== t.seat;
        break;
      case 'passed': {
        v.history.push({ seat: ev.seat, action: { kind: 'pass', 'open-pips': 0 } });
        t.passed.add(ev.seat);
        (t.lastAction ||= new Map()).set(ev.seat, say('tb.passed'));
        const text = say('tb.log-passed', { who: app.who(t, ev.seat, { cap: true }), you: ev.seat === t.seat });
        t.banner = { text, seat: ev.seat };
        log(t, text);
        watched = ev.seat !== t.seat;
        break;
      }
      case 'scored':
        v.scores[ev.side] += ev.points;
        if (!handOver && v['play-points']) v['play-points'][ev.side] += ev.points;
        log(t, `${table.scoresText(table.sideName(app, t, ev.side), ev.points)}.`);
        break;
      case 'overruled':
        v.scores[app.sideOf(t, ev.seat)] -= ev.penalty;
        log(t, say('tb.overruled', { who: app.who(t, ev.seat), n: ev.penalty, you: ev.seat === t.seat }));
        break;
      case 'hand-over':
        handOver = true;
        t.passed = new Set();
        t.banner = null;
        log(t, say('tb.log-hand-over', { n: ev.hand + 1 }));
        watched = true;
        break;
      case 'hand-started':
        t.lastAction = new Map();
        log(t, say('tb.log-dealt', { n: ev.hand + 1, who: app.who(t, ev.leader), you: ev.leader === t.seat }));
        break;
      case 'match-over':
        v['to-move'] = null;
        break;
    }
  }
  return watched;
}

/** Who moves next, where the variant's turn order makes it certain. */
function predictMover(t, events, fresh) {
  const v = t.view;
  if (fresh || !v) return;
  const last = events[0];
  if (events.some((e) => e.event === 'match-over')) {
    v['to-move'] = null;
    return;
  }
  const n = v['hand-sizes'].length;
  const turn = t.variant?.turn || {};
  const simple = (!turn.order || turn.order === 'fixed') && !(t.variant?.when?.length > 0);
  // Where the player of a double covers it, a double may keep the turn:
  // the next frame says who moves.
  const trains = t.variant?.board?.trains;
  const keeps = trains && trains.cover !== 'next-seat' && trains['satisfy-doubles'] !== false;
  if (keeps && last.event === 'played' && last.tile?.[0] === last.tile?.[1]) v['to-move'] = undefined;
  else if (last.event === 'drew') v['to-move'] = last.seat;
  else if (simple && (last.event === 'played' || last.event === 'passed')) {
    const step = turn.direction === 'clockwise' ? 1 : n - 1;
    v['to-move'] = (last.seat + step) % n;
  } else v['to-move'] = undefined;
}

/**
 * What the stored game adds to the result on screen: what a rated match
 * did to each seat's rating (`ratings` of its first replay page), and,
 * with `summary`, the last hand's result and final position.
 */
async function storedResult(t, game, { summary }) {
  try {
    // A private room's games open with its invite.
    const q = `${t.seat === null ? '' : `&seat=${t.seat}`}${t.invite ? `&key=${t.invite}` : ''}`;
    // Replays come a page at a time: the head (with the step count and
    // the ratings) and then the last step alone.
    const r = await fetch(`/api/games/${game}?limit=1${q}`);
    if (!r.ok) return;
    let g = await r.json();
    if (t.gameOver?.game === game) t.gameOver.ratings = g.ratings || [];
    const total = g['total-steps'];
    if (summary && total > 1) {
      const end = await fetch(`/api/games/${game}?from=${total - 1}&limit=1${q}`);
      if (!end.ok) return;
      g = await end.json();
    }
    if (summary) {
      const last = g.steps.length ? g.steps[g.steps.length - 1].view : g.start;
      const results = last.results || [];
      if (results.length) {
        t.summary = results[results.length - 1];
        t.view = last;
      }
    }
    app.update();
  } catch {
    // A nicety: the result is already on screen.
  }
}

export function describeLegal(t) {
  const legal = t.prompt?.legal || [];
  const plays = [...new Set(legal.filter((m) => m.kind === 'play').map((m) => tileName(m.tile)))];
  const parts = [];
  if (plays.length) parts.push(say('tb.playable-list', { list: plays.join(', ') }));
  if (legal.some((m) => m.kind === 'draw')) parts.push(say('tb.may-draw'));
  if (legal.some((m) => m.kind === 'pass')) parts.push(say('tb.may-pass'));
  return parts.join(' ');
}

// --- connection ---------------------------------------------------------------

function setStatus(text) {
  const el = document.getElementById('connection');
  el.hidden = !text;
  el.textContent = text || '';
}

function onWelcome(w, again) {
  const wasGuest = app.me?.guest;
  app.me = w.player;
  if (w['guest-session']) sessionStorage.setItem(GUEST_SESSION_KEY, w['guest-session']);
  const held = new Set(w.seats.map((s) => s.room));
  for (const s of w.seats) {
    const t = app.table(s.room);
    t.seat = s.seat;
    t.lost = false;
  }
  for (const t of app.tables.values()) {
    if (held.has(t.room)) continue;
    if (t.seat !== null && !t.gameOver && !t.closed && (again || wasGuest)) {
      // The seat was not given back (a guest session the server no
      // longer knows, or a grace that ran out).
      t.lost = true;
      t.seat = null;
      t.prompt = null;
    }
    if (t.spectating && again) {
      t.seq = 0;
      app.conn.request(t.invite ? { type: 'spectate', invite: t.invite } : { type: 'spectate', room: t.room }).catch(() => {});
    }
  }
  if (!again) {
    const kept = sessionStorage.getItem(GUEST_SEAT_KEY);
    if (kept && app.me.guest) {
      try {
        const { room } = JSON.parse(kept);
        if (!held.has(room)) app.table(room).lost = true;
      } catch {
        // Nothing to tell.
      }
    }
  }
  sessionStorage.removeItem(GUEST_SEAT_KEY);
  app.update();
  app.conn.request({ type: 'list-rooms' }).catch(() => {});
}

// --- routing -----------------------------------------------------------------

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, query] = raw.split('?');
  const parts = path.split('/').filter(Boolean);
  return { parts, query: new URLSearchParams(query || '') };
}

function route() {
  const { parts, query } = parseHash();
  let mod = lobby;
  let params = {};
  let nav = '#/';
  if (parts[0] === 'room' && /^\d+$/.test(parts[1] || '')) {
    mod = table;
    params = { room: Number(parts[1]) };
  } else if (parts[0] === 'invite' && /^[0-9a-f-]{36}$/i.test(parts[1] || '')) {
    mod = { mount: lobby.mountInvite };
    params = { invite: parts[1].toLowerCase() };
  } else if (parts[0] === 'replay' && /^\d+$/.test(parts[1] || '')) {
    mod = replay;
    const seat = query.get('seat');
    params = { game: Number(parts[1]), seat: seat !== null && /^\d+$/.test(seat) ? Number(seat) : null, step: query.get('step'), key: query.get('key') };
    nav = '#/replays';
  } else if (parts[0] === 'replays') {
    mod = replay;
    params = { game: null };
    nav = '#/replays';
  } else if (parts[0] === 'rules') {
    mod = { mount: rules.mountRules };
    params = { preset: parts[1] ? decodeURIComponent(parts[1]) : null };
    nav = '#/rules';
  } else if (parts[0] === 'account') {
    mod = account;
    params = {};
    nav = '#/';
  } else if (parts[0] === 'player' && parts[1]) {
    mod = profile;
    params = { name: decodeURIComponent(parts[1]) };
    nav = '#/standings';
  } else if (parts[0] === 'standings') {
    mod = standings;
    params = { tournament: parts[1] === 'tournament' && /^\d+$/.test(parts[2] || '') ? Number(parts[2]) : null };
    nav = '#/standings';
  }
  const name = mod === lobby ? 'lobby' : mod === table ? 'table' : mod === replay ? 'replay' : mod === standings ? 'standings' : mod === profile ? 'profile' : mod === account ? 'account' : nav === '#/rules' ? 'rules' : 'invite';
  const key = JSON.stringify([name, params]);
  if (app.route === key) return;
  app.route = key;
  app.page?.unmount?.();
  const main = document.getElementById('main');
  app.page = mod.mount(app, params);
  main.replaceChildren(app.page.el);
  for (const a of document.querySelectorAll('.top nav a')) {
    if (a.getAttribute('href') === nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  app.page.update?.();
  if (!app.page.keepFocus) main.focus({ preventScroll: true });
}

// The turn clocks tick without re-rendering the page.
setInterval(() => {
  const now = performance.now();
  for (const el of document.querySelectorAll('[data-ends-at]')) {
    const left = Math.max(0, Math.ceil((Number(el.dataset.endsAt) - now) / 1000));
    el.textContent = `${left} s`;
    el.classList.toggle('low', left <= 5);
  }
}, 250);

app.conn = new Connection({
  token: () => app.token(),
  onFrame,
  onWelcome,
  onStatus: setStatus,
  onClose: (code) => {
    // The server ends a seek with its connection: seek again once back.
    if (app.seek) {
      app.seek = null;
      app.update();
    }
    if (code === 4001) {
      // The stored token is unknown here (a new database): start as a guest.
      app.setToken(null);
      app.toast(say('tb.unknown-name'));
      app.conn.restart();
    } else if (code === 4005) {
      // A newer connection with our token took over: reconnecting would
      // take it back, and the two tabs would fight for the seats.
      setStatus(say('tb.other-tab'));
    } else {
      setStatus(say('tb.disconnected', { code }));
    }
  },
});

// The connection, reachable from the console and from browser tests, which
// close its socket (`capicuaConnection.ws.close()`) to drop the connection
// as a network would; it is the page's own public protocol, nothing more.
window.capicuaConnection = app.conn;

window.addEventListener('hashchange', route);
// Another language: the page mounts again in it (the tables keep their state).
window.addEventListener('capicua:lang', () => {
  app.route = null;
  route();
  renderWho();
});
/**
 * A token an older page kept in this browser's storage, readable by any
 * script: traded once for a session cookie, then forgotten.
 */
async function tradeStoredToken() {
  const old = localStorage.getItem(TOKEN_KEY);
  if (!old) return;
  try {
    const r = await fetch('/api/session', { method: 'POST', headers: { Authorization: `Bearer ${old}` } });
    // Kept only when the server could not be asked: unknown here, it is nobody's.
    if (r.ok || r.status === 401) localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Offline: traded on the next load.
  }
}

tradeStoredToken().finally(() => app.conn.open());
route();
