// Digits past the display: which window of a long expansion the display shows.
// Pure functions (no DOM), so the rules are tested on their own.

/** Farthest digit after the point the server gives (docs/PROTOCOL.md, "Digits"). */
export const MAX_POSITION = 20000;
/** Digits asked for per request. */
export const CHUNK = 100;

/**
 * The text for a display `width` characters wide whose right edge is digit `end` after the
 * point: the whole number when it fits; else `…` and the last digits, with the point when
 * it is still in view. When the point has left the view, `text` is the run of digits alone and
 * `from`/`to` say which digits after the point they are (the page writes "digits 15–25:"
 * before them). An exponent (`…93238462643e-24`, Android's way) read as 10⁻²⁴ (issue 39, item 11).
 */
export function digitWindow({ negative, integer, fraction }, end, width) {
  const shown = fraction.slice(0, end);
  const full = `${negative ? '-' : ''}${integer}.${shown}`;
  if (full.length <= width) return { text: full, from: null, to: null };
  const point = full.length - shown.length - 1;
  const start = full.length - (width - 1);
  if (start <= point) return { text: `…${full.slice(start)}`, from: null, to: null };
  // Room for the position label, set smaller than the digits (about half their width a character).
  const label = Math.ceil((`${end}`.length * 2 + 9) / 2);
  const keep = Math.max(1, width - label);
  return { text: shown.slice(-keep), from: end - Math.min(keep, shown.length) + 1, to: end };
}

/** `0.(142857)` for a repeating expansion whose period is known and short, else null. */
export function repeatingText({ negative, integer, fraction, repeat }) {
  if (!repeat || repeat.length > 60) return null;
  const head = repeat.start - 1;
  if (fraction.length < head + repeat.length) return null;
  const period = fraction.slice(head, head + repeat.length);
  return `${negative ? '-' : ''}${integer}.${fraction.slice(0, head)}(${period})`;
}

/** How many digits after the point a display string shows (`3.14` → 2, `1.5e-12` → 0). */
export function shownDecimals(display) {
  const m = /^-?\d+\.(\d+)$/.exec(display ?? '');
  return m ? m[1].length : 0;
}
