// The certificate's store: one round of a draw, read from the public export (every record of
// the round: the first draw and any no-show replacement), and its recheck.

import { setMask } from '../lib/mask.js';
import { verifyRound } from '../lib/verify.js';

/** `{ code, round }` from /draw/<code>/round/<n>. */
export function certificateAddress(pathname = location.pathname) {
  const parts = pathname.split('/').filter(Boolean);
  return { code: decodeURIComponent(parts[1] ?? ''), round: Number(parts[3]) };
}

export class CertificateState extends EventTarget {
  constructor({ code, round }) {
    super();
    this.code = code;
    this.round = round;
    this.status = 'loading';       // loading | ready | missing | error
    this.records = [];             // the round's `round` records, oldest first
    this.voids = [];               // its `void` records
    this.verification = { state: 'pending' };
  }

  changed(detail) { this.dispatchEvent(new CustomEvent('change', { detail })); }

  /** The latest record of the round: the one whose winners stand (a replacement's). */
  get record() { return this.records.at(-1) ?? null; }

  /** The round's standing winners: every record's, minus the voided ones. */
  get winners() {
    const voided = new Set(this.voids.map((v) => JSON.stringify(v.winner)));
    return this.records.flatMap((r) => r.winners).filter((w) => !voided.has(JSON.stringify(w)));
  }

  async load() {
    try {
      // The winners are shown masked as the draw's settings say (its public state); the export
      // keeps the real values, which the recheck needs.
      await this.loadMask();
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/export.json`, { cache: 'no-store' });
      if (!response.ok) { this.status = response.status === 404 ? 'missing' : 'error'; this.changed('load'); return; }
      const exported = await response.json();
      const all = exported.records ?? [];
      this.records = all.filter((r) => r.kind === 'round' && r.round === this.round);
      this.voids = all.filter((r) => r.kind === 'void' && r.round === this.round);
      this.status = this.records.length ? 'ready' : 'missing';
      this.changed('load');
      if (this.records.length) this.verify(all);
    } catch {
      this.status = 'error';
      this.changed('load');
    }
  }

  async loadMask() {
    try {
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}`, { cache: 'no-store' });
      if (response.ok) setMask((await response.json()).config?.mask);
    } catch {
      // The draw's state is unreachable: the export below tells whether the page can show anything.
    }
  }

  /** Rechecks every record of the round (the draw itself, as every page does at a reveal). */
  verify(all) {
    for (const record of this.records) {
      const entrants = record.pool?.kind === 'list'
        ? all.find((r) => r.kind === 'entrants' && r.entrantsHash === record.pool.entrants) ?? null : null;
      const outcome = verifyRound(record, { entrants });
      if (!outcome.ok) { this.verification = { state: 'fail', reason: outcome.reason }; this.changed('verified'); return; }
    }
    this.verification = { state: 'ok' };
    this.changed('verified');
  }
}
