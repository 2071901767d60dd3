// What this page witnessed of a draw's record chain (docs/FAIRNESS.md §14): the heads it was
// shown (each round record's `index` and `hash`), and whether a later view contradicted them.
// Pure: the page's store feeds it heads, the connection layer the export's records and the
// page's localStorage copy (room-link.js).

import { canon } from './verify.js';
import { sha256, toHex } from './sha256.js';

export const WITNESS_FORMAT = 'tombola-witness-v1';
/** Heads remembered per draw (the oldest go first). */
const KEEP = 500;
const HEX64 = /^[0-9a-f]{64}$/;
const ZEROS = '0'.repeat(64);

/**
 * `{ index, hash, prev, round }` of a round record or `result` message, or null when it names none;
 * a sealed round's `beacon` record shown while waiting adds `beaconRound` and `due` (R's due time,
 * Unix ms): with `seen`, what this device can say of when it was shown the lock (FAIRNESS §13).
 */
export function headOf(record) {
  if (!record || typeof record !== 'object' || !Number.isInteger(record.index) || record.index < 0) return null;
  if (typeof record.hash !== 'string' || !HEX64.test(record.hash)) return null;
  const head = { index: record.index, hash: record.hash, prev: typeof record.prev === 'string' ? record.prev : null,
    round: Number.isInteger(record.round) ? record.round : null };
  if (Number.isInteger(record.beaconRound) && Number.isInteger(record.due)) Object.assign(head, { beaconRound: record.beaconRound, due: record.due });
  return head;
}

/** The hash a stored record should have: SHA-256 of its canonical JSON without `hash` (FAIRNESS §8). */
export function recordHash(record) {
  const { hash, ...rest } = record;
  return toHex(sha256(canon(rest)));
}

/**
 * Where records[lo…hi] are not one unbroken piece of a chain, as { index, reason } (a record
 * missing or out of place, a hash that is not the record's, a `prev` that is not the record
 * before), or null.
 */
export function chainProblem(records, lo, hi) {
  const at = recordAt(records);
  for (let k = lo; k <= hi; k++) {
    const r = at(k);
    const problem = (reason) => ({ index: k, reason: `record ${k} ${reason}` });
    if (!r || r.index !== k) return problem('is missing');
    if (recordHash(r) !== r.hash) return problem('does not hash to its hash');
    if (k > lo && r.prev !== at(k - 1).hash) return problem(`does not follow record ${k - 1}`);
    if (k === 0 && r.prev !== ZEROS) return problem('has a prev');
  }
  return null;
}

/** Record `k` of `records`: a whole export (oldest first), or its piece from some index on (`?from=`). */
function recordAt(records) {
  const base = Number.isInteger(records[0]?.index) ? records[0].index : 0;
  return (k) => records[k - base];
}

export class Witness {
  constructor(code) {
    this.code = code;
    this.heads = [];      // [{ index, hash, round, seen }] by index, what this page was shown
    this.pending = [];    // heads shown that do not simply follow the newest one: checked against the export
    this.alarm = null;    // { reason: 'fork' | 'rewritten', seen: { index, hash }, got: { index, hash } | null, round, at, detail }
  }

  /** The newest head this page was shown, or null. */
  get head() {
    return this.heads.length ? this.heads[this.heads.length - 1] : null;
  }

  /** Takes back what `toJSON` saved (localStorage); anything malformed is ignored. */
  restore(saved) {
    if (!saved || typeof saved !== 'object' || saved.code !== this.code) return;
    const heads = Array.isArray(saved.heads) ? saved.heads : [];
    for (const h of heads) {
      const head = headOf(h);
      if (head && !this.heads.some((x) => x.index === head.index)) this.remember(head, Number(h.seen) || 0);
    }
    const a = saved.alarm;
    if (a && typeof a === 'object' && (a.reason === 'fork' || a.reason === 'rewritten') && headOf(a.seen)) {
      this.alarm = { reason: a.reason, seen: pick(a.seen), got: headOf(a.got) ? pick(a.got) : null,
        round: Number.isInteger(a.round) ? a.round : null, at: Number(a.at) || 0,
        detail: typeof a.detail === 'string' ? a.detail.slice(0, 200) : null };
    }
  }

  toJSON() {
    return { format: WITNESS_FORMAT, code: this.code, heads: this.heads, alarm: this.alarm };
  }

  remember(head, now) {
    const entry = { index: head.index, hash: head.hash, round: head.round ?? null, seen: now };
    if (head.due !== undefined) Object.assign(entry, { beaconRound: head.beaconRound, due: head.due });
    const at = this.heads.findIndex((x) => x.index > head.index);
    if (at < 0) this.heads.push(entry); else this.heads.splice(at, 0, entry);
    if (this.heads.length > KEEP) this.heads.shift();
  }

  raise(reason, seen, got, now, detail = null) {
    if (this.alarm) return;
    this.alarm = { reason, seen: pick(seen), got: got ? pick(got) : null, round: seen.round ?? null, at: now, detail };
  }

  /**
   * A head the server shows now (a `result`, or the snapshot's). Returns what it did:
   * 'ignored' (names no record), 'known' (seen before, same hash), 'added' (follows the newest
   * head directly, or the first), 'check' (needs the records between: see `settle`), or 'alarm'
   * (a record this page saw has another hash now).
   */
  observe(record, now) {
    const head = headOf(record);
    if (!head) return 'ignored';
    const same = this.heads.find((x) => x.index === head.index);
    if (same) {
      if (same.hash === head.hash) return 'known';
      this.raise('rewritten', same, head, now, `record ${head.index} changed`);
      return 'alarm';
    }
    const newest = this.head;
    if (!newest || (head.index === newest.index + 1 && head.prev === newest.hash)) {
      this.remember(head, now);
      return 'added';
    }
    if (!this.pending.some((p) => p.index === head.index && p.hash === head.hash)) this.pending.push({ ...head, seen: now });
    return 'check';
  }

  /**
   * Checks every pending head against the export's records (oldest first, as stored; the whole
   * export or its piece from `needsFrom()` on): the remembered newest head must still be there,
   * and each pending head in one unbroken chain with it. Returns 'ok' or 'alarm'.
   */
  settle(records, now) {
    const newest = this.head;
    const pending = this.pending;
    const at = recordAt(records);
    this.pending = [];
    for (const p of pending) {
      if (!newest) { this.remember(p, p.seen); continue; }
      const stored = at(newest.index);
      if (!stored || stored.hash !== newest.hash) {
        this.raise('rewritten', newest, stored && headOf(stored) ? headOf(stored) : null, now, `record ${newest.index} changed or is gone`);
        return 'alarm';
      }
      const problem = chainProblem(records, Math.min(p.index, newest.index), Math.max(p.index, newest.index))
        ?? (at(p.index)?.hash === p.hash ? null : { index: p.index, reason: `record ${p.index} is not the one shown live` });
      if (problem) {
        // A record up to the one this page remembered is not what its hash says: rewritten;
        // past it, the newest records do not continue it: a fork.
        this.raise(problem.index <= newest.index ? 'rewritten' : 'fork', newest, p, now, problem.reason);
        return 'alarm';
      }
      this.remember(p, p.seen);
    }
    return 'ok';
  }

  /** The first record index `settle` needs (GET …/export.json?from=), or 0. */
  needsFrom() {
    return Math.min(this.head?.index ?? 0, ...this.pending.map((p) => p.index));
  }

  /** What this page saw, for a dispute: its heads (round record index, hash, round, when seen). */
  exported(now, origin) {
    return { ...this.toJSON(), origin, exported: now };
  }

  /** The client → server report of the alarm (docs/PROTOCOL.md, "Witness reports"), or null. */
  report() {
    if (!this.alarm) return null;
    const heads = [pick(this.alarm.seen)];
    if (this.alarm.got) heads.push(pick(this.alarm.got));
    return { type: 'witness', reason: this.alarm.reason, heads };
  }
}

function pick(head) {
  return { index: head.index, hash: head.hash };
}
