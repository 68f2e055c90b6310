// Play now: one button that asks the server for a table of people (`seek`),
// the wait with a way out (`cancel-seek`), how many seek each kind of table
// (`GET /api/seeks`), and the seat it finds (`paired`: join, ready, sit).

import { h, replace } from './dom.js';
import { t, errorText } from './i18n.js';

// The last table sought, kept in this browser: the button offers it again.
const SEEK_KEY = 'capicua.seek';

function lastSought() {
  try {
    return JSON.parse(localStorage.getItem(SEEK_KEY) || 'null') || {};
  } catch {
    return {};
  }
}

/** The fewest and most seats a preset of `GET /api/variants` is played by. */
export function seatRange(p) {
  return p?.variant?.players || p?.variant?.seats || { min: 2, max: 4 };
}

/** A wait as people read it: `0:07`, `1:32`. */
function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The frames of Play now, from the app's frame handler: `seeking` (a seek
 * began, or ended elsewhere) and `paired` (a table formed: take the seat).
 */
export async function onFrame(app, f) {
  if (f.type === 'seeking') {
    app.seek = f.preset ? { ...f, since: app.seek?.since ?? performance.now() } : null;
    app.update();
    return;
  }
  if (f.type !== 'paired') return;
  app.seek = null;
  try {
    const joined = await app.ask({ type: 'join', room: f.room });
    const tb = app.table(f.room);
    tb.seat = joined.seat;
    tb.lost = false;
    tb.spectating = false;
    if (app.me?.guest) app.rememberGuestSeat(f.room, joined.seat);
    // The seeker asked to play now: ready at once, no second click.
    await app.ask({ type: 'ready', room: f.room, 'read-hand-ends': true });
    app.announce(t('play.paired', { room: f.room }));
    app.go(`#/room/${f.room}`);
  } catch {
    // `ask` showed why; the lobby is still there to seek again.
    app.update();
  }
}

/** The Play now card of the lobby: `{ el, update, unmount }`. */
export function mount(app) {
  const last = lastSought();
  const preset = h('select', { id: 'p-preset', name: 'preset', 'data-key': 'p-preset' });
  const seats = h('select', { id: 'p-seats', name: 'seats', 'data-key': 'p-seats' });
  const rated = h('input', { id: 'p-rated', type: 'checkbox', 'data-key': 'p-rated', checked: !!last.rated });
  const ratedLabel = h('label', { class: 'inline' }, rated, t('play.rated'));
  const button = h('button', { type: 'submit', class: 'primary big', 'data-key': 'p-go' }, t('play.go'));
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const status = h('div', { role: 'status', 'aria-live': 'polite', class: 'seek-status' });
  const queue = h('div', { class: 'seek-queue' });
  let presets = [];
  let seeks = [];
  const chosen = () => presets.find((p) => p.name === preset.value);
  const fillSeats = (want) => {
    const { min, max } = seatRange(chosen());
    const n = Math.min(max, Math.max(min, Number(want) || min));
    seats.replaceChildren(
      ...Array.from({ length: max - min + 1 }, (_, i) => min + i).map((k) =>
        h('option', { value: k, selected: k === n }, t('lobby.players', { n: k })),
      ),
    );
  };
  app.variants().then((c) => {
    presets = [...c.presets, ...(c['poly-presets'] || [])];
    const pick = presets.some((p) => p.name === last.preset) ? last.preset : 'draw';
    const option = (p) => h('option', { value: p.name, selected: p.name === pick }, p.name);
    const groups = [h('optgroup', { label: t('lobby.group-dominoes') }, c.presets.map(option))];
    if (c['poly-presets']?.length) groups.push(h('optgroup', { label: t('lobby.group-poly') }, c['poly-presets'].map(option)));
    preset.replaceChildren(...groups);
    fillSeats(last.seats);
  });
  preset.addEventListener('change', () => fillSeats(seats.value));

  const form = h(
    'form',
    {
      onsubmit: async (e) => {
        e.preventDefault();
        error.hidden = true;
        const want = { preset: preset.value, seats: Number(seats.value), rated: rated.checked && !app.me?.guest };
        localStorage.setItem(SEEK_KEY, JSON.stringify(want));
        button.disabled = true;
        try {
          const r = await app.conn.request({ type: 'seek', ...want });
          app.seek = { ...r, since: performance.now() };
          poll();
        } catch (err) {
          error.textContent = errorText(err);
          error.hidden = false;
        } finally {
          button.disabled = false;
          app.update();
        }
      },
    },
    h(
      'div',
      { class: 'row' },
      h('label', { class: 'inline' }, t('play.game'), preset),
      h('label', { class: 'inline' }, t('play.players'), seats),
      ratedLabel,
      button,
    ),
  );
  const cancel = h(
    'button',
    {
      'data-key': 'p-cancel',
      onclick: async () => {
        await app.ask({ type: 'cancel-seek' }).catch(() => {});
        app.seek = null;
        poll();
        app.update();
      },
    },
    t('play.cancel'),
  );

  const drawStatus = () => {
    const s = app.seek;
    if (!s) return replace(status);
    const others = Math.max(0, (seeks.find((q) => q.preset === s.preset && q.seats === s.seats && q.rated === s.rated)?.waiting ?? s.waiting) - 1);
    replace(
      status,
      h(
        'p',
        { class: 'seek-wait' },
        h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        t(s.rated ? 'play.seeking-rated' : 'play.seeking', { preset: s.preset, n: s.seats }),
        ' ',
        h('span', { class: 'seek-clock', 'aria-label': t('play.waited-label') }, clock(performance.now() - s.since)),
        ' · ',
        t('play.others', { n: others }),
      ),
      cancel,
    );
  };
  const drawQueue = () => {
    if (!seeks.length) return replace(queue, h('p', { class: 'small muted' }, t('play.nobody')));
    replace(
      queue,
      h('h3', { id: 'seeks-h', class: 'small' }, t('play.queue')),
      h(
        'ul',
        { class: 'small seeklist', 'aria-labelledby': 'seeks-h' },
        seeks.map((q) =>
          h(
            'li',
            {},
            `${q.preset} · ${t('lobby.players', { n: q.seats })}${q.rated ? ` · ${t('lobby.rated')}` : ''}: `,
            h('strong', {}, t('play.waiting', { n: q.waiting })),
          ),
        ),
      ),
    );
  };
  const poll = async () => {
    try {
      const r = await fetch('/api/seeks');
      if (r.ok) seeks = (await r.json()).seeks || [];
    } catch {
      // The next tick asks again.
    }
    drawQueue();
    drawStatus();
  };
  poll();
  const pollTimer = setInterval(poll, 2000);
  const tickTimer = setInterval(drawStatus, 1000);

  const el = h(
    'section',
    { class: 'card playnow', 'aria-labelledby': 'play-h' },
    h('h2', { id: 'play-h' }, t('play.title')),
    h('p', { class: 'muted small' }, t('play.help')),
    form,
    error,
    status,
    queue,
  );
  const update = () => {
    const seeking = !!app.seek;
    form.hidden = seeking;
    // Rated play is for registered names; a guest is told how to get one.
    rated.disabled = !!app.me?.guest;
    if (app.me?.guest) rated.checked = false;
    ratedLabel.title = app.me?.guest ? t('play.rated-guest') : '';
    drawStatus();
  };
  update();
  return {
    el,
    update,
    unmount: () => {
      clearInterval(pollTimer);
      clearInterval(tickTimer);
    },
  };
}
