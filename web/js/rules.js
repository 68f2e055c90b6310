// The variant builder: a preset's rules as menus built from the rule
// catalog (`GET /api/variants`), one menu per rule field the preset sets,
// each option's description beside it and its parameters as inputs. The
// server is the judge of a combination: its error names the field, and the
// message is shown beside that field's menu.

import { h } from './dom.js';

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
      options.map((o) => h('option', { value: o.option, selected: o.option === chosen.option }, o.name)),
    );
    const render = () => {
      const s = state.get(field);
      const opt = options.find((o) => o.option === s.option);
      desc.textContent = opt.description;
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
    changed: () => JSON.stringify(variant()) !== JSON.stringify(base),
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

/** The rule field a server error names (`variant stuck.when-unable: ...`), or null. */
export function erroredField(message) {
  const m = /^variant ([a-z][a-z0-9.-]*): /.exec(message || '');
  return m ? m[1] : null;
}
