// The lobby: who you are, the rooms (kept fresh with `list-rooms` while
// the page is open, and with every `room` frame), and a form to open a room.

import { h, replace } from './dom.js';
import { builder, erroredField, presetDescription } from './rules.js';
import { t, errorText } from './i18n.js';
import * as playNow from './playnow.js';

/** Hosted bot strengths offered, weakest first (`GET /api/variants` says which exist). */
export const STRENGTHS = ['random', 'bota-gorda', 'heuristic', 'smart', 'pimc'];

/** Hosted bot strengths for tiles with 3, 4 or 6 faces, weakest first. */
export const POLY_STRENGTHS = ['random', 'greedy', 'pimc'];

/** The strength options that this server hosts (for a poly room when `poly`). */
export function strengthOptions(catalog, selected, poly = false) {
  const list = poly ? POLY_STRENGTHS : STRENGTHS;
  const have = new Set((poly ? catalog?.['poly-strategies'] : catalog?.strategies) || list);
  return list
    .filter((n) => have.has(n))
    .map((n) => h('option', { value: n, selected: n === selected }, t(`${poly ? 'poly-bot' : 'bot'}.${n}`)));
}

/** A JSON request to the account API (the session cookie goes with it). */
export async function accountRequest(method, url, body, headers = {}) {
  const r = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(reply.code ? errorText(reply) : t('http.status', { status: r.status })), { code: reply.code });
  return reply;
}

/** Signs out of this session (or, `everywhere`, of every one) and goes on as a guest. */
export async function signOut(app, everywhere) {
  try {
    await accountRequest('DELETE', everywhere ? '/api/sessions' : '/api/session');
  } catch {
    // Signed out already: the page goes on as a guest anyway.
  }
  app.setToken(null);
  app.conn.restart();
}

/** A password field: 8 characters to 256 bytes, as the server takes them. */
export function passwordInput(id, autocomplete) {
  return h('input', { id, type: 'password', autocomplete, minlength: '8', maxlength: '256', required: true, 'data-key': id });
}

function identityCard(app) {
  const card = h('section', { class: 'card', 'aria-labelledby': 'who-h' });
  const me = app.me;
  if (!me) {
    replace(card, h('h2', { id: 'who-h' }, t('lobby.connecting')));
    return card;
  }
  if (!me.guest) {
    replace(
      card,
      h('h2', { id: 'who-h' }, t('lobby.signed-in', { name: me.name })),
      h('p', { class: 'muted' }, t('lobby.session-kept')),
      h(
        'div',
        { class: 'row' },
        h('a', { class: 'button', href: '#/account', 'data-key': 'account' }, t('lobby.account')),
        h('button', { 'data-key': 'signout', onclick: () => signOut(app, false) }, t('lobby.signout')),
      ),
    );
    return card;
  }
  const status = h('p', { role: 'alert', class: 'form-error' });
  const name = h('input', { id: 'reg-name', name: 'name', autocomplete: 'username', maxlength: '32', required: true, 'data-key': 'reg-name' });
  const password = passwordInput('reg-pass', 'new-password');
  const register = h(
    'form',
    {
      class: 'row',
      'aria-label': t('lobby.register-form'),
      onsubmit: async (e) => {
        e.preventDefault();
        status.textContent = '';
        try {
          // Over the socket, so the seats taken as a guest become the
          // player's; its token is traded at once for a session cookie the
          // page cannot read, and the password set through it.
          const r = await app.ask({ type: 'register', name: name.value.trim() });
          await accountRequest('POST', '/api/session', undefined, { Authorization: `Bearer ${r.token}` });
          await accountRequest('PUT', '/api/account/password', { password: password.value });
          app.setToken(null);
          app.me = { name: r.name, guest: false, admin: false };
          app.announce(t('lobby.registered', { name: r.name }));
          app.update();
        } catch (err) {
          if (err.code) status.textContent = err.message;
          name.focus();
        }
      },
    },
    h('label', { for: 'reg-name' }, t('lobby.name')),
    name,
    h('label', { for: 'reg-pass' }, t('lobby.password')),
    password,
    h('button', { type: 'submit', 'data-key': 'register' }, t('lobby.register')),
  );
  const inName = h('input', { id: 'in-name', name: 'name', autocomplete: 'username', maxlength: '32', required: true, 'data-key': 'in-name' });
  const inPassword = passwordInput('in-pass', 'current-password');
  const signIn = h(
    'form',
    {
      class: 'row',
      'aria-label': t('lobby.signin-form'),
      onsubmit: async (e) => {
        e.preventDefault();
        status.textContent = '';
        try {
          const r = await accountRequest('POST', '/api/session', { name: inName.value.trim(), password: inPassword.value });
          app.setToken(null);
          app.announce(t('lobby.signed-in', { name: r.name }));
          // The socket opens again as the player: its seats come back.
          app.conn.restart();
        } catch (err) {
          status.textContent = err.message;
          inPassword.select();
        }
      },
    },
    h('label', { for: 'in-name' }, t('lobby.signin-name')),
    inName,
    h('label', { for: 'in-pass' }, t('lobby.signin-password')),
    inPassword,
    h('button', { type: 'submit', 'data-key': 'signin' }, t('lobby.signin')),
  );
  replace(
    card,
    h('h2', { id: 'who-h' }, t('lobby.guest', { name: me.name })),
    h('p', { class: 'muted' }, t('lobby.guest-help')),
    register,
    h('h3', {}, t('lobby.have-name')),
    signIn,
    status,
  );
  return card;
}

function seatText(seat) {
  const o = seat.occupant;
  if (!o) return `${seat.seat + 1}: ${t('lobby.seat-empty')}`;
  const bits = [];
  if (o.kind === 'hosted-bot') bits.push(t('lobby.seat-bot'));
  if (o.kind === 'guest') bits.push(t('lobby.seat-guest'));
  if (!o.connected) bits.push(t('lobby.seat-away'));
  else if (o.ready) bits.push(t('lobby.seat-ready'));
  return `${seat.seat + 1}: ${o.name}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

function roomsCard(app) {
  const rooms = app.rooms.filter((r) => r.status !== 'closed');
  const mine = (r) => {
    const tb = app.tables.get(r.id);
    return tb && tb.seat !== null && !tb.lost;
  };
  const rows = rooms.map((r) => {
    const empty = r.seats.some((s) => !s.occupant);
    const actions = [];
    if (r.node) {
      // Hosted by another server of this site: its page there joins or watches it.
      const host = r.node.replace(/^https?:\/\//, '');
      actions.push(
        h('a', { class: 'button', href: `${r.node}/#/room/${r.id}`, 'aria-label': t('lobby.open-on-label', { room: r.id, host }) }, t('lobby.open-on', { host })),
      );
    } else if (mine(r)) {
      actions.push(h('a', { class: 'button primary', href: `#/room/${r.id}`, 'aria-label': t('lobby.back-label', { room: r.id }) }, t('lobby.back')));
    } else {
      if (r.status === 'waiting' && empty && !(r.rated && app.me?.guest)) {
        actions.push(
          h(
            'button',
            {
              'data-key': `join-${r.id}`,
              'aria-label': t('lobby.join-label', { room: r.id }),
              onclick: async () => {
                const reply = await app.ask({ type: 'join', room: r.id });
                const tb = app.table(r.id);
                tb.seat = reply.seat;
                tb.lost = false;
                if (app.me?.guest) app.rememberGuestSeat(r.id, reply.seat);
                app.go(`#/room/${r.id}`);
              },
            },
            t('lobby.join'),
          ),
        );
      }
      actions.push(h('a', { class: 'button', href: `#/room/${r.id}`, 'aria-label': t('lobby.watch-label', { room: r.id }) }, t('lobby.watch')));
    }
    // Each cell names its column: on a phone the rows are cards, without the head.
    const cell = (head, ...kids) => h('td', { 'data-label': head }, ...kids);
    return h(
      'tr',
      { 'aria-label': t('lobby.room-label', { room: r.id }) },
      cell(t('lobby.col-room'), String(r.id)),
      cell(t('lobby.col-variant'), r.variant, r.rated ? h('span', { class: 'tag' }, t('lobby.rated')) : null),
      cell(t('lobby.col-seats'), h('ul', { class: 'small seatlist' }, r.seats.map((s) => h('li', {}, seatText(s))))),
      cell(
        t('lobby.col-status'),
        t(`room-status.${r.status}`),
        r.spectators ? h('div', { class: 'small muted' }, t('lobby.watching', { n: r.spectators })) : null,
      ),
      cell(t('lobby.col-clock'), t('lobby.secs-a-move', { n: Math.round(r.time['move-ms'] / 1000) })),
      h('td', { class: 'actions' }, h('div', { class: 'row' }, actions)),
    );
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'rooms-h' },
    h('h2', { id: 'rooms-h' }, t('lobby.rooms')),
    rooms.length
      ? h(
          'table',
          { class: 'list cards compact', 'aria-labelledby': 'rooms-h' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [t('lobby.col-room'), t('lobby.col-variant'), t('lobby.col-seats'), t('lobby.col-status'), t('lobby.col-clock'), ''].map((c) =>
                h('th', { scope: 'col' }, c),
              ),
            ),
          ),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'muted' }, t('lobby.no-rooms')),
  );
}

function createCard(app) {
  const preset = h('select', { id: 'c-preset', name: 'preset', 'data-key': 'c-preset' });
  const seats = h('select', { id: 'c-seats', name: 'seats', 'data-key': 'c-seats' });
  const secs = h('input', { id: 'c-secs', name: 'seconds', type: 'number', min: '1', max: '3600', value: '30', 'data-key': 'c-secs' });
  const fill = h('select', { id: 'c-fill', name: 'bots', 'data-key': 'c-fill' });
  const button = h('button', { type: 'submit', class: 'primary', 'data-key': 'c-create' }, t('lobby.create'));
  const priv = h('input', { id: 'c-private', type: 'checkbox', 'data-key': 'c-private' });
  // Rated rooms admit registered players only: a guest's box stays off.
  const rated = h('input', { id: 'c-rated', type: 'checkbox', 'data-key': 'c-rated' });
  let presets = [];
  let catalog = [];
  let rules = null;
  const rulesBox = h('div');
  const formError = h('p', { id: 'c-error', class: 'error', role: 'alert', hidden: true });
  // The rule menus start from the chosen preset each time it changes.
  let polyPresets = [];
  let cat = null;
  const isPoly = () => polyPresets.some((x) => x.name === preset.value);
  const chosen = () => presets.find((x) => x.name === preset.value) || polyPresets.find((x) => x.name === preset.value);
  // Tiles with 3, 4 or 6 faces have their own bots, and no rule menus.
  const fillBots = () => {
    const old = fill.value || 'random';
    fill.replaceChildren(h('option', { value: '' }, t('lobby.no-bots')), ...strengthOptions(cat, old, isPoly()));
    if (![...fill.options].some((o) => o.value === old)) fill.value = 'random';
  };
  // The chosen preset in a line, and the way to its whole rules.
  const about = h('p', { class: 'small preset-about', 'data-key': 'c-about' });
  const describe = () => {
    const p = chosen();
    if (!p) return about.replaceChildren();
    const text = presetDescription(p);
    about.replaceChildren(
      text ? h('span', { class: 'muted' }, text, ' ') : '',
      h('a', { href: `#/rules/${encodeURIComponent(p.name)}` }, t('lobby.rules-of', { name: p.name })),
    );
  };
  const buildRules = () => {
    const p = presets.find((x) => x.name === preset.value);
    rules = p ? builder(catalog, p) : null;
    rulesBox.replaceChildren(rules ? rules.el : '');
  };
  const fillSeats = () => {
    const p = chosen();
    const { min, max } = playNow.seatRange(p);
    const old = Number(seats.value) || max;
    seats.replaceChildren(
      ...Array.from({ length: max - min + 1 }, (_, i) => min + i).map((n) =>
        h('option', { value: n, selected: n === Math.min(max, Math.max(min, old)) }, t('lobby.players', { n })),
      ),
    );
  };
  app.variants().then((c) => {
    cat = c;
    presets = c.presets;
    polyPresets = c['poly-presets'] || [];
    catalog = c.catalog || [];
    const option = (p) => h('option', { value: p.name, selected: p.name === 'latin', title: presetDescription(p) || null }, p.name);
    const groups = [h('optgroup', { label: t('lobby.group-dominoes') }, presets.map(option))];
    if (polyPresets.length) groups.push(h('optgroup', { label: t('lobby.group-poly') }, polyPresets.map(option)));
    preset.replaceChildren(...groups);
    fillBots();
    fillSeats();
    buildRules();
    describe();
  });
  preset.addEventListener('change', () => {
    fillBots();
    fillSeats();
    buildRules();
    describe();
  });
  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        formError.hidden = true;
        rules?.clearErrors();
        try {
          const spec = { type: 'create-room', seats: Number(seats.value) };
          if (rules?.changed()) {
            // Changed rules travel as a full variant, named apart from the preset.
            spec.variant = { ...rules.variant(), name: `${preset.value}-custom` };
          } else {
            spec.preset = preset.value;
          }
          const ms = Math.round(Number(secs.value) * 1000);
          if (ms > 0) spec.time = { 'move-ms': ms, 'bank-ms': 0 };
          if (priv.checked) spec.private = true;
          if (rated.checked && !app.me?.guest) spec.rated = true;
          let created;
          try {
            created = await app.conn.request(spec);
          } catch (err) {
            // A refused rule is shown beside its menu; anything else above the button.
            const field = erroredField(err.serverMessage ?? err.message);
            if (!(field && rules?.showError(field, err.message))) {
              formError.textContent = err.message;
              formError.hidden = false;
            }
            return;
          }
          const room = created.room.id;
          const invite = created.room.invite;
          // A private room is joined by its invite, even by its creator.
          const joined = await app.ask(invite ? { type: 'join', invite } : { type: 'join', room });
          const tb = app.table(room);
          tb.seat = joined.seat;
          tb.info = created.room;
          tb.invite = invite || null;
          // The creator may free a seat before the match.
          tb.creator = true;
          if (app.me?.guest) app.rememberGuestSeat(room, joined.seat);
          if (fill.value) {
            tb.strength = fill.value;
            await app.ask({ type: 'fill-bots', room, strategy: fill.value });
          }
          app.go(`#/room/${room}`);
        } finally {
          button.disabled = false;
        }
      },
    },
    h(
      'div',
      { class: 'row' },
      h('label', { class: 'inline' }, t('lobby.variant'), preset),
      h('label', { class: 'inline' }, t('lobby.table'), seats),
      h('label', { class: 'inline' }, t('lobby.seconds'), secs),
      h('label', { class: 'inline' }, t('lobby.fill'), fill),
      h('label', { class: 'inline' }, priv, t('lobby.private')),
      h('label', { class: 'inline', title: t('play.rated-guest') }, rated, t('lobby.rated-room')),
      button,
    ),
    about,
    h(
      'details',
      {},
      h('summary', { 'aria-label': t('lobby.change-rules') }, t('lobby.change-rules')),
      h('p', { class: 'small muted' }, t('lobby.rules-help')),
      rulesBox,
    ),
    formError,
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'create-h' },
    h('h2', { id: 'create-h' }, t('lobby.open-room')),
    form,
    h('p', { class: 'small' }, h('a', { href: '#/rules' }, t('lobby.all-rules'))),
  );
}

/** The lobby page. */
export function mount(app) {
  const who = h('div');
  const rooms = h('div');
  const play = playNow.mount(app);
  const create = createCard(app);
  const el = h('div', { class: 'lobby' }, h('h1', {}, t('lobby.title')), play.el, who, rooms, create);
  const ratedBox = create.querySelector('#c-rated');
  let lastMe = null;
  const update = () => {
    const meKey = JSON.stringify(app.me);
    // The identity card holds a form: rebuild it only when who we are changes.
    if (meKey !== lastMe) {
      lastMe = meKey;
      replace(who, identityCard(app));
    }
    replace(rooms, roomsCard(app));
    play.update();
    ratedBox.disabled = !app.me || app.me.guest;
    if (ratedBox.disabled) ratedBox.checked = false;
  };
  const ask = () => app.conn.ready && app.conn.request({ type: 'list-rooms' }).catch(() => {});
  ask();
  const timer = setInterval(ask, 2000);
  return {
    el,
    update,
    unmount: () => {
      clearInterval(timer);
      play.unmount();
    },
  };
}

/**
 * `#/invite/<uuid>`: joins the private room the invite opens, or watches it
 * when no seat is free (its match in play), then shows it.
 */
export function mountInvite(app, { invite }) {
  const status = h('p', { role: 'status' }, t('invite.joining'));
  const el = h('div', {}, h('h1', {}, t('invite.title')), status);
  let started = false;
  const update = async () => {
    if (started || !app.conn.ready) return;
    started = true;
    try {
      let r;
      try {
        r = await app.conn.request({ type: 'join', invite });
      } catch (e) {
        if (e.code !== 'seat-taken' && e.code !== 'game-in-progress') throw e;
        r = await app.conn.request({ type: 'spectate', invite });
      }
      const tb = app.table(r.room);
      tb.invite = invite;
      if (r.type === 'spectating') {
        tb.spectating = true;
        tb.seq = 0;
      } else {
        tb.seat = r.seat;
        tb.lost = false;
        tb.spectating = false;
        if (app.me?.guest) app.rememberGuestSeat(r.room, r.seat);
      }
      app.go(`#/room/${r.room}`);
    } catch (e) {
      status.textContent = e.code === 'no-such-room' ? t('invite.no-room') : t('invite.cannot', { reason: errorText(e) });
    }
  };
  return { el, update };
}
