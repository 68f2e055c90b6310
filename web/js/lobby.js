// The lobby: who you are, the rooms (kept fresh with `list-rooms` while
// the page is open, and with every `room` frame), and a form to open a room.

import { h, replace } from './dom.js';
import { builder, erroredField } from './rules.js';

/** Hosted bot strengths offered, weakest first (`GET /api/variants` says which exist). */
export const STRENGTHS = [
  ['random', 'Beginner: plays any legal tile'],
  ['bota-gorda', 'Casual: sheds its heaviest tile'],
  ['heuristic', 'Club player: keeps its suits'],
  ['smart', 'Strong: counts tiles'],
  ['pimc', 'Expert: searches possible deals'],
];

/** Hosted bot strengths for tiles with 3, 4 or 6 faces, weakest first. */
export const POLY_STRENGTHS = [
  ['random', 'Beginner: plays any legal tile'],
  ['greedy', 'Casual: scores the most it can now'],
  ['pimc', 'Expert: searches possible deals'],
];

/** The strength options that this server hosts (for a poly room when `poly`). */
export function strengthOptions(catalog, selected, poly = false) {
  const list = poly ? POLY_STRENGTHS : STRENGTHS;
  const have = new Set((poly ? catalog?.['poly-strategies'] : catalog?.strategies) || list.map(([n]) => n));
  return list.filter(([n]) => have.has(n)).map(([n, label]) => h('option', { value: n, selected: n === selected }, label));
}

function identityCard(app) {
  const card = h('section', { class: 'card', 'aria-labelledby': 'who-h' });
  const me = app.me;
  if (!me) {
    replace(card, h('h2', { id: 'who-h' }, 'Connecting…'));
    return card;
  }
  if (!me.guest) {
    replace(
      card,
      h('h2', { id: 'who-h' }, `Signed in as ${me.name}`),
      h('p', { class: 'muted' }, 'This browser keeps your token: after a reload or a dropped connection you get your seats back.'),
      h(
        'button',
        {
          'data-key': 'signout',
          onclick: () => {
            if (!confirm('Forget this name in this browser? Without its token you cannot sign in as it again.')) return;
            app.setToken(null);
            app.conn.restart();
          },
        },
        'Sign out (forget the token)',
      ),
    );
    return card;
  }
  const name = h('input', {
    id: 'reg-name',
    name: 'name',
    autocomplete: 'username',
    maxlength: '32',
    pattern: '[A-Za-z0-9._-]{1,32}',
    required: true,
    'data-key': 'reg-name',
  });
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const r = await app.ask({ type: 'register', name: name.value.trim() });
          app.setToken(r.token);
          app.me = { name: r.name, guest: false, admin: false };
          app.announce(`Registered as ${r.name}.`);
          app.update();
        } catch {
          name.focus();
        }
      },
    },
    h('label', { for: 'reg-name' }, 'Name'),
    name,
    h('button', { type: 'submit', 'data-key': 'register' }, 'Register this name'),
  );
  replace(
    card,
    h('h2', { id: 'who-h' }, `You play as ${me.name}, a guest`),
    h(
      'p',
      { class: 'muted' },
      'Play at once as a guest, or register a name: its secret token stays in this browser, so a reload or a dropped connection gives you your seat back (a guest loses it).',
    ),
    form,
  );
  return card;
}

function seatText(seat) {
  const o = seat.occupant;
  if (!o) return `${seat.seat + 1}: empty`;
  const bits = [];
  if (o.kind === 'hosted-bot') bits.push('bot');
  if (o.kind === 'guest') bits.push('guest');
  if (!o.connected) bits.push('away');
  else if (o.ready) bits.push('ready');
  return `${seat.seat + 1}: ${o.name}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

function roomsCard(app) {
  const rooms = app.rooms.filter((r) => r.status !== 'closed');
  const mine = (r) => {
    const t = app.tables.get(r.id);
    return t && t.seat !== null && !t.lost;
  };
  const rows = rooms.map((r) => {
    const empty = r.seats.some((s) => !s.occupant);
    const actions = [];
    if (r.node) {
      // Hosted by another server of this site: its page there joins or watches it.
      const host = r.node.replace(/^https?:\/\//, '');
      actions.push(
        h('a', { class: 'button', href: `${r.node}/#/room/${r.id}`, 'aria-label': `open room ${r.id} on ${host}` }, `Open on ${host}`),
      );
    } else if (mine(r)) {
      actions.push(h('a', { class: 'button primary', href: `#/room/${r.id}`, 'aria-label': `back to room ${r.id}` }, 'Back to your seat'));
    } else {
      if (r.status === 'waiting' && empty && !(r.rated && app.me?.guest)) {
        actions.push(
          h(
            'button',
            {
              'data-key': `join-${r.id}`,
              'aria-label': `join room ${r.id}`,
              onclick: async () => {
                const reply = await app.ask({ type: 'join', room: r.id });
                const t = app.table(r.id);
                t.seat = reply.seat;
                t.lost = false;
                if (app.me?.guest) app.rememberGuestSeat(r.id, reply.seat);
                app.go(`#/room/${r.id}`);
              },
            },
            'Join',
          ),
        );
      }
      actions.push(h('a', { class: 'button', href: `#/room/${r.id}`, 'aria-label': `watch room ${r.id}` }, 'Watch'));
    }
    return h(
      'tr',
      { 'aria-label': `room ${r.id}` },
      h('td', {}, String(r.id)),
      h('td', {}, r.variant, r.rated ? h('span', { class: 'tag' }, 'rated') : null),
      h('td', {}, h('ul', { class: 'small seatlist' }, r.seats.map((s) => h('li', {}, seatText(s))))),
      h('td', {}, r.status, r.spectators ? h('div', { class: 'small muted' }, `${r.spectators} watching`) : null),
      h('td', {}, `${Math.round(r.time['move-ms'] / 1000)} s a move`),
      h('td', {}, h('div', { class: 'row' }, actions)),
    );
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'rooms-h' },
    h('h2', { id: 'rooms-h' }, 'Rooms'),
    rooms.length
      ? h(
          'table',
          { class: 'list', 'aria-labelledby': 'rooms-h' },
          h(
            'thead',
            {},
            h('tr', {}, ['Room', 'Variant', 'Seats', 'Status', 'Clock', ''].map((c) => h('th', { scope: 'col' }, c))),
          ),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'muted' }, 'No room is open. Create one below.'),
  );
}

function createCard(app) {
  const preset = h('select', { id: 'c-preset', name: 'preset', 'data-key': 'c-preset' });
  const seats = h('select', { id: 'c-seats', name: 'seats', 'data-key': 'c-seats' });
  const secs = h('input', { id: 'c-secs', name: 'seconds', type: 'number', min: '1', max: '3600', value: '30', 'data-key': 'c-secs' });
  const fill = h('select', { id: 'c-fill', name: 'bots', 'data-key': 'c-fill' });
  const button = h('button', { type: 'submit', class: 'primary', 'data-key': 'c-create' }, 'Create and sit down');
  const priv = h('input', { id: 'c-private', type: 'checkbox', 'data-key': 'c-private' });
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
    fill.replaceChildren(h('option', { value: '' }, 'No: I wait for people'), ...strengthOptions(cat, old, isPoly()));
    if (![...fill.options].some((o) => o.value === old)) fill.value = 'random';
  };
  const buildRules = () => {
    const p = presets.find((x) => x.name === preset.value);
    rules = p ? builder(catalog, p) : null;
    rulesBox.replaceChildren(rules ? rules.el : '');
  };
  const fillSeats = () => {
    const p = chosen();
    const { min, max } = p?.variant?.players || p?.variant?.seats || { min: 2, max: 4 };
    const old = Number(seats.value) || max;
    seats.replaceChildren(
      ...Array.from({ length: max - min + 1 }, (_, i) => min + i).map((n) =>
        h('option', { value: n, selected: n === Math.min(max, Math.max(min, old)) }, `${n} players`),
      ),
    );
  };
  app.variants().then((c) => {
    cat = c;
    presets = c.presets;
    polyPresets = c['poly-presets'] || [];
    catalog = c.catalog || [];
    const option = (p) => h('option', { value: p.name, selected: p.name === 'latin' }, p.name);
    const groups = [h('optgroup', { label: 'Dominoes (two faces)' }, presets.map(option))];
    if (polyPresets.length) groups.push(h('optgroup', { label: 'Tiles with 3, 4 or 6 faces' }, polyPresets.map(option)));
    preset.replaceChildren(...groups);
    fillBots();
    fillSeats();
    buildRules();
  });
  preset.addEventListener('change', () => {
    fillBots();
    fillSeats();
    buildRules();
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
          let created;
          try {
            created = await app.conn.request(spec);
          } catch (err) {
            // A refused rule is shown beside its menu; anything else above the button.
            const field = erroredField(err.message);
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
          const t = app.table(room);
          t.seat = joined.seat;
          t.info = created.room;
          t.invite = invite || null;
          if (app.me?.guest) app.rememberGuestSeat(room, joined.seat);
          if (fill.value) {
            t.strength = fill.value;
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
      h('label', { class: 'inline' }, 'Variant', preset),
      h('label', { class: 'inline' }, 'Table', seats),
      h('label', { class: 'inline' }, 'Seconds a move', secs),
      h('label', { class: 'inline' }, 'Fill the other seats with bots', fill),
      h('label', { class: 'inline' }, priv, 'Private room (invite only)'),
      button,
    ),
    h(
      'details',
      {},
      h('summary', { 'aria-label': 'Change the rules' }, 'Change the rules'),
      h('p', { class: 'small muted' }, 'Each menu starts at the preset’s rule; the server checks the combination.'),
      rulesBox,
    ),
    formError,
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'create-h' },
    h('h2', { id: 'create-h' }, 'Open a room'),
    form,
    h('p', { class: 'small muted' }, 'Rules of every preset: the README and GET /api/variants.'),
  );
}

/** The lobby page. */
export function mount(app) {
  const who = h('div');
  const rooms = h('div');
  const el = h('div', {}, h('h1', {}, 'Dominoes for people and bots'), who, rooms, createCard(app));
  let lastMe = null;
  const update = () => {
    const meKey = JSON.stringify(app.me);
    // The identity card holds a form: rebuild it only when who we are changes.
    if (meKey !== lastMe) {
      lastMe = meKey;
      replace(who, identityCard(app));
    }
    replace(rooms, roomsCard(app));
  };
  const ask = () => app.conn.ready && app.conn.request({ type: 'list-rooms' }).catch(() => {});
  ask();
  const timer = setInterval(ask, 2000);
  return { el, update, unmount: () => clearInterval(timer) };
}

/**
 * `#/invite/<uuid>`: joins the private room the invite opens, or watches it
 * when no seat is free (its match in play), then shows it.
 */
export function mountInvite(app, { invite }) {
  const status = h('p', { role: 'status' }, 'Joining the room of this invite…');
  const el = h('div', {}, h('h1', {}, 'An invitation to a private room'), status);
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
      const t = app.table(r.room);
      t.invite = invite;
      if (r.type === 'spectating') {
        t.spectating = true;
        t.seq = 0;
      } else {
        t.seat = r.seat;
        t.lost = false;
        t.spectating = false;
        if (app.me?.guest) app.rememberGuestSeat(r.room, r.seat);
      }
      app.go(`#/room/${r.room}`);
    } catch (e) {
      status.textContent =
        e.code === 'no-such-room'
          ? 'This invite opens no room: the room has closed, or the link is mistyped.'
          : `Cannot join: ${e.message}`;
    }
  };
  return { el, update };
}
