// Small DOM helpers. Hooks are data-* attributes; user text only via textContent.

/** First element matching `selector` under `root` (document by default). */
export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** All elements matching `selector` under `root`, as an array. */
export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

/**
 * Creates an element. `props`: { class, text, attrs: {name: value}, data: {hook: value},
 * on: {event: handler} }. Children are nodes or strings (added as text).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined && props.text !== null) node.textContent = String(props.text);
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(props.data ?? {})) node.dataset[name] = String(value);
  for (const [event, handler] of Object.entries(props.on ?? {})) node.addEventListener(event, handler);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Sets textContent only when it changes (keeps screen readers and layout calm). */
export function setText(node, text) {
  const value = text === null || text === undefined ? '' : String(text);
  if (node && node.textContent !== value) node.textContent = value;
}

/** Shows or hides a node with the `hidden` attribute. */
export function show(node, visible) {
  if (node) node.hidden = !visible;
}

/** Replaces all children of `node`. */
export function replaceChildren(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/** True when keyboard focus is in a text-entry control (shortcuts must not fire there). */
export function isTyping(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target.getAttribute('type') || 'text').toLowerCase();
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
}

/** Copies text to the clipboard; falls back to a hidden textarea on plain HTTP. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall through to the legacy path */ }
  const area = el('textarea', { class: 'visually-hidden', attrs: { readonly: true, 'aria-hidden': 'true' } });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  area.remove();
  return ok;
}

/** Hands `blob` to the browser as a download named `name` (the object URL is freed a second later). */
export function downloadBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a', { attrs: { href: url, download: name } });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Random hex string of `bytes` bytes from crypto.getRandomValues (available on HTTP too). */
export function randomHex(bytes) {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return Array.from(buf, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Sizes `node`'s font so its text fits its box: starts at `max` px and scales
 * down by the measured overflow (never below `min`). With `wrap`, text that
 * can break (names with spaces, CJK) may take several lines when that lets it
 * be larger, and a name too long even at `min` wraps rather than being cut off.
 * Setting a CSSOM property is allowed under the page CSP (inline style
 * attributes are not).
 */
export function fitText(node, { max, min = 10, box = node.parentElement, wrap = false } = {}) {
  if (!node || !box) return;
  node.style.transition = 'none'; // measurements must see the size just set
  node.style.whiteSpace = 'nowrap';
  node.style.overflowWrap = '';
  node.style.wordBreak = '';
  node.style.fontSize = `${max}px`;
  const width = box.clientWidth;
  const height = box.clientHeight;
  if (!width) return;
  const overflow = () => Math.max(node.scrollWidth / width, height ? node.scrollHeight / height : 0);
  let size = max;
  for (let i = 0; i < 4; i++) {
    const over = overflow();
    if (over <= 1) break;
    size = Math.max(min, Math.floor(size / over));
    node.style.fontSize = `${size}px`;
    if (size === min) break;
  }
  const single = overflow() <= 1 ? size : 0;
  if (!wrap || single === max) return;
  // Several lines: the largest size in (single, max] whose wrapped text fits.
  // Break at spaces only: a Chinese name stays whole rather than split between characters.
  node.style.whiteSpace = 'normal';
  node.style.wordBreak = 'keep-all';
  const fits = (s) => { node.style.fontSize = `${s}px`; return overflow() <= 1; };
  let lo = single || min;
  let hi = max;
  if (!single && !fits(min)) {
    // Not even at the smallest size: break inside words rather than cut the name off.
    node.style.overflowWrap = 'anywhere';
    node.style.fontSize = `${min}px`;
    return;
  }
  for (let i = 0; i < 10 && hi - lo > 1; i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid;
  }
  // One very long word ("Wolfeschlegelsteinhausenbergerdorff Hubert") would still shrink the
  // name to a sliver beside its neighbours: rather break that word onto a second line. Never
  // for Chinese, Japanese or Korean text, which breaks between characters.
  if (lo < max * 0.75 && !/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(node.textContent)) {
    node.style.wordBreak = 'normal';
    node.style.overflowWrap = 'anywhere';
    // At most two lines (line-height at most 1.3).
    const fitsTwo = (s) => fits(s) && node.scrollHeight <= s * 2.6;
    let low = lo;
    let high = max;
    for (let i = 0; i < 10 && high - low > 1; i++) {
      const mid = Math.floor((low + high) / 2);
      if (fitsTwo(mid)) low = mid; else high = mid;
    }
    if (low > lo * 1.15) {
      node.style.fontSize = `${low}px`;
      return;
    }
    node.style.wordBreak = 'keep-all';
    node.style.overflowWrap = '';
  }
  if (lo === single) node.style.whiteSpace = 'nowrap';
  node.style.fontSize = `${lo}px`;
}
