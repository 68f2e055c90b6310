// Ratings as people read them: the shown rating (1500 to start, `?` while
// provisional) and a signed change, on the leaderboard, the profile and the
// result of a rated match.

/** `1532`, or `1532?` while provisional; `r` is a leaderboard row or a rating move. */
export function shownRating(r) {
  return `${r.after ?? r.rating}${r.provisional ? '?' : ''}`;
}

/** A signed change: `+32`, `−12` (a minus sign), `±0`. */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '\u00b10';
}
