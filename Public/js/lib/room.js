// A draw room as the pages see it: the server's snapshot plus the live
// broadcasts, the page's own entropy contributions, and each revealed round's
// recheck. Shared by the host, screen and watch pages' stores.

import { Socket } from './socket.js';
import { randomHex } from './dom.js';
import { setMask } from './mask.js';
import { contributedTo, entrantsHash, verifyRound } from './verify.js';

/** The draw code from /draw/<code>, /screen/<code> or /watch/<code> (or ?code= in development). */
export function codeFromLocation() {
  const fromQuery = new URLSearchParams(location.search).get('code');
  if (fromQuery) return fromQuery;
  const parts = location.pathname.split('/').filter(Boolean);
  return parts.length >= 2 ? decodeURIComponent(parts[1]) : '';
}

/** Takes the host key out of the URL fragment (#key=…) into sessionStorage and memory. */
export function takeHostKey(code) {
  const storageKey = `tombola.key.${code}`;
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  let key = params.get('key');
  if (key) {
    try { sessionStorage.setItem(storageKey, key); } catch { /* memory only */ }
    // The fragment never reaches the server, but it should not linger on a projected address bar either.
    history.replaceState(null, '', location.pathname + location.search);
  } else {
    try { key = sessionStorage.getItem(storageKey); } catch { key = null; }
  }
  return key || null;
}

export function forgetHostKey(code) {
  try { sessionStorage.removeItem(`tombola.key.${code}`); } catch { /* nothing stored */ }
}

/**
 * Names of checked-in entrants by public id, as far as this page may know them (the board's
 * winners when the host shows names; every winner on the host page). One page shows one draw.
 */
export const entrantNames = new Map();

/** A winner value as text: numbers and names as they are, objects by name/value; a checked-in
 * entrant's public id as its name when known. */
export function winnerText(w) {
  if (w === null || w === undefined) return '';
  if (typeof w === 'object') return String(w.name ?? w.value ?? w.label ?? JSON.stringify(w));
  return entrantNames.get(w) ?? String(w);
}

function learnNames(names) {
  if (!names || typeof names !== 'object') return;
  for (const [id, name] of Object.entries(names)) if (typeof name === 'string') entrantNames.set(id, name);
}

function sameWinner(a, b) {
  return winnerText(a) === winnerText(b);
}

export class DrawRoom extends EventTarget {
  constructor(code) {
    super();
    this.code = code;
    this.role = 'viewer';
    this.phase = null;
    this.config = null;            // the settings' summary (a list pool by count and entrantsHash)
    this.settings = null;          // the full settings, once fetched: { hash, config }
    this.remaining = null;
    this.round = null;
    this.commit = null;
    this.rounds = [];              // the board since Clear: [{ round, prize, winners, total, voided: [{ winner, reason }] }]
    this.olderRounds = 0;          // rounds of the board before the ones the snapshot lists (GET …/rounds)
    this.listLimits = new Map();   // round → how many of its winners the lists show (show more)
    this.apiKey = null;            // the host key for REST reads that show names (host pages only)
    this.results = [];             // result records this page has (live, or the snapshot's latest)
    this.voidReasons = new Map();  // "round|winner" → reason typed on this page
    this.exhausted = false;
    this.currentPrize = null;
    this.prizesDone = false;
    this.plan = null;              // the armed round: { round, prize, prizeIndex, count, perStop, cut, prizeLeft }
    this.viewers = null;
    this.tick = null;
    this.algorithm = null;
    this.connection = 'connecting';
    this.backlog = 0;
    this.lastError = null;
    this.warning = null;
    this.verification = new Map(); // record hash (or round:index) → { state, reason }
    this.mine = [];                // entropy hex this page sent, newest last
    this.contributed = null;       // latest round whose contributions include ours
    this.announced = new Map();    // round → commitment this page saw before the reveal
    this.revealCount = 0;          // increases on every live result (for animations)
    this.lastReveal = null;        // the newest live result
    this.clearedAt = 0;
    this.snapshotReceived = false;
    this.interrupted = null;       // the round a server restart cut short before Stop, until the next Start
    this.beacon = null;            // a beacon-sealed round: { round, beaconRound, status: waiting|sealed|void, reason }
    this.sealedBy = new Map();     // round → the drand round that sealed it (read with its records from the export)
    this.exportCache = null;
    this.checkin = null;           // check-in: { open, count, fields, presence, publicNames, names, me } or null
    this.winnerPresence = null;    // host: { round, winners: [{ id, name, connected }] }
  }

  /** The entry this page's device made (check-in), or null. */
  get me() {
    return this.myEntry ?? this.checkin?.me ?? null;
  }

  /**
   * The newest round on the board this device's entry won (not voided), or null. The snapshot
   * lists a long round's first winners only; its `me.wins` names every round this entry wins.
   */
  myWin() {
    const id = this.me?.id;
    if (!id) return null;
    const wins = Array.isArray(this.checkin?.me?.wins) && this.checkin.me.id === id ? this.checkin.me.wins : [];
    return this.board().find((r) => wins.includes(r.round) || r.winners.some((w) => !w.voided && w.value === id)) ?? null;
  }

  /** Applies one server message and fires `change` (detail: the message type). */
  apply(msg) {
    switch (msg.type) {
      case 'state': this.applySnapshot(msg); break;
      // `landing`: the slow-down's first winner and step (the stage's modes land on it).
      case 'tick':
        this.tick = { value: msg.value, seq: msg.seq, at: msg.at, landing: msg.landing ?? null };
        if (typeof msg.name === 'string') learnNames({ [msg.value]: msg.name });
        break;
      case 'phase':
        this.phase = msg.phase;
        if (msg.phase === 'rolling') this.interrupted = null;
        if (msg.phase === 'rolling' && this.round !== null) this.rememberAnnounced();
        break;
      case 'commit':
        this.commit = { round: msg.round, commitment: msg.commitment, poolHash: msg.poolHash };
        this.round = msg.round ?? this.round;
        // What is left and what the armed round draws (servers before issue 19 sent none of these).
        this.applyCounts(msg);
        if (msg.plan && typeof msg.plan === 'object') this.plan = msg.plan;
        this.rememberAnnounced();
        break;
      case 'void':
        // Sent just before the replacement's result: remember why, for every page's voided list.
        if (typeof msg.reason === 'string') this.voidReasons.set(`${msg.round}|${winnerText(msg.winner)}`, msg.reason);
        break;
      case 'result': this.applyResult(msg, true); break;
      case 'viewers': this.viewers = msg.count; break;
      case 'beacon': this.beacon = beaconOf(msg); break;
      case 'entrants': {
        // The count (and after a host's change, the settings too: fields, presence, publicNames).
        const { type, ...rest } = msg;
        this.checkin = { fields: [], names: {}, me: null, ...(this.checkin ?? {}), ...rest };
        break;
      }
      case 'winners': learnNames(msg.names); break;
      case 'winnerPresence':
        this.winnerPresence = msg;
        for (const w of msg.winners ?? []) if (typeof w.name === 'string') entrantNames.set(w.id, w.name);
        break;
      case 'cleared':
        this.rounds = [];
        this.olderRounds = 0;
        this.listLimits.clear();
        this.results = [];
        this.lastReveal = null;
        this.tick = null;
        this.clearedAt = Date.now();
        break;
      case 'role': this.role = msg.role === 'host' ? 'host' : 'viewer'; break;
      case 'config':
        if (msg.config) this.config = msg.config;
        if (msg.config?.pool?.kind !== 'checkin') this.checkin = null;
        else this.checkin ??= { open: false, count: msg.config.pool.count ?? 0, fields: [], names: {}, me: null };
        this.applyCounts(msg);
        break;
      case 'warning': this.warning = { code: msg.code, message: msg.message, at: Date.now() }; break;
      case 'error': this.lastError = { code: msg.code, message: msg.message, at: Date.now() }; break;
      default: return;
    }
    this.changed(msg.type);
  }

  /** `remaining`, `exhausted`, `currentPrize`, `prizesDone` from a `config` or `commit` message, where present. */
  applyCounts(msg) {
    if (typeof msg.remaining === 'number') this.remaining = msg.remaining;
    if (typeof msg.exhausted === 'boolean') this.exhausted = msg.exhausted;
    if ('currentPrize' in msg) this.currentPrize = Number.isInteger(msg.currentPrize) ? msg.currentPrize : null;
    if (typeof msg.prizesDone === 'boolean') this.prizesDone = msg.prizesDone;
  }

  applySnapshot(s) {
    this.snapshotReceived = true;
    if (s.code) this.code = s.code;
    this.role = s.role === 'host' ? 'host' : this.role === 'host' ? 'host' : 'viewer';
    this.phase = s.phase ?? null;
    this.interrupted = Number.isInteger(s.interrupted?.round) ? s.interrupted.round : null;
    this.beacon = beaconOf(s.beacon);
    this.config = s.config ?? null;
    this.remaining = s.remaining ?? null;
    this.exhausted = Boolean(s.exhausted);
    this.currentPrize = Number.isInteger(s.currentPrize) ? s.currentPrize : null;
    this.prizesDone = Boolean(s.prizesDone);
    this.round = s.round ?? null;
    this.commit = s.commit ?? null;
    this.plan = s.plan && typeof s.plan === 'object' ? s.plan : null;
    this.viewers = s.viewers ?? this.viewers;
    this.algorithm = s.algorithm ?? null;
    this.checkin = s.checkin && typeof s.checkin === 'object' ? s.checkin : null;
    learnNames(this.checkin?.names);
    if (typeof s.tick?.name === 'string') learnNames({ [s.tick.value]: s.tick.name });
    this.tick = s.tick === null || s.tick === undefined ? null
      : typeof s.tick === 'object' && 'value' in s.tick ? s.tick : { value: s.tick };
    this.rounds = [];
    this.results = [];
    this.olderRounds = Number.isInteger(s.olderRounds) ? s.olderRounds : 0;
    for (const entry of Array.isArray(s.rounds) ? s.rounds : []) {
      if (entry && typeof entry === 'object' && 'kind' in entry) {
        this.applyResult(entry, false); // an older server sending full records
        continue;
      }
      this.rounds.push({
        round: entry.round,
        prize: entry.prize ?? null,
        winners: Array.isArray(entry.winners) ? [...entry.winners] : [],
        // A long round is listed by its first winners and its count; the rest is paged (loadWinners).
        total: Number.isInteger(entry.winnerCount) ? entry.winnerCount : null,
        voided: Array.isArray(entry.voided) ? entry.voided.map((v) => ({ winner: v.winner, reason: v.reason ?? null })) : [],
      });
    }
    if (s.result && typeof s.result === 'object') {
      this.lastReveal = s.result;
      this.addResult(s.result);
    } else {
      this.lastReveal = null;
    }
    if (typeof s.contributed === 'number') {
      this.contributed = Math.max(this.contributed ?? 0, s.contributed);
    } else if (s.contributed === true) {
      const r = this.phase === 'rolling' || this.phase === 'stopping' ? this.round : s.result?.round;
      if (typeof r === 'number') this.contributed = Math.max(this.contributed ?? 0, r);
    }
    this.rememberAnnounced();
  }

  /**
   * The full settings (with the names the summary leaves out), or null while they are not
   * loaded for the current summary. A range without exclusions needs no download.
   */
  fullSettings() {
    const c = this.config;
    if (!c) return null;
    if (this.settings && this.settings.hash === c.hash) return this.settings.config;
    if (c.pool?.kind === 'range' && !c.excludeCount) return { ...c, exclude: [] };
    if (!('hash' in c)) return c; // a server before issue 18 sent everything
    return null;
  }

  /**
   * Fetches the full settings once per settings hash (GET /api/draws/<code>/config, gzipped;
   * the browser revalidates its copy by ETag). Resolves to the config object or null.
   */
  async loadSettings() {
    const hash = this.config?.hash;
    if (this.settings && this.settings.hash === hash) return this.settings.config;
    if (!this.settingsLoad || this.settingsLoad.hash !== hash) {
      const load = (async () => {
        try {
          const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/config`, { cache: 'no-cache' });
          if (!response.ok) return null;
          const tag = (response.headers.get('ETag') ?? '').replace(/^W\//, '').replace(/"/g, '');
          const config = await response.json();
          this.settings = { hash: tag || hash, config };
          this.changed('settings');
          return config;
        } catch {
          return null;
        } finally {
          if (this.settingsLoad === entry) this.settingsLoad = null;
        }
      })();
      const entry = { hash, promise: load };
      this.settingsLoad = entry;
    }
    return this.settingsLoad.promise;
  }

  /** Adds a result record to the known list and schedules its recheck. */
  addResult(result, session = null) {
    const id = resultId(result);
    if (this.results.some((r) => resultId(r) === id)) return false;
    this.results.push(result);
    if (contributedTo(result, this.mine)) this.contributed = Math.max(this.contributed ?? 0, result.round);
    if (!this.verification.has(id)) this.scheduleVerify(result, id, session);
    return true;
  }

  applyResult(result, live) {
    if (!this.addResult(result, live ? this.sessionBefore(result) : null)) return;
    let entry = this.rounds.find((e) => e.round === result.round);
    if (!entry) {
      entry = { round: result.round, prize: result.prize ?? null, winners: [], total: null, voided: [] };
      this.rounds.push(entry);
    }
    if (result.replaces) {
      const i = entry.winners.findIndex((w) => sameWinner(w, result.replaces.winner));
      if (i >= 0) entry.winners.splice(i, 1);
      if (!entry.voided.some((v) => sameWinner(v.winner, result.replaces.winner))) {
        const reason = result.voidReason
          ?? this.voidReasons.get(`${result.round}|${winnerText(result.replaces.winner)}`) ?? null;
        entry.voided.push({ winner: result.replaces.winner, reason });
      }
    }
    for (const w of result.winners ?? []) if (!entry.winners.some((x) => sameWinner(x, w))) entry.winners.push(w);
    if (live) {
      this.revealCount += 1;
      this.lastReveal = result;
      this.phase = 'revealed';
      this.tick = { value: result.winners?.[0] ?? null };
    }
  }

  rememberAnnounced() {
    // The latest commitment announced for a round is the one its draw must use
    // (a void's replacement consumes one and a fresh one follows for the same number).
    if (this.commit && typeof this.commit.round === 'number' && typeof this.commit.commitment === 'string') {
      this.announced.set(this.commit.round, this.commit.commitment);
    }
  }

  /** Records entropy this page sent in a hello. */
  addContribution(hex) {
    this.mine.push(hex);
    if (this.mine.length > 64) this.mine.shift();
  }

  /**
   * The session's winners before a live result, from the board as this page holds it (FAIRNESS
   * §3 rules 2–4, for verifyRound's `session`), or null when the board is not all here.
   */
  sessionBefore(result) {
    if (this.olderRounds > 0 || this.rounds.some((e) => this.winnerTotal(e) > e.winners.length)) return null;
    const voided = this.rounds.flatMap((e) => e.voided.map((v) => v.winner));
    if (result.replaces) voided.push(result.replaces.winner);
    const winners = [...this.rounds.flatMap((e) => e.winners), ...voided];
    const entry = this.rounds.find((e) => e.round === result.round);
    const roundWinners = result.replaces ? (entry?.winners ?? []).filter((w) => !sameWinner(w, result.replaces.winner)) : null;
    return { voided, winners, roundWinners };
  }

  scheduleVerify(result, id, session = null) {
    this.verification.set(id, { state: 'pending' });
    // Let the reveal paint first; the recheck takes a few milliseconds.
    setTimeout(() => {
      this.verify(result, session).then((outcome) => {
        this.verification.set(id, outcome);
        if (contributedTo(outcome.record ?? result, this.mine)) this.contributed = Math.max(this.contributed ?? 0, result.round);
        this.changed('verified');
      });
    }, 30);
  }

  async verify(result, session = null) {
    // A long history's `result` carries counts for the pool's long lists (`removedCount`).
    if (result.more || ['removed', 'pastWinners'].some((k) => result.pool && (k + 'Count') in result.pool)) {
      // A snapshot's summary of a long round (its first winners, its pool without the earlier
      // winners' positions): recheck the stored record itself, read from the export.
      let stored = (await this.fetchExport(false))?.records?.find((r) => r.hash === result.hash);
      if (!stored) stored = (await this.fetchExport(true))?.records?.find((r) => r.hash === result.hash);
      if (!stored) return { state: 'fail', reason: 'record not found in the export', record: result };
      return this.verify({ ...stored, type: 'result', contributors: result.contributors }, session);
    }
    let record = result;
    let entrants = null;
    const needsList = result.pool?.kind === 'list';
    // The current list is one download shared by every round drawn from it (the summary names
    // its hash); a round of an earlier list reads that list from the export instead.
    const current = this.config?.pool;
    if (needsList && (current?.entrantsHash === result.pool.entrants || Array.isArray(current?.entrants))) {
      // Thousands of phones verify the same reveal: spread their downloads over a few seconds.
      const count = current.count ?? 0;
      if (count > 10000 && !this.fullSettings()) await new Promise((r) => setTimeout(r, Math.random() * Math.min(10000, count / 10)));
      const settings = this.fullSettings() ?? await this.loadSettings();
      const list = settings?.pool?.entrants;
      if (Array.isArray(list) && entrantsHash(list) === result.pool.entrants) entrants = list;
    }
    if (!Array.isArray(result.contributions) || (needsList && !entrants)) {
      const exported = await this.fetchExport(false);
      let records = exported?.records ?? [];
      let stored = records.find((r) => r.hash === result.hash);
      if (!stored || (needsList && !records.some((r) => r.kind === 'entrants' && r.entrantsHash === result.pool.entrants))) {
        records = (await this.fetchExport(true))?.records ?? [];
        stored = records.find((r) => r.hash === result.hash);
      }
      if (stored) record = { ...stored, type: 'result' };
      // The whole record: a detailed list's tickets and groups are part of its hash.
      if (needsList) entrants = records.find((r) => r.kind === 'entrants' && r.entrantsHash === result.pool.entrants) ?? null;
    }
    // A replacement uses the commitment pending at the void, not the round's first one.
    const published = result.replaces ? null : this.announced.get(result.round) ?? null;
    // A beacon-sealed draw: the round's winners come from its `beacon` lock and drand value, read
    // with the round from the export (FAIRNESS §13); a round without them was drawn from its seed.
    let beacon = null;
    if (this.config?.beacon && !result.replaces) {
      const records = (await this.fetchExport(true))?.records ?? [];
      const at = records.findIndex((r) => r.hash === result.hash);
      const value = at > 0 && records[at - 1].kind === 'beaconValue' ? records[at - 1] : null;
      const lock = value ? records.find((r) => r.kind === 'beacon' && r.hash === value.lock) ?? null : null;
      if (value && lock) {
        beacon = { lock, value };
        this.sealedBy.set(result.round, value.beaconRound);
      }
    }
    const outcome = verifyRound(record, { entrants, published, session, beacon });
    return outcome.ok ? { state: 'ok', record } : { state: 'fail', reason: outcome.reason, record };
  }

  async fetchExport(fresh) {
    if (this.exportCache && !fresh) return this.exportCache;
    try {
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/export.json`, { cache: 'no-store' });
      this.exportCache = response.ok ? await response.json() : null;
    } catch {
      this.exportCache = null;
    }
    return this.exportCache;
  }

  /** Verification outcome of a result: { state: 'pending' | 'ok' | 'fail', reason? }. */
  verificationOf(result) {
    return this.verification.get(resultId(result)) ?? { state: 'pending' };
  }

  /**
   * The board by round, newest first: [{ round, prize, winners: [{ value, voided,
   * reason, replaces }], results }]. Voided winners stay listed, marked, after the current ones.
   */
  board() {
    return [...this.rounds].sort((a, b) => b.round - a.round).map((entry) => {
      const results = this.results.filter((r) => r.round === entry.round);
      const replacementOf = (w) => results.find((r) => r.replaces && (r.winners ?? []).some((x) => sameWinner(x, w)))?.replaces.winner;
      return {
        round: entry.round,
        prize: entry.prize,
        total: this.winnerTotal(entry),
        results,
        winners: [
          ...entry.winners.map((w) => ({ value: w, voided: false, round: entry.round, replaces: replacementOf(w) })),
          ...entry.voided.map((v) => ({ value: v.winner, voided: true, reason: v.reason, round: entry.round })),
        ],
      };
    });
  }

  /** How many current winners round `round` has (the server's count when it listed only the first). */
  winnerTotal(entry) {
    return Math.max(entry?.total ?? 0, entry?.winners?.length ?? 0);
  }

  /** How many winners of `round` the lists show now (the first LIST_FIRST until "show more"). */
  listLimit(round) {
    return this.listLimits.get(round) ?? LIST_FIRST;
  }

  /** Shows `step` more winners of `round` in the lists, fetching them when this page has fewer. */
  async showMore(round, step = LIST_STEP) {
    const limit = this.listLimit(round) + step;
    this.listLimits.set(round, limit);
    this.changed('winners');
    await this.loadWinners(round, limit);
  }

  /**
   * Makes sure this page holds the first `upTo` current winners of `round` (or all it has), reading
   * the missing ones from GET /api/draws/<code>/rounds/<round>/winners. Resolves to whether it did.
   */
  async loadWinners(round, upTo) {
    const entry = this.rounds.find((e) => e.round === round);
    if (!entry) return false;
    const want = Math.min(upTo, this.winnerTotal(entry));
    while (entry.winners.length < want) {
      const offset = entry.winners.length;
      const key = `${round}|${offset}`;
      this.winnerLoads ??= new Map();
      if (!this.winnerLoads.has(key)) {
        const limit = Math.min(1000, Math.max(PAGE_SIZE, want - offset));
        this.winnerLoads.set(key, this.fetchWinners(round, offset, limit).finally(() => this.winnerLoads.delete(key)));
      }
      const page = await this.winnerLoads.get(key);
      if (!page || !Array.isArray(page.winners) || page.winners.length === 0) return false;
      if (!this.rounds.includes(entry)) return false; // cleared meanwhile
      // Another caller waiting for the same page has added it already.
      if (entry.winners.length !== offset) continue;
      learnNames(page.names);
      const known = new Set(entry.winners.map(winnerText));
      const before = entry.winners.length;
      for (const w of page.winners) if (!known.has(winnerText(w))) { known.add(winnerText(w)); entry.winners.push(w); }
      if (Number.isInteger(page.total)) entry.total = page.total;
      // Nothing new (the round changed under this page's count): keep what it has, ask no more.
      if (entry.winners.length === before) entry.total = entry.winners.length;
      this.changed('winners');
      if (entry.winners.length === before) return false;
    }
    return true;
  }

  /**
   * Reads the board's earlier rounds the snapshot left out (GET /api/draws/<code>/rounds, newest
   * first, after the ones this page holds), as summaries. Resolves to whether it read any.
   */
  async loadOlderRounds() {
    if (this.olderLoad) return this.olderLoad;
    const load = (async () => {
      try {
        const url = `/api/draws/${encodeURIComponent(this.code)}/rounds?offset=${this.rounds.length}&limit=50`;
        const response = await fetch(url, { cache: 'no-cache', headers: this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {} });
        if (!response.ok) return false;
        const page = await response.json();
        learnNames(page.names);
        for (const entry of Array.isArray(page.rounds) ? page.rounds : []) {
          if (this.rounds.some((e) => e.round === entry.round)) continue;
          this.rounds.push({
            round: entry.round, prize: entry.prize ?? null, winners: Array.isArray(entry.winners) ? [...entry.winners] : [],
            total: Number.isInteger(entry.winnerCount) ? entry.winnerCount : null,
            voided: Array.isArray(entry.voided) ? entry.voided.map((v) => ({ winner: v.winner, reason: v.reason ?? null })) : [],
          });
        }
        if (Number.isInteger(page.total)) this.olderRounds = Math.max(0, page.total - this.rounds.length);
        this.changed('winners');
        return true;
      } catch {
        return false;
      } finally {
        this.olderLoad = null;
      }
    })();
    this.olderLoad = load;
    return load;
  }

  async fetchWinners(round, offset, limit) {
    const url = `/api/draws/${encodeURIComponent(this.code)}/rounds/${round}/winners?offset=${offset}&limit=${limit}`;
    try {
      const response = await fetch(url, { cache: 'no-cache', headers: this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {} });
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  }

  /** The round entry to feature: the newest on the board, or null. */
  currentRound() {
    return this.board()[0] ?? null;
  }

  changed(type) {
    // The draw's name masking holds for everything the page shows from here on.
    setMask(this.config?.mask);
    this.dispatchEvent(new CustomEvent('change', { detail: type }));
  }
}

/** Winners a list shows of a round at first, and how many more each "show more" adds. */
export const LIST_FIRST = 20;
const LIST_STEP = 100;
/** Winners read per request when a page needs more than it holds. */
const PAGE_SIZE = 200;

function resultId(r) {
  return r.hash ?? `${r.round}:${r.index ?? ''}:${(r.winners ?? []).map(winnerText).join(',')}`;
}

/**
 * Connects a page to /ws/draw/<code>: sends hello with fresh entropy (and auth
 * when a host key is known) on every (re)connect, feeds messages to `room`,
 * and returns a `command(type, fields)` for host commands (sequenced, queued
 * offline, resent until acknowledged).
 */
export function connectRoom(room, { hostKey = null, onAuthFailed = () => {} } = {}) {
  let key = hostKey;
  room.apiKey = key;
  const seqKey = `tombola.seq.${room.code}`;
  let seq = 0;
  try { seq = Number(sessionStorage.getItem(seqKey)) || 0; } catch { seq = 0; }
  // Start above anything an earlier tab of this draw could have used.
  if (seq === 0) seq = Date.now();

  const hello = () => {
    const entropy = randomHex(16);
    room.addContribution(entropy);
    return { type: 'hello', entropy };
  };
  const socket = new Socket(`/ws/draw/${encodeURIComponent(room.code)}`, {
    greeting: () => (key ? [hello(), { type: 'auth', key }] : [hello()]),
  });

  socket.addEventListener('message', ({ detail: msg }) => {
    if (msg.type === 'ack') socket.acknowledge(msg.seq);
    if (msg.type === 'error') {
      if (msg.code === 'bad_key') {
        key = null;
        room.apiKey = null;
        room.role = 'viewer';
        onAuthFailed(msg.code);
      } else if (typeof msg.seq === 'number') {
        socket.reject(msg.seq);
      } else if (socket.pending.length && msg.code !== 'rate_limited') {
        socket.rejectOldest();
      }
    }
    room.apply(msg);
    // Every new round mixes in fresh entropy from each connected page.
    if (msg.type === 'result' && socket.isOpen()) socket.send(hello(), { queue: false });
  });
  socket.addEventListener('status', ({ detail }) => { room.connection = detail; room.changed('connection'); });
  socket.addEventListener('queue', ({ detail }) => { room.backlog = detail; room.changed('queue'); });

  const command = (type, fields = {}) => {
    seq += 1;
    try { sessionStorage.setItem(seqKey, String(seq)); } catch { /* memory only */ }
    socket.send({ type, seq, ...fields });
    return seq;
  };
  return { socket, command, hasKey: () => key !== null };
}

/** A `beacon` message or `state.beacon` (docs/PROTOCOL.md, "Beacon-sealed rounds"), or null. */
function beaconOf(msg) {
  if (!msg || !Number.isInteger(msg.round) || !Number.isInteger(msg.beaconRound)) return null;
  if (!['waiting', 'sealed', 'void'].includes(msg.status)) return null;
  return { round: msg.round, beaconRound: msg.beaconRound, status: msg.status, reason: typeof msg.reason === 'string' ? msg.reason : null };
}
