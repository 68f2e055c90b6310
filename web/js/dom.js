// Small DOM helpers: elements from tag, attributes and children, without a
// framework (the page has no build step).

import { joinList } from './i18n.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(el, attrs, kids, isSvg) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2).toLowerCase(), v);
    } else if (k === 'class' && !isSvg) {
      el.className = v;
    } else if (k === 'text') {
      el.textContent = v;
    } else if (k === 'value' && !isSvg) {
      el.value = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

/** An HTML element: `h('button', {onclick}, 'Play')`. */
export function h(tag, attrs, ...kids) {
  return fill(document.createElement(tag), attrs, kids, false);
}

/** An SVG element. */
export function s(tag, attrs, ...kids) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, kids, true);
}

/** A tile's name as people say it, high face first: `6-4`. */
export function tileName(tile) {
  const [a, b] = tile;
  return `${Math.max(a, b)}-${Math.min(a, b)}`;
}

/** Whether two tiles are the same tile (faces in either order). */
export function sameTile(x, y) {
  return (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);
}

/** Replaces an element's children. */
export function replace(el, ...kids) {
  el.replaceChildren();
  fill(el, {}, kids, false);
}

/** A list joined for reading aloud: `a, b and c` (in the page's language). */
export function joinWords(items) {
  return joinList(items);
}

/**
 * Arrow keys, Home and End move the focus among the tile buttons of `row`
 * (a toolbar with one tab stop); whether `e` was one of those keys.
 */
export function rovingTiles(e, row) {
  const keys = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'];
  if (!keys.includes(e.key)) return false;
  e.preventDefault();
  const all = [...row.querySelectorAll('button.tile')];
  let i = all.indexOf(document.activeElement);
  if (e.key === 'Home') i = 0;
  else if (e.key === 'End') i = all.length - 1;
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') i = (i - 1 + all.length) % all.length;
  else i = (i + 1) % all.length;
  for (const b of all) b.tabIndex = -1;
  all[i].tabIndex = 0;
  all[i].focus();
  return true;
}
