// A private draw's receipt (docs/FAIRNESS.md §22): the host hands each entrant of an uploaded list
// a link, /watch/<code>#receipt=<public id>&salt=<hex>&name=<name>. The fragment never reaches a
// server. This phone checks that its name and salt open the public id ("#" + SHA-256(salt || name)),
// then fetches the id's entry proof for the latest drawn round and checks it as a checked-in phone
// does (proof.js): "your entry is in the locked pool of round n ✓". Nothing here is sent anywhere
// but the proof request, which names the public id only.

import { $, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { verifyEntryProof } from '../lib/verify.js';
import { concatBytes, fromHex, sha256, toBytes, toHex } from '../lib/sha256.js';
import { privateTag } from '../lib/room.js';

/** The receipt in the page's fragment, or null. */
export function receiptOf(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const id = params.get('receipt');
  const salt = params.get('salt');
  const name = params.get('name');
  if (!id || !salt || name === null) return null;
  return { id, salt, name };
}

/** Whether `name` and `salt` open public id `id`. */
export function opens({ id, salt, name }) {
  if (!/^[0-9a-f]{64}$/.test(salt)) return false;
  return id === `#${toHex(sha256(concatBytes(fromHex(salt), toBytes(name))))}`;
}

export class ReceiptLine {
  constructor(root = document) {
    this.card = $('[data-receipt]', root);
    this.nameLine = $('[data-receipt-name]', root);
    this.line = $('[data-receipt-proof]', root);
    this.receipt = receiptOf();
    this.asked = null;
    this.shown = null;
  }

  async update(state) {
    if (!this.receipt) return;
    const round = state.lastReveal?.round ?? state.results?.at(-1)?.round;
    if (!opens(this.receipt)) {
      this.shown = { mismatch: true };
    } else if (!Number.isInteger(round)) {
      this.shown = { wait: true };
    } else {
      const asked = `${round}`;
      if (asked === this.asked) return;
      this.asked = asked;
      const outcome = await fetchProof(state.code, round, this.receipt.id);
      if (this.asked !== asked) return;
      this.shown = outcome ? { round, ...outcome } : { wait: true };
    }
    this.render();
  }

  render() {
    if (!this.receipt || !this.shown) return;
    show(this.card, true);
    setText(this.nameLine, t('receipt.entry', { name: this.receipt.name, id: privateTag(this.receipt.id) ?? this.receipt.id }));
    const shown = this.shown;
    this.line.classList.toggle('proof-bad', Boolean(shown.mismatch) || shown.ok === false);
    setText(this.line, shown.mismatch ? t('receipt.mismatch')
      : shown.wait ? t('receipt.wait')
      : shown.ok ? t(shown.inPool ? 'checkin.proof.in' : 'checkin.proof.out', { n: shown.tickets, round: shown.round })
      : t('checkin.proof.bad', { round: shown.round, reason: shown.reason }));
  }
}

async function fetchProof(code, round, id) {
  try {
    const url = `/api/draws/${encodeURIComponent(code)}/rounds/${round}/proof?entry=${encodeURIComponent(id)}`;
    const response = await fetch(url, { cache: 'no-store' });
    if (!response.ok) return null;
    return verifyEntryProof(await response.json());
  } catch {
    return null;
  }
}
