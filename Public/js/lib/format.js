// Display formatting that never changes a digit: only separators are added.

const NUMBER = /^(-?)(\d+)(?:([.])(\d*))?(e[+-]\d+)?$/;

function separators(locale) {
  try {
    const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
    return {
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    };
  } catch {
    return { group: ',', decimal: '.' };
  }
}

const cache = new Map();

/**
 * Adds locale digit grouping to a calculator display string ("-1234567.50" →
 * "-1,234,567.50"). Only the integer part is grouped; the fraction, a trailing
 * point while typing ("13.") and exponent form ("1.5e+16") stay as they are.
 * Anything that is not a plain number (an error text) is returned unchanged.
 */
export function groupDisplay(display, locale = 'en') {
  if (typeof display !== 'string') return display ?? '';
  const m = NUMBER.exec(display);
  if (!m) return display;
  if (!cache.has(locale)) cache.set(locale, separators(locale));
  const { group, decimal } = cache.get(locale);
  const [, sign, int, point, frac, exp] = m;
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return sign + grouped + (point ? decimal + frac : '') + (exp ?? '');
}

/** Groups an integer (number or digit string) for counts and draw values. */
export function groupInteger(value, locale = 'en') {
  if (typeof value === 'number' && Number.isInteger(value)) return groupDisplay(String(value), locale);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return groupDisplay(value, locale);
  return value === null || value === undefined ? '' : String(value);
}

/** First `n` hex characters of a commitment, for a short fingerprint. */
export function fingerprint(hex, n = 8) {
  return typeof hex === 'string' ? hex.slice(0, n) : '';
}

/** A local clock time for a server timestamp in Unix ms. */
export function clockTime(ms, locale = 'en') {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  try {
    return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(ms));
  } catch {
    return new Date(ms).toLocaleTimeString();
  }
}
