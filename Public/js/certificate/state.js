// The certificate's store: one round of a draw, read from the public export (every record of
// the round: the first draw and any no-show replacement), and its recheck.

import { setBooks } from '../lib/books.js';
import { fetchBranding } from '../lib/branding.js';
import { lanBase } from '../lib/info.js';
import { setMask } from '../lib/mask.js';
import { entrantNames } from '../lib/room.js';
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
    this.passes = [];              // its `pass` records (an unclaimed win passed on, #26)
    this.changes = [];             // its `void` and `pass` records, oldest first
    this.title = '';               // the event's title (the draw's branding), or ''
    this.base = null;              // the origin the screen's QR codes use (the LAN address)
    this.verification = { state: 'pending' };
    this.software = null;          // the program its commitment's record names (issue #47), or null
    this.signedBy = null;          // the fingerprint of the key that signed the round's record (issue #47), or null
    this.timeStamp = null;         // the first outside time-stamp of a chain head at or after it (issue #47), or null
    this.notBefore = null;
    this.signoffs = [];            // the round's observers' sign-offs (issue #41)         // a beacon-sealed round: { round, at } of the drand round it waited for, or null
  }

  changed(detail) { this.dispatchEvent(new CustomEvent('change', { detail })); }

  /** The latest record of the round: the one whose winners stand (a replacement's). */
  get record() { return this.records.at(-1) ?? null; }

  /**
   * Who holds the round's prizes, as the record says after voids and passes: the drawn winners
   * less the voided ones, then each void's replacement; a pass puts its alternate in the
   * winner's place, or leaves `null` (nobody claimed) when no alternate was left.
   */
  get winners() {
    const key = (w) => JSON.stringify(w);
    const gone = new Set([...this.voids.map((v) => key(v.winner))]);
    const held = this.records.flatMap((r) => r.winners).filter((w) => !gone.has(key(w)));
    for (const pass of this.passes) {
      const i = held.findIndex((w) => w !== null && key(w) === key(pass.winner));
      if (i >= 0) held[i] = pass.alternate ?? null;
    }
    return held;
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
      this.passes = all.filter((r) => r.kind === 'pass' && r.round === this.round);
      this.changes = all.filter((r) => (r.kind === 'void' || r.kind === 'pass') && r.round === this.round);
      // Observers' sign-offs of this round's lock and result (issue #41), since the session's last Clear.
      const cleared = all.findLastIndex((r) => r.kind === 'clear' && r.index < (this.records[0]?.index ?? Infinity));
      this.signoffs = all.filter((r, i) => r.kind === 'signoff' && r.round === this.round && i > cleared);
      const commitment = this.records[0]?.commitment;
      const software = all.find((r) => r.kind === 'commit' && r.commitment === commitment)?.software;
      this.software = software && typeof software.sha256 === 'string' ? software : null;
      // The key that signed the standing record (docs/FAIRNESS.md §17); an older record is unsigned.
      const signedBy = exported.signatures?.records?.[String(this.record?.index)]?.key;
      this.signedBy = typeof signedBy === 'string' ? signedBy : null;
      // An RFC 3161 time-stamp of the round's record or a later chain head (its hash covers the round):
      // the round existed by then (docs/FAIRNESS.md §18).
      const stamps = exported.timestamps ?? {};
      const stamped = Object.keys(stamps).map(Number).filter((i) => i >= (this.record?.index ?? Infinity)).sort((a, b) => a - b);
      this.timeStamp = stamped.length && typeof stamps[stamped[0]]?.genTime === 'string' ? stamps[stamped[0]] : null;
      // A drand-sealed round could not be drawn before drand published the round it waited for (§13).
      const value = all.filter((r) => r.kind === 'beaconValue' && r.round === this.round).at(-1);
      const lock = value && all.filter((r) => r.kind === 'beacon' && r.round === this.round && r.beaconRound === value.beaconRound).at(-1);
      this.notBefore = lock?.chain ? { round: value.beaconRound, at: (lock.chain.genesis + (value.beaconRound - 1) * lock.chain.period) * 1000 } : null;
      // Names, title and the screen's origin before the first render of the winners.
      await Promise.all([this.loadNames(), this.loadBranding()]);
      this.status = this.records.length ? 'ready' : 'missing';
      this.changed('load');
      if (this.records.length) this.verify(all);
    } catch {
      this.status = 'error';
      this.changed('load');
    }
  }

  /**
   * A check-in round's winners are public ids: their names, where the host shows names (as the
   * screen does), from the check-in pool's list. Not the round's winners page: a round a Clear
   * took off the board is not there (a 404 in the console of every certificate of it), and a
   * list or range pool needs no names at all.
   */
  async loadNames() {
    if (!this.checkinPool && !this.privateDraw) return;
    try {
      // A private draw (docs/FAIRNESS.md §22) names only a round's winners, masked: its winners page.
      const url = this.privateDraw ? `/api/draws/${encodeURIComponent(this.code)}/rounds/${this.round}/winners`
        : `/api/draws/${encodeURIComponent(this.code)}/entries/pool`;
      const response = await fetch(url, { cache: 'no-store' });
      const pool = response.ok ? await response.json() : null;
      for (const [id, name] of Object.entries(pool?.names ?? {})) if (typeof name === 'string') entrantNames.set(id, name);
    } catch {
      // No names: the ids the record holds are shown.
    }
  }

  async loadBranding() {
    const [branding, base] = await Promise.all([fetchBranding(this.code), lanBase()]);
    this.title = typeof branding?.title === 'string' ? branding.title.trim() : '';
    this.base = base;
  }

  async loadMask() {
    try {
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}`, { cache: 'no-store' });
      if (response.ok) {
        const config = (await response.json()).config;
        setMask(config?.mask);
        this.checkinPool = config?.pool?.kind === 'checkin';
        this.privateDraw = config?.private === true;
      }
    } catch {
      // The draw's state is unreachable: the export below tells whether the page can show anything.
    }
  }

  /** Rechecks every record of the round (the draw itself, as every page does at a reveal). */
  verify(all) {
    for (const record of this.records) {
      const entrants = record.pool?.kind === 'list'
        ? all.find((r) => r.kind === 'entrants' && r.entrantsHash === record.pool.entrants) ?? null : null;
      // Ticket books (issue 45): the colours the round's own list record fixed.
      if (Array.isArray(entrants?.books)) setBooks(entrants.books);
      // A beacon-sealed round (FAIRNESS §13): its winners come from its `beacon` lock and the drand
      // value stored right before it, as the pages' own recheck reads them (room-link.js).
      const at = all.findIndex((r) => r.hash === record.hash);
      const value = !record.replaces && at > 0 && all[at - 1].kind === 'beaconValue' ? all[at - 1] : null;
      const lock = value ? all.find((r) => r.kind === 'beacon' && r.hash === value.lock) ?? null : null;
      const outcome = verifyRound(record, { entrants, beacon: value && lock ? { lock, value } : null });
      if (!outcome.ok) { this.verification = { state: 'fail', reason: outcome.reason }; this.changed('verified'); return; }
    }
    this.verification = { state: 'ok' };
    this.changed('verified');
  }
}
