// The page's words: one catalog per language (i18n/en.js, i18n/es.js),
// `t(key, params)` to say one. The language is the visitor's choice (the
// EN/ES switch, kept in this browser), else the browser's own language.
// A key missing from a catalog is a bug a test catches; at run time it
// falls back to English, then to the key itself.

import en from './i18n/en.js';
import es from './i18n/es.js';

const CATALOGS = { en, es };
const LANG_KEY = 'capicua.lang';

/** The languages offered, each with its name in itself. */
export const LANGUAGES = [
  ['en', 'English'],
  ['es', 'Español'],
];

function stored() {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch {
    return null;
  }
}

function fromBrowser() {
  for (const l of navigator.languages?.length ? navigator.languages : [navigator.language || 'en']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (CATALOGS[base]) return base;
  }
  return 'en';
}

let current = CATALOGS[stored()] ? stored() : fromBrowser();

/** The language in use (`en` or `es`). */
export function lang() {
  return current;
}

/**
 * The text of `key` in the page's language, `{name}` replaced by
 * `params.name`. A catalog entry may be a function of the params (for
 * plurals and agreement).
 */
export function t(key, params = {}) {
  const entry = CATALOGS[current][key] ?? en[key];
  if (entry === undefined) return key;
  const text = typeof entry === 'function' ? entry(params) : entry;
  return text.replace(/\{([a-z0-9_-]+)\}/gi, (m, k) => (params[k] === undefined ? m : String(params[k])));
}

/** Whether the catalog has `key` (for texts chosen by a code from the server). */
export function has(key) {
  return CATALOGS[current][key] !== undefined || en[key] !== undefined;
}

/** A list joined for reading: `a, b and c` / `a, b y c`. */
export function joinList(items) {
  if (items.length <= 1) return items.join('');
  return t('list.join', { first: items.slice(0, -1).join(', '), last: items[items.length - 1] });
}

/**
 * An error reply of the server in the player's words: chosen by its
 * `code`, the server's own message kept where it says what only it knows
 * (which rule is at fault).
 */
export function errorText(err) {
  const code = err?.code;
  const detail = err?.serverMessage ?? err?.message ?? '';
  if (code && has(`error.${code}`)) return t(`error.${code}`, { detail });
  return detail || t('error.unknown');
}

/** Writes the words of the page's shell (`data-i18n`, `data-i18n-label`) and the switch's state. */
export function applyShell(root = document) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll('[data-lang]')) el.setAttribute('aria-pressed', String(el.dataset.lang === current));
  if (document.title && root === document) document.title = t(document.body.dataset.title || 'page.title');
}

/** Switches the language, keeps the choice, and tells the page to draw itself again. */
export function setLang(l) {
  if (!CATALOGS[l] || l === current) return;
  current = l;
  try {
    localStorage.setItem(LANG_KEY, l);
  } catch {
    // A browser that keeps nothing still switches for this visit.
  }
  applyShell();
  window.dispatchEvent(new CustomEvent('capicua:lang', { detail: l }));
}

// The shell's switch (EN / ES buttons in the header).
for (const b of document.querySelectorAll('[data-lang]')) b.addEventListener('click', () => setLang(b.dataset.lang));
applyShell();
