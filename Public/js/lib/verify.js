// Rechecks a revealed round exactly as docs/FAIRNESS.md (tombola-hmac-sha256-v1
// and -weighted-v1) specifies: seed ↔ commitment, canonical pool ↔ poolHash,
// contributions ↔ entropy digest, and the winners recomputed by HMAC-SHA-256 in
// counter mode, rejection sampling and a sparse partial Fisher–Yates (or, for a
// weighted list, a pick over the tickets). Verification only: the page never
// draws anything itself.

import { concatBytes, fromHex, hmacSha256, sha256, toBytes, toHex } from './sha256.js';

export const ALGORITHM = 'tombola-hmac-sha256-v1';
export const WEIGHTED_ALGORITHM = 'tombola-hmac-sha256-weighted-v1';
const TWO_64 = 1n << 64n;

/** Canonical JSON (FAIRNESS §2): sorted keys, no whitespace, JSON.stringify escaping. */
export function canon(value) {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isInteger(value)) throw new TypeError('fraction in record');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canon).join(',')}]`;
  const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canon(value[k])}`).join(',')}}`;
}

function u64be(n) {
  const out = new Uint8Array(8);
  let v = BigInt(n);
  for (let i = 7; i >= 0; i--) { out[i] = Number(v & 0xffn); v >>= 8n; }
  return out;
}

/** Entropy digest of sorted 32-hex contributions and an optional audience number (§4). */
export function entropyDigest(contributions, audience) {
  const parts = [toBytes('tombola-entropy-v1'), new Uint8Array([0]), u64be(contributions.length)];
  for (const c of contributions) parts.push(fromHex(c));
  if (audience === null || audience === undefined) {
    parts.push(new Uint8Array([0]));
  } else {
    const a = toBytes(String(audience));
    parts.push(new Uint8Array([1]), u64be(a.length), a);
  }
  return toHex(sha256(concatBytes(...parts)));
}

/** The word stream of §5: four big-endian u64 per HMAC block. */
function* words(seed, round, poolHash, entropy, algorithm = ALGORITHM) {
  const prefix = concatBytes(toBytes(algorithm), new Uint8Array([0]), u64be(round), fromHex(poolHash), fromHex(entropy));
  for (let c = 0; ; c++) {
    const block = hmacSha256(seed, concatBytes(prefix, u64be(c)));
    for (let i = 0; i < 32; i += 8) {
      let w = 0n;
      for (let j = 0; j < 8; j++) w = (w << 8n) | BigInt(block[i + j]);
      yield w;
    }
  }
}

function uniform(stream, m) {
  const bm = BigInt(m);
  const limit = TWO_64 - (TWO_64 % bm);
  for (;;) {
    const w = stream.next().value;
    if (w < limit) return Number(w % bm);
  }
}

/**
 * Eligible positions drawn for a weighted list (§5, "Weighted lists"): t = uniform(W)
 * over the tickets still in the round, the position whose ticket interval holds t.
 * `weights[p]` are the tickets of eligible position p (W ≤ 10^11 < 2^53).
 */
export function drawWeightedPositions(seedHex, round, poolHash, entropy, weights, k) {
  const stream = words(fromHex(seedHex), round, poolHash, entropy, WEIGHTED_ALGORITHM);
  const n = weights.length;
  const tree = [0, ...weights];
  for (let i = 1; i <= n; i++) {
    const parent = i + (i & -i);
    if (parent <= n) tree[parent] += tree[i];
  }
  let total = weights.reduce((a, b) => a + b, 0);
  let top = 1;
  while (top * 2 <= n) top *= 2;
  const out = [];
  for (let i = 0; i < k; i++) {
    let t = uniform(stream, total);
    let p = 0;
    for (let step = top; step > 0; step >>= 1) {
      if (p + step <= n && tree[p + step] <= t) { p += step; t -= tree[p]; }
    }
    out.push(p);
    total -= weights[p];
    for (let j = p + 1; j <= n; j += j & -j) tree[j] -= weights[p];
  }
  return out;
}

/** Eligible positions drawn for a round (§5), in draw order. */
export function drawPositions(seedHex, round, poolHash, entropy, n, k) {
  const stream = words(fromHex(seedHex), round, poolHash, entropy);
  const swaps = new Map();
  const out = [];
  for (let i = 0; i < k; i++) {
    const j = i + uniform(stream, n - i);
    const ai = swaps.has(i) ? swaps.get(i) : i;
    const aj = swaps.has(j) ? swaps.get(j) : j;
    swaps.set(j, ai);
    out.push(aj);
  }
  return out;
}

function bisectRight(sorted, x) {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (x < sorted[mid]) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/** { n, element(p) } for a pool object (§3); `entrants` is the name list for a list pool. */
export function eligibleOf(pool, entrants) {
  const removed = pool.removed ?? [];
  let size, idx, base;
  if (pool.kind === 'range') {
    size = pool.to - pool.from + 1;
    idx = removed.map((r) => r - pool.from);
    base = (i) => pool.from + i;
  } else if (pool.kind === 'list') {
    if (!Array.isArray(entrants) || entrants.length !== pool.count) throw new Error('entrant count');
    size = entrants.length;
    idx = removed;
    base = (i) => entrants[i];
  } else {
    throw new Error('unknown pool kind');
  }
  for (let j = 0; j < idx.length; j++) {
    if (!Number.isInteger(idx[j]) || idx[j] < 0 || idx[j] >= size || (j > 0 && idx[j] <= idx[j - 1])) {
      throw new Error('removed set');
    }
  }
  const gaps = idx.map((d, j) => d - j);
  return { n: size - idx.length, element: (p) => base(p + bisectRight(gaps, p)) };
}

/**
 * A list as the hash sees it (§3): from an array of names, of entrant objects
 * {name, tickets, group} (the config of a detailed list) or an `entrants` record.
 * Returns { names, tickets?, groups? }.
 */
export function listOf(source) {
  if (source && !Array.isArray(source) && Array.isArray(source.entrants)) {
    const out = { names: source.entrants };
    if (Array.isArray(source.tickets)) out.tickets = source.tickets;
    if (Array.isArray(source.groups)) out.groups = source.groups;
    if (Array.isArray(source.books)) out.books = source.books; // ticket books (§3): hashed with their tickets
    return out;
  }
  if (!Array.isArray(source)) return { names: [] };
  if (source.every((e) => typeof e === 'string')) return { names: source };
  const names = source.map((e) => (typeof e === 'string' ? e : e.name));
  const tickets = source.map((e) => (typeof e === 'object' && Number.isInteger(e.tickets) ? e.tickets : 1));
  const groups = source.map((e) => (typeof e === 'object' && typeof e.group === 'string' ? e.group : ''));
  const out = { names };
  if (tickets.some((t) => t !== 1)) out.tickets = tickets;
  if (groups.some((g) => g !== '')) out.groups = groups;
  return out;
}

/** SHA-256 hex of the canonical entrant list (the pool's `entrants` field); see listOf. */
export function entrantsHash(source) {
  const list = listOf(source);
  if (!list.tickets && !list.groups && !list.books) return toHex(sha256(canon(list.names)));
  return toHex(sha256(canon(list)));
}

const RANGE_KEYS = ['from', 'kind', 'removed', 'to'];
const LIST_KEYS = ['count', 'entrants', 'kind', 'removed'];
const LIST_OPTIONAL = ['exceptGroups', 'onlyGroups', 'pastWinners'];
const PAST_KEYS = ['code', 'head', 'records', 'removed'];

/** FAIRNESS §3: the pool object is closed; group lists are non-empty, sorted (UTF-8 bytes), distinct, without "". */
function closedPool(pool) {
  const keys = Object.keys(pool).sort();
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (pool.kind === 'range') return same(keys, RANGE_KEYS);
  if (pool.kind !== 'list' || !same(keys.filter((k) => !LIST_OPTIONAL.includes(k)), LIST_KEYS)) return false;
  for (const key of ['onlyGroups', 'exceptGroups']) {
    if (!(key in pool)) continue;
    const g = pool[key];
    if (!Array.isArray(g) || g.length === 0 || g.some((x) => typeof x !== 'string' || x === '')) return false;
    const bytes = g.map((x) => toHex(toBytes(x)));  // hex of UTF-8 sorts as the bytes do
    if (bytes.some((x, i) => i > 0 && x <= bytes[i - 1])) return false;
  }
  const past = pool.pastWinners;
  return past === undefined || (Array.isArray(past) && past.length > 0
    && past.every((p) => p && typeof p === 'object' && same(Object.keys(p).sort(), PAST_KEYS)));
}

/**
 * Rules 2–4 of FAIRNESS §3 recomputed from the session before the round: every winner voided
 * since the Clear, every winner since the Clear when repeats are off, and for a replacement the
 * round's current winners, that is an element of the pool, is in `removed` (the round's own
 * winners aside: a repeat is reported as one). `session`: { voided, winners, roundWinners }
 * (arrays of winners; roundWinners only for a replacement). Returns the failed rule or null.
 */
function removedProblem(record, names, session) {
  const pool = record.pool;
  const gone = new Set(pool.removed ?? []);
  const index = names ? new Map(names.map((name, i) => [name, i])) : null;
  const position = (w) => {
    if (pool.kind === 'range') return Number.isInteger(w) && w >= pool.from && w <= pool.to ? w : null;
    return typeof w === 'string' && index.has(w) ? index.get(w) : null;
  };
  const own = new Set(record.winners);
  const rules = [[session.voided, 'removed misses a voided winner (rule 2)']];
  if (!record.repeats) rules.push([session.winners, 'removed misses an earlier winner, repeats off (rule 3)']);
  if (record.replaces) rules.push([session.roundWinners ?? [], 'removed misses a winner of the replaced round (rule 4)']);
  for (const [values, reason] of rules) {
    for (const w of values ?? []) {
      const p = own.has(w) ? null : position(w);
      if (p !== null && !gone.has(p)) return reason;
    }
  }
  return null;
}

// The entry tree (FAIRNESS §3): RFC 6962 hashing, 0x00 leaves, 0x01 nodes, an odd last node moves up.

/** SHA256(0x00 || canon({group, name, position, tickets})) as bytes. */
export function leafHash(position, name, tickets, group) {
  return sha256(concatBytes(new Uint8Array([0]), toBytes(canon({ group, name, position, tickets }))));
}

function nodeHash(left, right) {
  return sha256(concatBytes(new Uint8Array([1]), left, right));
}

/** The root (hex) over a list (an `entrants` record, names, or what listOf returns). */
export function entryRoot(source) {
  const list = source && Array.isArray(source.names) ? source : listOf(source);
  let level = list.names.map((name, i) => leafHash(i, name, list.tickets ? list.tickets[i] : 1, list.groups ? list.groups[i] : ''));
  if (level.length === 0) return toHex(sha256(new Uint8Array(0)));
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? nodeHash(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return toHex(level[0]);
}

/** RFC 9162 §2.1.3.2: true when `path` (hex) leads from `leaf` (bytes) at `index` of `size` to `root` (hex). */
export function pathLeadsToRoot(leaf, index, size, path, root) {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return false;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of path) {
    if (sn === 0 || !/^[0-9a-f]{64}$/.test(p)) return false;
    if ((fn & 1) === 1 || fn === sn) {
      r = nodeHash(fromHex(p), r);
      while ((fn & 1) === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
    } else {
      r = nodeHash(r, fromHex(p));
    }
    fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
  }
  return sn === 0 && toHex(r) === root;
}

/**
 * Checks a proof of GET …/rounds/<n>/proof (FAIRNESS §3, "The entry tree"): the leaf recomputes,
 * the path leads to the lock record's root, the lock record hashes to its `hash`, the pool hashes
 * to the lock's `poolHash` and names its list, and `inPool` matches `removed`.
 * Returns { ok: true, inPool, tickets } or { ok: false, reason }.
 */
export function verifyEntryProof(proof) {
  try {
    const { entry, lock, pool } = proof;
    const leaf = leafHash(entry.position, entry.name, entry.tickets, entry.group);
    if (toHex(leaf) !== proof.leaf) return { ok: false, reason: 'leaf' };
    const body = { ...lock };
    delete body.hash;
    if (lock.kind !== 'lock' || toHex(sha256(canon(body))) !== lock.hash) return { ok: false, reason: 'lock record' };
    if (!pathLeadsToRoot(leaf, entry.position, proof.size, proof.path, lock.root)) return { ok: false, reason: 'path' };
    if (toHex(sha256(canon(pool))) !== lock.poolHash || pool.entrants !== lock.entrantsHash || pool.count !== proof.size) {
      return { ok: false, reason: 'pool' };
    }
    const inPool = !pool.removed.includes(entry.position);
    if (proof.inPool !== inPool) return { ok: false, reason: 'inPool' };
    return { ok: true, inPool, tickets: entry.tickets };
  } catch (error) {
    return { ok: false, reason: error?.message ?? 'malformed proof' };
  }
}

const ROOTS = new Map();
const LOCK_KEYS = ['at', 'commitment', 'entrantsHash', 'excluded', 'hash', 'index', 'kind', 'plan', 'poolHash', 'prev', 'root', 'round', 'v'];
const PLAN_KEYS = ['count', 'perStop', 'prizeCount', 'prizeLeft'];
const BAD_K = 'k differs from min(perStop, left in prize, n)';
const BAD_LEFT = "prizeLeft differs from the prize's count less its winners";
export const V1_NOTE = "no lock record (export format v1): the pool's lock time, host exclusions, k and entry proofs are not provable (FAIRNESS.md §11)";

function lockSchemaOk(lock) {
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const int = Number.isInteger;
  if (!same(Object.keys(lock).sort(), LOCK_KEYS) || !int(lock.round)) return false;
  if (typeof lock.commitment !== 'string' || typeof lock.poolHash !== 'string') return false;
  if (![lock.entrantsHash, lock.root].every((x) => x === null || typeof x === 'string')) return false;
  const ex = lock.excluded;
  if (!Array.isArray(ex) || ex.length > 1 || !ex.every((e) => e && typeof e === 'object' && same(Object.keys(e).sort(), ['removed', 'why'])
      && e.why === 'host' && Array.isArray(e.removed) && e.removed.length > 0 && e.removed.every(int))) return false;
  const plan = lock.plan;
  return Boolean(plan) && typeof plan === 'object' && same(Object.keys(plan).sort(), PLAN_KEYS) && int(plan.count)
    && (plan.perStop === 'all' || int(plan.perStop)) && [plan.prizeCount, plan.prizeLeft].every((x) => x === null || int(x));
}

/**
 * FAIRNESS §7 step 7: the `lock` record before a round explains its pool (every removed position
 * by rules 1–6, rule 1 being the lock's host exclusions) and its k. `list`: listOf the round's
 * list; `session` as for removedProblem; `awarded`: the current winners of the round's prize tier
 * before it (ignored for a replacement). Returns the problem or null.
 */
function lockProblem(lock, record, list, n, session, awarded) {
  if (!lockSchemaOk(lock)) return 'lock schema';
  if (lock.round !== record.round || lock.poolHash !== record.poolHash || lock.commitment !== record.commitment) {
    return 'lock does not match its round';
  }
  const pool = record.pool;
  const host = lock.excluded.flatMap((e) => e.removed);
  if (pool.kind === 'range') {
    if (lock.entrantsHash !== null || lock.root !== null) return 'lock entrantsHash or root';
    if (host.some((h) => h < pool.from || h > pool.to)) return 'lock host exclusions';
  } else {
    // The list's hash was checked against the pool: one tree per list.
    if (!ROOTS.has(pool.entrants)) ROOTS.set(pool.entrants, entryRoot(list));
    if (lock.entrantsHash !== pool.entrants || lock.root !== ROOTS.get(pool.entrants)) return 'lock entrantsHash or root';
    if (host.some((h) => h < 0 || h >= pool.count)) return 'lock host exclusions';
  }
  if (host.some((h, i) => i > 0 && h <= host[i - 1])) return 'lock host exclusions';
  const gone = new Set(pool.removed);
  if (host.some((h) => !gone.has(h))) return 'removed misses a host exclusion (rule 1)';
  const index = list ? new Map(list.names.map((name, i) => [name, i])) : null;
  const position = (w) => {
    if (pool.kind === 'range') return Number.isInteger(w) && w >= pool.from && w <= pool.to ? w : null;
    return typeof w === 'string' && index.has(w) ? index.get(w) : null;
  };
  const expected = new Set(host);
  const values = [...(session.voided ?? []), ...(record.repeats ? [] : session.winners ?? []), ...(record.replaces ? session.roundWinners ?? [] : [])];
  for (const w of values) { const p = position(w); if (p !== null) expected.add(p); }
  if (pool.kind === 'list') {
    const only = pool.onlyGroups ?? [];
    const except = pool.exceptGroups ?? [];
    if (only.length || except.length) {
      list.names.forEach((_, i) => {
        const g = list.groups ? list.groups[i] : '';
        if ((only.length && !only.includes(g)) || except.includes(g)) expected.add(i);
      });
    }
    for (const p of pool.pastWinners ?? []) p.removed.forEach((x) => expected.add(x));
  }
  for (const w of record.winners) { const p = position(w); if (p !== null) expected.delete(p); }
  if (expected.size !== gone.size || [...gone].some((x) => !expected.has(x))) return 'removed holds a position no rule explains';
  const plan = lock.plan;
  const k = record.winners.length;
  if (record.replaces) {
    return plan.count === 1 && plan.perStop === 1 && plan.prizeCount === null && plan.prizeLeft === null ? null : BAD_K;
  }
  const none = record.prizeIndex === null;
  if ((plan.prizeCount === null) !== none || (plan.prizeLeft === null) !== none) return BAD_LEFT;
  if (!none && (plan.prizeCount < 1 || plan.prizeLeft !== plan.prizeCount - awarded)) return BAD_LEFT;
  // A reverse raffle's round draws out at most all but one (FAIRNESS §21, rule V1).
  const limits = [record.reverse ? n - 1 : n, plan.perStop, plan.prizeLeft].filter(Number.isInteger);
  if (plan.count !== k || k !== Math.min(...limits) || (plan.perStop !== 'all' && plan.perStop < 1)) return BAD_K;
  return null;
}

/** FAIRNESS §15: the words every verifier gives for the claim rules. */
export const CLAIM_RULES = {
  alternatesDiffer: 'alternates differ (rule C1)',
  replacementAlternates: 'alternates on a replacement or beyond the pool (rule C1)',
  passedNotCurrent: 'passed winner not a current winner of the latest round (rule C2)',
  notNextAlternate: 'pass is not to the next alternate (rule C3)',
  alternateTaken: 'pass to an alternate already a winner or voided (rule C3)',
};

/**
 * A `pass` record (FAIRNESS §15) against the session: its winner is a current winner of the latest
 * round, and the win goes to that round's next unused alternate (null once all are used), who is
 * not a winner or voided already. Updates the session; returns the failed rule or null.
 */
export function checkPass(r, session) {
  const won = session.rounds.get(r.round) ?? [];
  if (r.round !== session.last || !won.includes(r.winner) || session.voided.includes(r.winner)) return CLAIM_RULES.passedNotCurrent;
  const [alts, used] = session.alternates.get(r.round) ?? [[], 0];
  const next = used < alts.length ? alts[used] : null;
  if (r.alternate !== next) return CLAIM_RULES.notNextAlternate;
  if (next !== null && (won.includes(next) || session.voided.includes(next))) return CLAIM_RULES.alternateTaken;
  if (next === null) won.splice(won.indexOf(r.winner), 1);
  else {
    won[won.indexOf(r.winner)] = next;
    session.winners.push(next);
  }
  session.rounds.set(r.round, won);
  session.voided.push(r.winner);
  session.alternates.set(r.round, [alts, used + 1]);
  return null;
}

/**
 * Rechecks every round of an export (`{records}`) with the session each one was drawn in
 * (FAIRNESS §7 steps 1–5, and step 7 with the `lock` record of export format v2), and every
 * `pass` (§15). Returns [{ index, ok, reason?, note? }] for the round and pass records (note: a v1
 * round without a lock).
 */
export function verifyExport(exported) {
  const lists = new Map();
  const fresh = (last) => ({ voided: [], winners: [], rounds: new Map(), tiers: new Map(), alternates: new Map(), last });
  let session = fresh(0);
  let lock = null;
  let locked = false;
  let pending = null;
  const out = [];
  // A beacon-sealed round (FAIRNESS §13): its lock, then its drand value.
  let beacon = null;
  let beaconValue = null;
  for (const [index, r] of (exported.records ?? []).entries()) {
    // A lock (stored at Start) is followed by its round, or first by a beacon-sealed round's
    // records (§13); a roll a restart cut short leaves it abandoned: then the restart's commit,
    // or a new Start's lock of the same round, follows it (§8).
    if (lock && !['round', 'beacon', 'beaconValue', 'beaconVoid'].includes(r.kind)) {
      const abandoned = (r.kind === 'commit' && r.reason === 'restart') || (r.kind === 'lock' && r.round === lock.round);
      if (!abandoned) out.push({ index, ok: false, reason: 'lock without its round' });
      lock = null;
    }
    if (r.kind === 'commit') pending = r.commitment;
    else if (r.kind === 'lock') {
      if (pending === null || r.commitment !== pending) out.push({ index, ok: false, reason: 'lock names no pending commitment' });
      lock = r;
      locked = true;
    } else if (r.kind === 'beacon') {
      if (!lock && locked) out.push({ index, ok: false, reason: 'round without its lock' });
      else if (lock && (lock.round !== r.round || lock.poolHash !== r.poolHash || lock.commitment !== r.commitment)) {
        out.push({ index, ok: false, reason: 'lock does not match its round' });
      } else if (!isFirstDueRound(r)) out.push({ index, ok: false, reason: 'drand round later than the first due after the lock' });
      beacon = r;
      beaconValue = null;
    } else if (r.kind === 'beaconVoid') {
      // The round keeps its lock: the next Stop seals a new drand round (exports from before locks
      // were stored at Start store a new lock there too: a lock of the same round after this one).
      beacon = null;
    } else if (r.kind === 'beaconValue') {
      const reason = beaconValueProblem(r, beacon);
      if (reason) out.push({ index, ok: false, reason });
      else beaconValue = r;
    } else if (r.kind === 'entrants') lists.set(r.entrantsHash, r);
    else if (r.kind === 'pass') {
      const reason = checkPass(r, session);
      out.push(reason ? { index, ok: false, reason } : { index, ok: true });
    }
    else if (r.kind === 'clear') {
      // A wipe (FAIRNESS §19) ends a session of rehearsal rounds only, never real rounds.
      if ('rehearsal' in r && (r.rehearsal !== true || session.rehearsal !== true)) {
        out.push({ index, ok: false, reason: 'rehearsal wipe of a session that is not all rehearsal rounds (rule R2)' });
      }
      session = fresh(session.last);
    }
    else if (r.kind === 'void') {
      session.voided.push(r.winner);
      const won = session.rounds.get(r.round) ?? [];
      const at = won.indexOf(r.winner);
      if (at >= 0) won.splice(at, 1);
    } else if (r.kind === 'round') {
      const entrants = r.pool?.kind === 'list' ? lists.get(r.pool.entrants) ?? null : null;
      const roundWinners = r.replaces ? [...(session.rounds.get(r.round) ?? [])] : null;
      let awarded = 0;
      for (const [round, tier] of session.tiers) {
        if (tier[0] === r.prizeIndex && tier[1] === r.prize) awarded += (session.rounds.get(round) ?? []).length;
      }
      const sealed = beacon ? { lock: beacon, value: beaconValue } : null;
      // FAIRNESS §19: a session holds rehearsal rounds or real ones, never both.
      const rehearsal = 'rehearsal' in r;
      const mixed = rehearsal && r.rehearsal !== true ? 'bad field rehearsal'
        : session.rehearsal !== undefined && session.rehearsal !== rehearsal ? 'rehearsal and real rounds in one session (rule R1)' : null;
      session.rehearsal = rehearsal;
      const outcome = mixed ? { ok: false, reason: mixed } : !lock && locked ? { ok: false, reason: 'round without its lock' }
        : verifyRound(r, { entrants, lock, awarded, session: { voided: session.voided, winners: session.winners, roundWinners }, beacon: sealed });
      out.push({ index, ...outcome, ...(lock ? {} : { note: V1_NOTE }) });
      lock = null;
      pending = null;
      beacon = null;
      beaconValue = null;
      if (!r.replaces) session.tiers.set(r.round, [r.prizeIndex, r.prize]);
      session.winners.push(...r.winners);
      session.rounds.set(r.round, [...(session.rounds.get(r.round) ?? []), ...r.winners]);
      if (!r.replaces) {
        session.last = r.round;
        session.alternates.set(r.round, [r.alternates ?? [], 0]);
      }
    }
  }
  return out;
}

/**
 * Rechecks one round record (a `result` message is the record plus `type` and
 * `contributors`). `entrants`: the name list for a list pool. `published`: the
 * commitment this page saw announced for the round, if any. `session`: the winners of
 * the session before it (see removedProblem), when the page knows them. Returns
 * { ok: true } or { ok: false, reason }.
 */
export function verifyRound(record, { entrants = null, published = null, session = null, lock = null, awarded = 0, beacon = null } = {}) {
  try {
    let key = record.seed;
    if (beacon) {
      key = beaconKey(record, beacon);
      if (!key) return { ok: false, reason: beacon.value ? 'round differs from its beacon lock' : 'beacon round without its value' };
    }
    if (record.algorithm !== ALGORITHM && record.algorithm !== WEIGHTED_ALGORITHM) return { ok: false, reason: 'unknown algorithm' };
    if (toHex(sha256(fromHex(record.seed))) !== record.commitment) return { ok: false, reason: 'seed does not match commitment' };
    if (fromHex(record.seed).length !== 32) return { ok: false, reason: 'seed length' };
    if (published && published !== record.commitment) return { ok: false, reason: 'commitment differs from the one announced' };
    if (toHex(sha256(canon(record.pool))) !== record.poolHash) return { ok: false, reason: 'poolHash' };
    if (!closedPool(record.pool)) return { ok: false, reason: 'pool schema' };
    const c = record.contributions;
    if (!Array.isArray(c)) return { ok: false, reason: 'contributions missing' };
    for (let i = 0; i < c.length; i++) {
      if (!/^[0-9a-f]{32}$/.test(c[i]) || (i > 0 && c[i] <= c[i - 1])) return { ok: false, reason: 'contributions' };
    }
    if (entropyDigest(c, record.audience ?? null) !== record.entropy) return { ok: false, reason: 'entropy digest' };
    // Winners of other draws left out (FAIRNESS §3): each list sorted, distinct, inside `removed`.
    const removedSet = new Set(record.pool.removed ?? []);
    for (const p of record.pool.pastWinners ?? []) {
      const rm = p.removed;
      if (typeof p.code !== 'string' || !Number.isInteger(p.records) || p.records < 0 || !/^[0-9a-f]{64}$/.test(p.head)
          || !Array.isArray(rm) || rm.some((x, i) => !removedSet.has(x) || (i > 0 && x <= rm[i - 1]))) {
        return { ok: false, reason: 'pastWinners' };
      }
    }
    if (record.pool.kind === 'list' && entrantsHash(entrants ?? []) !== record.pool.entrants) {
      return { ok: false, reason: 'entrant list unavailable' };
    }
    const list = record.pool.kind === 'list' ? listOf(entrants) : null;
    const { n, element } = eligibleOf(record.pool, list ? list.names : null);
    const k = record.winners.length;
    if (n !== record.eligible || k < 1 || k > n) return { ok: false, reason: 'eligible count' };
    // A claim draw's alternates continue the same sampling past the winners (FAIRNESS §15).
    const alternates = record.alternates;
    const drawn = k + (Array.isArray(alternates) ? alternates.length : 0);
    if (alternates !== undefined && (!Array.isArray(alternates) || record.replaces || drawn > n)) {
      return { ok: false, reason: CLAIM_RULES.replacementAlternates };
    }
    if (record.replaces && k !== 1) return { ok: false, reason: 'a replacement draws k = 1' };
    const reverse = 'reverse' in record || 'lastIn' in record;
    if (reverse && !(record.reverse === true && record.prize === null && record.prizeIndex === null && record.repeats === false
        && alternates === undefined && !record.replaces && record.algorithm === ALGORITHM && k < n)) {
      return { ok: false, reason: REVERSE_RULES.shape };
    }
    if (session) {
      const reason = removedProblem(record, list ? list.names : null, session);
      if (reason) return { ok: false, reason };
    }
    const weighted = Boolean(list && list.tickets);
    if (record.algorithm !== (weighted ? WEIGHTED_ALGORITHM : ALGORITHM)) return { ok: false, reason: 'algorithm does not fit the pool' };
    const gone = new Set(record.pool.removed ?? []);
    const left = list ? list.names.map((_, i) => i).filter((i) => !gone.has(i)) : [];
    const only = record.pool.onlyGroups ?? [];
    const except = record.pool.exceptGroups ?? [];
    if (only.length || except.length) {
      for (const i of left) {
        const g = list.groups ? list.groups[i] : '';
        if ((only.length && !only.includes(g)) || except.includes(g)) return { ok: false, reason: 'ineligible group in pool' };
      }
    }
    if (lock) {
      const reason = lockProblem(lock, record, list, n, session ?? {}, awarded);
      if (reason) return { ok: false, reason };
    }
    const positions = weighted
      ? drawWeightedPositions(key, record.round, record.poolHash, record.entropy, left.map((i) => list.tickets[i]), drawn)
      : drawPositions(key, record.round, record.poolHash, record.entropy, n, drawn);
    const got = positions.map(element);
    for (let i = 0; i < k; i++) {
      if (got[i] !== record.winners[i]) return { ok: false, reason: `winners differ: recomputed ${JSON.stringify(got.slice(0, k))}` };
    }
    for (let i = k; i < drawn; i++) {
      if (got[i] !== alternates[i - k]) return { ok: false, reason: `${CLAIM_RULES.alternatesDiffer}: recomputed ${JSON.stringify(got.slice(k))}` };
    }
    if (reverse) {
      // FAIRNESS §21, rule V2: lastIn is there exactly when one is left in, and is that one.
      let last;
      if (k + 1 === n) {
        const out = new Set(record.winners);
        for (let p = 0; p < n && last === undefined; p++) if (!out.has(element(p))) last = element(p);
      }
      if (record.lastIn !== last) return { ok: false, reason: REVERSE_RULES.lastIn };
    }
    if (typeof record.hash === 'string') {
      const body = { ...record };
      delete body.hash; delete body.type; delete body.contributors; delete body.voidReason;
      if (toHex(sha256(canon(body))) !== record.hash) return { ok: false, reason: 'record hash' };
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error?.message ?? 'malformed record' };
  }
}

/** The reverse raffle's rules (FAIRNESS §21), worded as every verifier words them. */
const REVERSE_RULES = {
  shape: 'reverse round draws out none or all, or has a prize, repeats, alternates, tickets or a replacement (rule V1)',
  lastIn: 'lastIn is not the one entrant left (rule V2)',
};

const LOCK_FIELDS = ['round', 'prize', 'prizeIndex', 'algorithm', 'pool', 'poolHash', 'eligible', 'repeats',
  'contributions', 'audience', 'entropy', 'commitment', 'seed'];

/** FAIRNESS §13 step 2: R is exactly the first drand round due at least 1,000 ms after the
 * `beacon` record's `at` (a later R would let a server that waited choose among values). */
export function isFirstDueRound(lock) {
  const chain = lock.chain ?? {};
  const due = (n) => (chain.genesis + (n - 1) * chain.period) * 1000;
  const r = lock.beaconRound;
  return Number.isSafeInteger(r) && r >= 1 && due(r) >= lock.at + 1000 && (r === 1 || due(r - 1) < lock.at + 1000);
}

/** FAIRNESS §13: why a `beaconValue` record does not belong to its lock, or null. */
export function beaconValueProblem(value, lock) {
  if (!lock) return 'beacon value without its lock';
  if (value.lock !== lock.hash || value.beaconRound !== lock.beaconRound || value.round !== lock.round) return 'beacon value of another lock';
  if (!/^[0-9a-f]{96}$/.test(value.signature ?? '') || toHex(sha256(fromHex(value.signature))) !== value.randomness) {
    return 'randomness is not SHA-256(signature)';
  }
  return null;
}

/**
 * FAIRNESS §13: the derivation key of a sealed round, SHA256("tombola-drand-v1" 0x00 lockHash
 * randomness), as hex; null unless the round repeats its lock and the value is there.
 */
export function beaconKey(record, { lock, value }) {
  if (!lock || !value) return null;
  // A void's replacement sealed by its own drand round names what it replaces in its lock too.
  if (LOCK_FIELDS.some((f) => canon(record[f]) + '' !== canon(lock[f]) + '') || canon(record.replaces ?? null) !== canon(lock.replaces ?? null)
    || record.winners.length !== lock.count) return null;
  return toHex(sha256(concatBytes(toBytes('tombola-drand-v1'), new Uint8Array([0]), fromHex(lock.hash), fromHex(value.randomness))));
}

/** True when one of this page's contributions is in the round's list. */
export function contributedTo(record, mine) {
  const list = record.contributions;
  if (!Array.isArray(list)) return false;
  return mine.some((hex) => list.includes(hex));
}
