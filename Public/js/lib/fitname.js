// Fitting a draw's names on a stage (issue 34): a name breaks only between words (never after a
// hyphen inside one), onto two
// lines at most, and a whole roll shows every name at one size, found by measuring the pool's
// widest names once instead of each name as it flies past.

/** Han, kana and Hangul: a name in these scripts is never broken between its characters. */
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
/** How many of the widest whole names, and of the names with the widest word, are tried on the stage. */
const CANDIDATES = 8;
/** Room kept free at the right and left, so a glyph's overhang (an apostrophe, an italic) is never cut. */
const SIDE_MARGIN = 0.97;

/** How many names, picked by length, are measured with the canvas (measuring 100,000 would stall the page). */
const PRESELECT = 200;

/** A name's length as it roughly shows: a Han, kana or Hangul character is about two Latin letters wide. */
function roughWidth(text) {
  return CJK.test(text) ? text.length * 2 : text.length;
}

/** The `count` names of `names` with the highest `score`. */
function highest(names, score, count) {
  if (names.length <= count) return names;
  return names.map((name) => [score(name), name]).sort((a, b) => b[0] - a[0]).slice(0, count).map((pair) => pair[1]);
}

/**
 * The names among `names` that may need the smallest size: the widest ones, and those with the
 * widest word. The longest few hundred (by length, then by longest word) are measured in `font`.
 */
export function widestNames(names, font) {
  const context = document.createElement('canvas').getContext('2d');
  context.font = font;
  const longestWord = (name) => Math.max(...name.split(/\s+/).map(roughWidth));
  const widest = (list, width) => list.map((name) => [width(name), name]).sort((a, b) => b[0] - a[0])
    .slice(0, CANDIDATES).map((pair) => pair[1]);
  const whole = widest(highest(names, roughWidth, PRESELECT), (name) => context.measureText(name).width);
  const words = widest(highest(names.filter((name) => /\s/.test(name.trim())), longestWord, PRESELECT),
    (name) => Math.max(...name.split(/\s+/).map((word) => context.measureText(word).width)));
  return [...new Set([...whole, ...words])];
}

/** Lays `node` out for names: wrapping between words only. */
export function nameStyle(node) {
  node.style.transition = 'none';
  node.style.whiteSpace = 'normal';
  node.style.wordBreak = 'keep-all';
  node.style.overflowWrap = '';
}

/**
 * The largest font size in [min, max] at which `text` in `node` fits `box` on at most two lines,
 * broken only between words; `min` when none does. Leaves `node` showing `text`.
 */
export function nameSize(node, box, text, { max, min }) {
  const width = box.clientWidth * SIDE_MARGIN;
  const height = box.clientHeight;
  if (!width || !height) return min;
  nameStyle(node);
  if (node.textContent !== text) node.textContent = text;
  const lineHeight = parseFloat(getComputedStyle(node).lineHeight) / parseFloat(getComputedStyle(node).fontSize) || 1.2;
  // The text's own width (its longest line), not the node's: a wrapped node is as wide as the box.
  const range = document.createRange();
  range.selectNodeContents(node);
  // Every word on one line: a break after a hyphen ("Papadopoulou-Fitzgerald") is a break inside
  // a word too, which `keep-all` does not prevent; such a size does not fit.
  const wordsWhole = () => {
    const textNode = node.firstChild;
    if (!textNode || textNode.nodeType !== Node.TEXT_NODE) return true;
    let at = 0;
    for (const word of text.split(' ')) {
      if (!word.includes('-')) { at += word.length + 1; continue; }
      const i = text.indexOf(word, at);
      const part = document.createRange();
      part.setStart(textNode, i);
      part.setEnd(textNode, i + word.length);
      if (new Set(Array.from(part.getClientRects()).map((r) => Math.round(r.top))).size > 1) return false;
      at = i + word.length;
    }
    return true;
  };
  const fits = (size) => {
    node.style.fontSize = `${size}px`;
    return node.scrollWidth <= box.clientWidth && range.getBoundingClientRect().width <= width
      && node.scrollHeight <= height && node.scrollHeight <= size * lineHeight * 2.5 && wordsWhole();
  };
  if (fits(max)) return max;
  let lo = min;
  let hi = max;
  for (let i = 0; i < 12 && hi - lo > 1; i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid;
  }
  return lo;
}

/** Shows `text` at `size`; a word too wide even at the smallest size breaks rather than being cut off (never CJK). */
export function showName(node, box, text, size) {
  nameStyle(node);
  if (node.textContent !== text) node.textContent = text;
  node.style.fontSize = `${size}px`;
  if (node.scrollWidth > box.clientWidth && !CJK.test(text)) node.style.overflowWrap = 'anywhere';
}
