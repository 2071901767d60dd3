// The winner's prize voucher on the phone (issue 45, docs/PROTOCOL.md "Prize hand-over"): the
// code's QR (an SVG the server drew and sent to this phone only, so the code never travels in a
// URL) with the code in text under it, "Show this at the prize table"; once staff hand the prize
// over, "Handed over at 20:14 by Mia", live. A voided winner's voucher says it no longer counts.

import { i18nEvents, t } from './i18n.js';

const el = (tag, attrs = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
};

/** "20:14" in the page's language (the server's time, shown in the phone's time zone). */
export function handoverTime(at) {
  return new Date(at).toLocaleTimeString(document.documentElement.lang || undefined, { hour: '2-digit', minute: '2-digit' });
}

/** Who handed over: the co-host's name, or "the host" for the owner's key. */
export function handoverBy(voucher) {
  return voucher.byId === 'owner' ? t('voucher.byHost') : voucher.by ?? '';
}

export class VoucherCard {
  constructor(room, parent) {
    this.room = room;
    this.root = el('section', { class: 'voucher-list', 'data-vouchers': '', 'aria-live': 'polite' });
    parent.append(this.root);
    this.shown = null;
    room.addEventListener('change', () => this.render());
    i18nEvents.addEventListener('change', () => { this.shown = null; this.render(); });
    this.render();
  }

  get vouchers() {
    const me = this.room.checkin?.me;
    return Array.isArray(me?.vouchers) ? me.vouchers : [];
  }

  render() {
    const vouchers = this.vouchers;
    const key = JSON.stringify(vouchers.map((v) => [v.code, v.state, v.at, v.by]));
    if (key === this.shown) return;
    this.shown = key;
    this.root.replaceChildren(...vouchers.slice().reverse().map((v) => this.card(v)));
    this.root.hidden = vouchers.length === 0;
  }

  card(v) {
    const card = el('article', { class: `card voucher voucher-${v.state}`, 'data-voucher': v.code, 'data-state': v.state });
    const prize = v.prize ? t('voucher.prize', { prize: v.prize, n: v.round }) : t('voucher.round', { n: v.round });
    card.append(el('h2', { class: 'voucher-title' }, t('voucher.title')), el('p', { class: 'voucher-prize' }, prize));
    if (v.state === 'waiting' && typeof v.qr === 'string') {
      const img = el('img', { class: 'voucher-qr', 'data-voucher-qr': '', alt: t('voucher.qr.alt', { code: v.code }) });
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(v.qr)}`;
      card.append(img);
    }
    card.append(el('p', { class: 'voucher-code', 'data-voucher-code': '', translate: 'no' }, v.code));
    let line;
    if (v.state === 'handedOver') line = t('voucher.handedOver', { time: handoverTime(v.at), by: handoverBy(v) });
    else if (v.state === 'void') line = t('voucher.void');
    else line = t('voucher.show');
    card.append(el('p', { class: 'voucher-status', 'data-voucher-status': '' }, line));
    return card;
  }
}
