// Owns the certificate page's DOM.

import { showRehearsal } from '../lib/rehearsal-mark.js';
import { tint } from '../lib/books.js';
import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { locale, t } from '../lib/i18n.js';
import { holderText, valueText } from '../lib/board.js';
import { reasonText } from '../lib/claims.js';
import { signoffPeople } from '../lib/signoff-view.js';

export class CertificateView {
  constructor(root = document) {
    this.root = root;
    this.n = {};
    for (const hook of ['title', 'prize', 'missing', 'lastIn', 'winnersHeading', 'winners', 'voided', 'time', 'commitment', 'seed', 'entropy', 'hash', 'algorithm',
      'software', 'softwareLabel', 'signature', 'signatureLabel', 'timestamp', 'timestampLabel', 'notBefore', 'notBeforeLabel', 'signoffs', 'signoffsLabel', 'qr', 'verify', 'back', 'print', 'png']) {
      this.n[hook] = $(`[data-${hook.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`, root);
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
    // The event's title when the host gave one (the screen's branding), else the draw's code.
    const title = state.title ? t('cert.title.event', { title: state.title, n: state.round }) : t('cert.title', { code: state.code, n: state.round });
    document.title = state.title ? `${title} · Tombola` : t('cert.page', { code: state.code, n: state.round });
    n.back.href = `/draw/${encodeURIComponent(state.code)}`;
    setText(n.title, title);
    show(n.missing, state.status === 'missing' || state.status === 'error');
    setText(n.missing, state.status === 'missing' ? t('cert.missing') : state.status === 'error' ? t('cert.error') : '');
    const record = state.record;
    // A rehearsal round (issue 45): the band and the watermark, on screen and on paper.
    showRehearsal(record?.rehearsal === true);
    setText(n.prize, record?.prize ?? '');
    // A reverse raffle's round (issue 45, FAIRNESS §21) draws people *out*: its list is who left,
    // never "Winners"; the round that leaves one names the winner, the last one in, above it.
    const reverse = record?.reverse === true;
    setText(n.winnersHeading, reverse ? t('reverse.outHeading', { n: state.round }) : t('cert.winners'));
    const lastIn = reverse && record.lastIn != null ? record.lastIn : null;
    setText(n.lastIn, lastIn === null ? '' : t('reverse.last', { value: holderText(lastIn) }));
    show(n.lastIn, lastIn !== null);
    replaceChildren(n.winners, state.winners.map((w) => tint(el('li', { class: w === null ? 'is-unclaimed' : null, text: holderText(w) }), w)));
    // One line per void and pass, in the record's order: who lost the prize, why, and to whom.
    const lines = state.changes.map((r) => {
      const args = { value: valueText(r.winner), reason: reasonText(r.reason) };
      if (r.kind === 'void') return t('cert.voided', args);
      return r.alternate != null ? t('cert.passed', { ...args, to: valueText(r.alternate) }) : t('cert.passed.none', args);
    });
    replaceChildren(n.voided, lines.map((line) => el('span', { class: 'cert-change', text: line })));
    show(n.voided, lines.length > 0);
    const at = record ? new Date(record.at) : null;
    setText(n.time, at ? at.toLocaleString(locale(), { dateStyle: 'long', timeStyle: 'medium' }) : '');
    setText(n.commitment, record?.commitment ?? '');
    setText(n.seed, record?.seed ?? '');
    setText(n.entropy, record?.entropy ?? '');
    setText(n.hash, record?.hash ?? '');
    setText(n.algorithm, record?.algorithm ?? '');
    // The program that wrote the round's commitment (issue #47): release, commit, binary SHA-256.
    const software = state.software;
    setText(n.software, software ? t('cert.software.value', { version: software.version, commit: software.commit, sha256: software.sha256 }) : '');
    show(n.software, Boolean(software));
    show(n.softwareLabel, Boolean(software));
    // The fingerprint of the key that signed the round's record, in groups of four (as the banner prints it).
    setText(n.signature, state.signedBy ? state.signedBy.match(/.{1,4}/g).join(' ') : '');
    show(n.signature, Boolean(state.signedBy));
    show(n.signatureLabel, Boolean(state.signedBy));
    // Outside time: the TSA's time (GeneralizedTime, UTC) and its address; a sealed round's drand round.
    const stamp = state.timeStamp;
    const g = stamp?.genTime.match(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/);
    const when = (ms) => new Date(ms).toLocaleString(locale(), { dateStyle: 'long', timeStyle: 'medium' });
    setText(n.timestamp, g ? `${when(Date.UTC(+g[1], g[2] - 1, +g[3], +g[4], +g[5], +g[6]))} · ${stamp.tsa}` : '');
    show(n.timestamp, Boolean(g));
    show(n.timestampLabel, Boolean(g));
    const notBefore = state.notBefore;
    setText(n.notBefore, notBefore ? t('cert.notbefore.value', { round: notBefore.round, time: when(notBefore.at) }) : '');
    show(n.notBefore, Boolean(notBefore));
    show(n.notBeforeLabel, Boolean(notBefore));
    // Who witnessed the lock and the result (issue #41): "Ann (lock ✓, result ✓, own key)".
    const witnessed = signoffPeople(state.signoffs, state.round);
    setText(n.signoffs, witnessed);
    show(n.signoffs, witnessed !== '');
    show(n.signoffsLabel, witnessed !== '');
    if (record && !n.qr.dataset.for) {
      // The QR code opens this page, which rechecks the round itself.
      // On the origin the screen's QR codes use (the LAN address), not this page's (127.0.0.1).
      const url = `${state.base ?? location.origin}${location.pathname}#verify`;
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
