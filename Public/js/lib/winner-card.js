// The winner card (issue 39, docs/STAGE.md): every display mode ends on a card that fills the
// stage box: the tier (else the round), the tier's prize picture, and who holds the prize after
// claims and voids (board.js `holders`: an alternate in a no-show's place, "Nobody claimed"),
// up to CARD_AT_MOST of them, each as large as the box allows. It stays until the next Start.

import { el, replaceChildren } from './dom.js';
import { t } from './i18n.js';
import { holderText } from './board.js';
import { mediaUrl } from './prize-media.js';
import { nameSize, showName } from './fitname.js';
import { winnerText } from './room.js';
import { tint } from './books.js';

/** Rounds of up to this many holders end on the card; a larger one hands over to the winners' list. */
export const CARD_AT_MOST = 3;

/** A name's trailing bracket (a staff number that tells two people of one name apart: 张伟（A-001）). */
const SUFFIX = /^(.+?)\s*([（(][^（）()]+[）)])$/u;
/** The suffix's size, as a share of the name's. */
const SUFFIX_SCALE = 0.4;

/** `[name, suffix]`: the suffix shown on a smaller line under the name, so the name stays large. */
export function splitName(text) {
  const match = SUFFIX.exec(text);
  return match ? [match[1], match[2]] : [text, ''];
}

export class WinnerCard {
  constructor(box) {
    this.box = box;
    this.tier = el('p', { class: 'card-tier' });
    this.img = el('img', { class: 'card-picture', attrs: { alt: '' } });
    this.names = el('ol', { class: 'card-names' });
    this.node = el('div', { class: 'winner-card', data: { winnerCard: '' } }, this.tier, this.img, this.names);
    this.node.hidden = true;
    box.append(this.node);
    this.signature = '';
    this.fitted = '';
  }

  /**
   * Shows `held` (values, `null` for "nobody claimed") of `result` (a round's record: its round,
   * prize and tier position), or hides the card when `held` is null.
   */
  show(result, held) {
    if (!held) {
      this.node.hidden = true;
      this.signature = '';
      return;
    }
    const picture = mediaUrl(result.prizeIndex, 'picture');
    const title = result.prize || t('draw.round', { n: result.round });
    const texts = held.map(holderText);
    const signature = `${title}\u0000${picture}\u0000${texts.join('\u0000')}`;
    this.node.hidden = false;
    if (signature !== this.signature) {
      this.signature = signature;
      this.fitted = '';
      this.tier.textContent = title;
      if (picture) { if (this.img.getAttribute('src') !== picture) this.img.src = picture; this.img.hidden = false; } else { this.img.hidden = true; this.img.removeAttribute('src'); }
      replaceChildren(this.names, held.map((value, i) => {
        const [name, suffix] = splitName(texts[i]);
        return el('li', { class: value === null ? 'card-name is-unclaimed' : 'card-name', data: { winner: winnerText(value) } },
          tint(el('span', { class: 'card-name-text', text: name }), value), suffix ? el('span', { class: 'card-id', text: suffix }) : null);
      }));
      this.node.dataset.count = String(held.length);
    }
    this.fit();
  }

  /** Sizes the names to the room the card leaves them (once per content and box size). */
  fit() {
    if (this.node.hidden) return;
    const room = this.names;
    const key = `${this.signature}|${room.clientWidth}x${room.clientHeight}`;
    if (key === this.fitted) return;
    this.fitted = key;
    const rows = Array.from(room.children);
    if (!room.clientWidth || !room.clientHeight) return;
    // Each name is fitted alone; a suffix line under it (a staff number) takes its share of the row.
    const items = rows.map((row) => row.querySelector('.card-name-text'));
    const tall = rows.some((row) => row.querySelector('.card-id'));
    // The largest size at which every name fits its share of the height, on at most two lines.
    const share = { clientWidth: room.clientWidth,
      clientHeight: Math.floor(room.clientHeight / rows.length / (tall ? 1 + SUFFIX_SCALE * 1.1 : 1)) };
    // At most about a quarter of the card's height: a name on one line reads better than a
    // giant one broken in two.
    const max = Math.floor(Math.min(share.clientHeight / 1.15, this.node.clientHeight * 0.26));
    const size = Math.min(...items.map((item) => nameSize(item, share, item.textContent, { max, min: 12 })));
    // One line when that is nearly as large: "Guest 18" on two lines reads worse than smaller on one.
    const oneLine = Math.min(max, ...items.map((item) => {
      item.style.whiteSpace = 'nowrap';
      item.style.fontSize = '100px';
      return Math.floor((share.clientWidth * 0.97 * 100) / Math.max(1, item.scrollWidth));
    }));
    const chosen = oneLine >= size * 0.75 ? oneLine : size;
    if (oneLine >= size * 0.75) {
      for (const item of items) { item.style.whiteSpace = 'nowrap'; item.style.overflowWrap = ''; item.style.fontSize = `${oneLine}px`; }
    } else {
      for (const item of items) showName(item, share, item.textContent, size);
    }
    for (const id of room.querySelectorAll('.card-id')) id.style.fontSize = `${Math.max(12, Math.round(chosen * SUFFIX_SCALE))}px`;
  }

  destroy() { this.node.remove(); }
}
