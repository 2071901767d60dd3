// Owns the certificate page's DOM.

import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { locale, t } from '../lib/i18n.js';
import { valueText } from '../lib/board.js';

export class CertificateView {
  constructor(root = document) {
    this.root = root;
    this.n = {};
    for (const hook of ['title', 'prize', 'missing', 'winners', 'voided', 'time', 'commitment', 'seed', 'entropy', 'hash', 'algorithm', 'qr', 'verify', 'back', 'print', 'png']) {
      this.n[hook] = $(`[data-${hook}]`, root);
    }
    this.n.qr.addEventListener('load', () => show(this.n.qr, true));
  }

  bindPrint(handler) { this.n.print.addEventListener('click', handler); }

  bindPng(handler) { this.n.png.addEventListener('click', handler); }

  /** Hands `blob` to the browser as `round-<n>.png`; the link stays on the button
   * (`data-url`) until the next one. */
  download(blob, round) {
    if (this.n.png.dataset.url) URL.revokeObjectURL(this.n.png.dataset.url);
    const url = URL.createObjectURL(blob);
    this.n.png.dataset.url = url;
    this.n.png.dataset.file = `round-${round}.png`;
    el('a', { attrs: { href: url, download: `round-${round}.png` } }).click();
  }

  render(state) {
    const n = this.n;
    document.title = t('cert.page', { code: state.code, n: state.round });
    n.back.href = `/draw/${encodeURIComponent(state.code)}`;
    setText(n.title, t('cert.title', { code: state.code, n: state.round }));
    show(n.missing, state.status === 'missing' || state.status === 'error');
    setText(n.missing, state.status === 'missing' ? t('cert.missing') : state.status === 'error' ? t('cert.error') : '');
    const record = state.record;
    setText(n.prize, record?.prize ?? '');
    replaceChildren(n.winners, state.winners.map((w) => el('li', { text: valueText(w) })));
    const voided = state.voids.map((v) => `${valueText(v.winner)} (${v.reason})`);
    setText(n.voided, voided.length ? t('screen.voided', { list: voided.join(', ') }) : '');
    show(n.voided, voided.length > 0);
    const at = record ? new Date(record.at) : null;
    setText(n.time, at ? at.toLocaleString(locale(), { dateStyle: 'long', timeStyle: 'medium' }) : '');
    setText(n.commitment, record?.commitment ?? '');
    setText(n.seed, record?.seed ?? '');
    setText(n.entropy, record?.entropy ?? '');
    setText(n.hash, record?.hash ?? '');
    setText(n.algorithm, record?.algorithm ?? '');
    if (record && !n.qr.dataset.for) {
      // The QR code opens this page, which rechecks the round itself.
      const url = `${location.origin}${location.pathname}#verify`;
      n.qr.dataset.for = url;
      n.qr.alt = t('cert.qr');
      n.qr.src = `/api/qr?text=${encodeURIComponent(url)}`;
    }
    n.png.disabled = !record;
    const v = state.verification;
    n.verify.dataset.state = record ? v.state : '';
    setText(n.verify, !record ? '' : v.state === 'ok' ? t('cert.verified') : v.state === 'fail' ? t('cert.failed', { reason: v.reason ?? '' }) : t('cert.checking'));
  }
}
