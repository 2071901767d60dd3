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
  if (!list.tickets && !list.groups) return toHex(sha256(canon(list.names)));
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

/** FAIRNESS §13: the words every verifier gives for the claim rules. */
export const CLAIM_RULES = {
  alternatesDiffer: 'alternates differ (rule C1)',
  replacementAlternates: 'alternates on a replacement or beyond the pool (rule C1)',
  passedNotCurrent: 'passed winner not a current winner of the latest round (rule C2)',
  notNextAlternate: 'pass is not to the next alternate (rule C3)',
  alternateTaken: 'pass to an alternate already a winner or voided (rule C3)',
};

/**
 * A `pass` record (FAIRNESS §13) against the session: its winner is a current winner of the latest
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
 * (FAIRNESS §7 steps 1–5), and every `pass` (§13). Returns [{ index, ok, reason? }] for the
 * round and pass records.
 */
export function verifyExport(exported) {
  const lists = new Map();
  const fresh = (last) => ({ voided: [], winners: [], rounds: new Map(), alternates: new Map(), last });
  let session = fresh(0);
  const out = [];
  for (const [index, r] of (exported.records ?? []).entries()) {
    if (r.kind === 'entrants') lists.set(r.entrantsHash, r);
    else if (r.kind === 'pass') {
      const reason = checkPass(r, session);
      out.push(reason ? { index, ok: false, reason } : { index, ok: true });
    }
    else if (r.kind === 'clear') session = fresh(session.last);
    else if (r.kind === 'void') {
      session.voided.push(r.winner);
      const won = session.rounds.get(r.round) ?? [];
      const at = won.indexOf(r.winner);
      if (at >= 0) won.splice(at, 1);
    } else if (r.kind === 'round') {
      const entrants = r.pool?.kind === 'list' ? lists.get(r.pool.entrants) ?? null : null;
      const roundWinners = r.replaces ? [...(session.rounds.get(r.round) ?? [])] : null;
      const outcome = verifyRound(r, { entrants, session: { voided: session.voided, winners: session.winners, roundWinners } });
      out.push({ index, ...outcome });
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
export function verifyRound(record, { entrants = null, published = null, session = null } = {}) {
  try {
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
    // A claim draw's alternates continue the same sampling past the winners (FAIRNESS §13).
    const alternates = record.alternates;
    const drawn = k + (Array.isArray(alternates) ? alternates.length : 0);
    if (alternates !== undefined && (!Array.isArray(alternates) || record.replaces || drawn > n)) {
      return { ok: false, reason: CLAIM_RULES.replacementAlternates };
    }
    if (record.replaces && k !== 1) return { ok: false, reason: 'a replacement draws k = 1' };
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
    const positions = weighted
      ? drawWeightedPositions(record.seed, record.round, record.poolHash, record.entropy, left.map((i) => list.tickets[i]), drawn)
      : drawPositions(record.seed, record.round, record.poolHash, record.entropy, n, drawn);
    const got = positions.map(element);
    for (let i = 0; i < k; i++) {
      if (got[i] !== record.winners[i]) return { ok: false, reason: `winners differ: recomputed ${JSON.stringify(got.slice(0, k))}` };
    }
    for (let i = k; i < drawn; i++) {
      if (got[i] !== alternates[i - k]) return { ok: false, reason: `${CLAIM_RULES.alternatesDiffer}: recomputed ${JSON.stringify(got.slice(k))}` };
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

/** True when one of this page's contributions is in the round's list. */
export function contributedTo(record, mine) {
  const list = record.contributions;
  if (!Array.isArray(list)) return false;
  return mine.some((hex) => list.includes(hex));
}
