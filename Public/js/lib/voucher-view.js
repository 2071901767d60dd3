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
    // Codes whose QR the guest opened by tapping a compact card.
    this.opened = new Set();
    const open = (event) => {
      const card = event.target.closest('[data-voucher][data-compact][data-state="waiting"]');
      if (!card || (event.type === 'keydown' && event.key !== 'Enter' && event.key !== ' ')) return;
      event.preventDefault();
      this.opened.add(card.dataset.voucher);
      this.shown = null;
      this.render();
    };
    this.root.addEventListener('click', open);
    this.root.addEventListener('keydown', open);
    room.addEventListener('change', () => this.render());
    i18nEvents.addEventListener('change', () => { this.shown = null; this.render(); });
    this.render();
  }

  get vouchers() {
    const me = this.room.checkin?.me;
    return Array.isArray(me?.vouchers) ? me.vouchers : [];
  }

  /**
   * Whether `v`'s QR is shown in full: while its round is the one on the stage (revealed, nothing
   * rolling) or the guest tapped it open. A voucher of an earlier round stays a compact card (its
   * code still readable), so the stage of the round drawn now is not pushed off the phone's screen
   * (the event matrix's phones read the stage's crown under it).
   */
  isOpen(v) {
    const phase = this.room.phase;
    const onStage = phase !== 'rolling' && phase !== 'stopping' && this.room.lastReveal?.round === v.round;
    return onStage || this.opened.has(v.code);
  }

  render() {
    const vouchers = this.vouchers;
    const key = JSON.stringify(vouchers.map((v) => [v.code, v.state, v.at, v.by, this.isOpen(v)]));
    if (key === this.shown) return;
    this.shown = key;
    this.root.replaceChildren(...vouchers.slice().reverse().map((v) => this.card(v)));
    this.root.hidden = vouchers.length === 0;
  }

  card(v) {
    const card = el('article', { class: `card voucher voucher-${v.state}`, 'data-voucher': v.code, 'data-state': v.state });
    const prize = v.prize ? t('voucher.prize', { prize: v.prize, n: v.round }) : t('voucher.round', { n: v.round });
    card.append(el('h2', { class: 'voucher-title' }, t('voucher.title')), el('p', { class: 'voucher-prize' }, prize));
    const open = this.isOpen(v);
    // Compact (one small card): a voucher handed over or void (nothing left to show at the table),
    // or one of an earlier round, which a tap opens.
    if (v.state !== 'waiting' || !open) card.dataset.compact = '';
    if (v.state === 'waiting' && !open) {
      card.setAttribute('role', 'button');
      card.setAttribute('tabindex', '0');
      card.setAttribute('aria-expanded', 'false');
    }
    if (v.state === 'waiting' && open && typeof v.qr === 'string') {
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
