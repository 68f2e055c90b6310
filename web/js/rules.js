// The variant builder: a preset's rules as menus built from the rule
// catalog (`GET /api/variants`), one menu per rule field the preset sets,
// each option's description beside it and its parameters as inputs. The
// server is the judge of a combination: its error names the field, and the
// message is shown beside that field's menu.

import { h } from './dom.js';
import { t, has, lang } from './i18n.js';

/** The value at a dotted path of a variant (`undefined` when absent). */
function getPath(obj, path) {
  return path.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj);
}

function setPath(obj, path, value) {
  const keys = path.split('.');
  const last = keys.pop();
  const parent = keys.reduce((o, k) => o[k], obj);
  parent[last] = value;
}

/** Whether two JSON values are equal, whatever the order of their keys. */
export function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
}

/** A catalog default (written as in a variant file) as a JSON value. */
function parseDefault(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Which option a field's value is, and its parameter values. Unit options
 * are written as their name, one parameter as `{option: value}`, several as
 * `{option: {name: value, ...}}`. */
function decode(value, options) {
  if (typeof value === 'string') return { option: value, params: {} };
  if (value && typeof value === 'object') {
    const [option] = Object.keys(value);
    const opt = options.find((o) => o.option === option);
    if (!opt) return { option, params: {} };
    if (opt.params.length === 1) return { option, params: { [opt.params[0].name]: value[option] } };
    return { option, params: { ...value[option] } };
  }
  return { option: null, params: {} };
}

function encode(opt, params) {
  if (!opt.params.length) return opt.option;
  if (opt.params.length === 1) return { [opt.option]: params[opt.params[0].name] };
  return { [opt.option]: Object.fromEntries(opt.params.map((p) => [p.name, params[p.name]])) };
}

/** The id used for a field's controls (`deal.rest` -> `rule-deal-rest`). */
export function fieldId(field) {
  return `rule-${field.replace(/[^a-z0-9]+/gi, '-')}`;
}

function paramInput(field, param, value, onchange) {
  const id = `${fieldId(field)}-${param.name}`;
  const kind = param.kind;
  let input;
  let read;
  if (kind.type === 'integer') {
    input = h('input', { id, type: 'number', min: kind.min, max: kind.max, step: '1', value: String(value) });
    read = () => Number(input.value);
  } else if (kind.type === 'bool') {
    input = h('input', { id, type: 'checkbox', checked: value === true });
    read = () => input.checked;
  } else if (kind.type === 'choice') {
    input = h('select', { id }, kind.options.map((o) => h('option', { value: o, selected: o === value }, o)));
    read = () => input.value;
  } else {
    // Tiles, lists of tiles, fractions and composed rules: written as JSON.
    input = h('input', { id, type: 'text', value: JSON.stringify(value) });
    read = () => {
      try {
        return JSON.parse(input.value);
      } catch {
        return input.value;
      }
    };
  }
  input.addEventListener('change', () => onchange(read()));
  return h('label', { class: 'inline small' }, `${field} ${param.name}`, input);
}

/**
 * A builder for `variant` (a preset's full variant): `el` holds the menus,
 * `variant()` the variant as chosen, `changed()` whether it differs from
 * the preset, `showError(field, message)` shows a server error beside a
 * field (false when no such field is shown), `clearErrors()`.
 */
export function builder(catalog, preset) {
  const fields = [];
  for (const o of catalog) {
    if (!fields.includes(o.field)) fields.push(o.field);
  }
  const base = preset.variant;
  const state = new Map();
  const errors = new Map();
  const rows = [];
  for (const field of fields) {
    const current = getPath(base, field);
    // Fields the preset leaves unset (optional rules, the poly games' own)
    // are not offered: the menus change a preset, they do not build a game
    // of another family.
    if (current === undefined || current === null) continue;
    const options = catalog.filter((o) => o.field === field);
    const chosen = decode(current, options);
    if (!options.some((o) => o.option === chosen.option)) continue;
    state.set(field, chosen);
    const id = fieldId(field);
    const desc = h('p', { id: `${id}-desc`, class: 'small muted' });
    const err = h('p', { id: `${id}-err`, class: 'small error', role: 'alert', hidden: true });
    errors.set(field, err);
    const params = h('div', { class: 'row' });
    const select = h(
      'select',
      { id, 'aria-describedby': `${id}-desc ${id}-err` },
      options.map((o) => h('option', { value: o.option, selected: o.option === chosen.option }, ruleWords(o).name)),
    );
    const render = () => {
      const s = state.get(field);
      const opt = options.find((o) => o.option === s.option);
      desc.textContent = ruleWords(opt).description;
      params.replaceChildren(
        ...opt.params.map((p) => {
          if (!(p.name in s.params)) s.params[p.name] = parseDefault(p.default);
          return paramInput(field, p, s.params[p.name], (v) => {
            s.params[p.name] = v;
          });
        }),
      );
    };
    select.addEventListener('change', () => {
      state.set(field, { option: select.value, params: {} });
      err.hidden = true;
      render();
    });
    render();
    rows.push(h('div', { class: 'rule' }, h('label', { for: id }, field), select, desc, params, err));
  }
  const variant = () => {
    const v = structuredClone(base);
    for (const [field, s] of state) {
      const opt = catalog.find((o) => o.field === field && o.option === s.option);
      setPath(v, field, encode(opt, s.params));
    }
    return v;
  };
  return {
    el: h('div', { class: 'rules' }, rows),
    variant,
    // By value: the menus rebuild objects whose keys come out in another
    // order than the preset's, which is still the same rule.
    changed: () => !sameValue(variant(), base),
    showError(field, message) {
      const err = errors.get(field);
      if (!err) return false;
      err.textContent = message;
      err.hidden = false;
      return true;
    },
    clearErrors() {
      for (const e of errors.values()) {
        e.hidden = true;
        e.textContent = '';
      }
    },
  };
}

/**
 * A rule option's name and line in the page's language: the catalog's
 * (`rule.<id>`) where it has them, else the server's own words (which are
 * English, and the English page always shows them).
 */
function ruleWords(o) {
  const key = `rule.${o.id ?? `${o.field}.${o.option}`}`;
  const ours = lang() !== 'en' && has(key);
  return {
    name: ours ? t(key) : o.name,
    description: ours && has(`${key}.desc`) ? t(`${key}.desc`) : o.description,
  };
}

/** The rule field a server error names (`variant stuck.when-unable: ...`), or null. */
export function erroredField(message) {
  const m = /^variant ([a-z][a-z0-9.-]*): /.exec(message || '');
  return m ? m[1] : null;
}

/**
 * A preset's one line: the page's own words for it in this language where
 * it has them, else the server's (`description` in `GET /api/variants`).
 */
export function presetDescription(p) {
  const key = `preset-desc.${p.name}`;
  if (has(key) && lang() !== 'en') return t(key);
  return p.description || (has(key) ? t(key) : '');
}

/** The domino words players use, explained on the rules page. */
const WORDS = ['capicua', 'tranque', 'pase', 'data', 'mano'];

/** A preset's rules in words: one line per rule field it sets. */
function ruleLines(catalog, preset) {
  const lines = [];
  const seen = new Set();
  for (const o of catalog) {
    if (seen.has(o.field)) continue;
    const value = getPath(preset.variant, o.field);
    if (value === undefined || value === null) continue;
    const options = catalog.filter((x) => x.field === o.field);
    const { option, params } = decode(value, options);
    const opt = options.find((x) => x.option === option);
    if (!opt) continue;
    seen.add(o.field);
    const args = Object.entries(params)
      .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(', ');
    lines.push(
      h(
        'li',
        {},
        h('strong', {}, ruleWords(opt).name),
        args ? ` (${args})` : '',
        ruleWords(opt).description ? `: ${ruleWords(opt).description}` : '',
      ),
    );
  }
  return lines;
}

/**
 * The rules pages: `#/rules` lists every preset with its one line and the
 * words of the table; `#/rules/<preset>` is one preset's rules, which the
 * lobby and the table link to.
 */
export function mountRules(app, { preset: name }) {
  const el = h('div', { class: 'rules-page' }, h('h1', {}, t('rules.title')), h('p', { class: 'muted' }, t('shell.loading')));
  app.variants().then((cat) => {
    const all = [...(cat.presets || []), ...(cat['poly-presets'] || [])];
    const words = h(
      'section',
      { class: 'card', 'aria-labelledby': 'words-h' },
      h('h2', { id: 'words-h' }, t('rules.words')),
      h(
        'dl',
        { class: 'words' },
        WORDS.map((w) => [h('dt', { lang: 'es' }, t(`word.${w}`)), h('dd', {}, t(`word.${w}.means`))]),
      ),
    );
    if (name === null) {
      el.replaceChildren(
        h('h1', {}, t('rules.title')),
        h('p', {}, t('rules.intro')),
        h(
          'section',
          { class: 'card', 'aria-labelledby': 'presets-h' },
          h('h2', { id: 'presets-h' }, t('rules.presets')),
          h(
            'ul',
            { class: 'presets' },
            all.map((p) =>
              h(
                'li',
                {},
                h('a', { href: `#/rules/${encodeURIComponent(p.name)}` }, p.name),
                presetDescription(p) ? `: ${presetDescription(p)}` : '',
              ),
            ),
          ),
        ),
        words,
      );
      return;
    }
    const p = all.find((x) => x.name === name);
    if (!p) {
      el.replaceChildren(
        h('h1', {}, t('rules.title')),
        h('p', { role: 'alert' }, t('rules.unknown', { name })),
        h('p', {}, h('a', { href: '#/rules' }, t('rules.all'))),
      );
      return;
    }
    const v = p.variant || {};
    const seats = v.players || v.seats;
    const facts = [];
    if (seats) facts.push(seats.min === seats.max ? t('rules.players-n', { n: seats.min }) : t('rules.players-range', { min: seats.min, max: seats.max }));
    if (v.tiles?.['max-pip'] !== undefined) facts.push(t('rules.double', { n: v.tiles['max-pip'] }));
    const lines = ruleLines(cat.catalog || [], p);
    el.replaceChildren(
      h('h1', {}, t('rules.of', { name: p.name })),
      presetDescription(p) ? h('p', { class: 'lead', 'data-key': 'rules-description' }, presetDescription(p)) : null,
      facts.length ? h('p', {}, facts.join(' · ')) : null,
      p.sources ? h('p', { class: 'small', 'data-key': 'rules-sources' }, h('strong', {}, `${t('rules.sources')} `), p.sources) : null,
      lines.length
        ? h(
            'section',
            { class: 'card', 'aria-labelledby': 'rule-list-h' },
            h('h2', { id: 'rule-list-h' }, t('rules.how')),
            h('p', { class: 'small muted' }, t('rules.how-help')),
            h('ul', { class: 'rule-lines' }, lines),
          )
        : null,
      words,
      h('p', {}, h('a', { href: '#/rules' }, t('rules.all')), ' · ', h('a', { href: '#/' }, t('rules.play'))),
    );
  });
  return { el };
}
