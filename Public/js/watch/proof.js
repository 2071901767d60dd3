// The checked-in phone's own entry proof (docs/FAIRNESS.md §3, "The entry tree"): once a round
// is revealed, the phone fetches its leaf and audit path (GET …/rounds/<n>/proof?entry=<its id>),
// checks them here against the round's lock record and says "your entry (N tickets) is in the
// locked pool ✓". A round without a lock (an older server), or one locked before this phone
// joined, has no proof for it: the line stays hidden.

import { $, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { verifyEntryProof } from '../lib/verify.js';

export class EntryProofLine {
  constructor(root = document) {
    this.line = $('[data-entry-proof]', root);
    this.asked = null;
    this.shown = null;
  }

  /** Checks the proof of this phone's entry for the latest revealed round, once per round. */
  async update(state) {
    const me = state.me;
    const round = state.lastReveal?.round;
    if (!me?.id || me.removed || !Number.isInteger(round)) {
      this.shown = null;
      this.render();
      return;
    }
    const asked = `${round}:${me.id}`;
    if (asked === this.asked) return;
    this.asked = asked;
    const outcome = await fetchProof(state.code, round, me.id);
    if (this.asked !== asked) return;
    this.shown = outcome ? { round, ...outcome } : null;
    this.render();
  }

  render() {
    const shown = this.shown;
    show(this.line, Boolean(shown));
    if (!shown) return;
    this.line.classList.toggle('proof-bad', !shown.ok);
    setText(this.line, shown.ok
      ? t(shown.inPool ? 'checkin.proof.in' : 'checkin.proof.out', { n: shown.tickets, round: shown.round })
      : t('checkin.proof.bad', { round: shown.round, reason: shown.reason }));
  }
}

/** The checked proof ({ ok, inPool, tickets } or { ok: false, reason }), or null when there is none. */
async function fetchProof(code, round, id) {
  try {
    const url = `/api/draws/${encodeURIComponent(code)}/rounds/${round}/proof?entry=${encodeURIComponent(id)}`;
    const response = await fetch(url, { cache: 'no-store' });
    if (!response.ok) return null;  // no_lock, unknown_entry (joined later), not_a_list
    return verifyEntryProof(await response.json());
  } catch {
    return null;
  }
}
