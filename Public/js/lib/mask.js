// Name masking (docs/STAGE.md, "Name masking"): what the screens show of an entrant when the host
// set `mask`. Display only: the chain, the export and verification keep the real values.

/** The draw's mask for this page (`none`, `phones`, `names`); set from the settings by room.js. */
let current = 'none';

export function setMask(mask) {
  current = mask === 'phones' || mask === 'names' ? mask : 'none';
}

export function currentMask() {
  return current;
}

const PHONE = /^\+?[\d][\d\s().-]*$/;
const LETTER = /\p{L}/u;
const segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

/** `text`'s user-perceived characters (a flag, a family emoji, a letter with its accents: one each). */
export function graphemes(text) {
  return segmenter ? Array.from(segmenter.segment(text), (s) => s.segment) : Array.from(text);
}

/** 7–15 digits (with +, spaces, dashes, dots or brackets): the first 3 and last 4 digits kept
 * (from 11 digits; shorter numbers keep 2 and 2), every digit between as `*`. Else null. */
function maskPhone(text) {
  if (!PHONE.test(text)) return null;
  const digits = text.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return null;
  const head = digits.length >= 11 ? 3 : 2;
  const tail = digits.length >= 11 ? 4 : 2;
  return digits.slice(0, head) + '*'.repeat(digits.length - head - tail) + digits.slice(-tail);
}

/** Each word keeps its first character (a grapheme: "Ánh" keeps "Á"); every other one becomes
 * `*`, at least one: 张三 → 张*, 欧阳娜娜 → 欧***, John Doe → J*** D**, Li → L*, 张 → 张*. */
function maskWords(text) {
  return text.split(/(\s+)/).map((part) => {
    if (!part || /^\s+$/.test(part)) return part;
    const chars = graphemes(part);
    return chars[0] + '*'.repeat(Math.max(1, chars.length - 1));
  }).join('');
}

/**
 * `text` as a screen shows it under `mask`: `phones` masks values that look like phone numbers;
 * `names` masks those and every value with a letter (a name); other values (numbers, ids of
 * digits only) stay as they are.
 */
export function maskName(text, mask = current) {
  if (typeof text !== 'string' || mask === 'none' || !text.trim()) return text;
  const trimmed = text.normalize('NFC').trim();
  const phone = maskPhone(trimmed);
  if (phone) return phone;
  if (mask === 'names' && LETTER.test(trimmed)) return maskWords(trimmed);
  return text;
}
