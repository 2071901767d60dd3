// A draw room as the pages see it: the server's snapshot plus the live
// broadcasts, the page's own entropy contributions, and each revealed round's
// recheck outcome. Shared by the host, screen and watch pages' stores.
//
// The store only holds state: it changes on messages and on answers, and never fetches, runs a
// timer or touches the page. What it needs from the network (the full settings, a round's
// winners, older rounds, a recheck) it asks for with a `need` event; room-link.js answers.

import { setMask } from './mask.js';
import { setBooks } from './books.js';
import { contributedTo } from './verify.js';
import { Witness } from './witness.js';

/**
 * Names of checked-in entrants by public id, as far as this page may know them (the board's
 * winners when the host shows names; every winner on the host page). One page shows one draw.
 */
export const entrantNames = new Map();

/** A private draw's names by public id, from the host's roster (GET …/private): the host page only.
 * They come before `entrantNames`, which the `winners` message fills with masked names. */
export const hostNames = new Map();

/** A winner value as text: numbers and names as they are, objects by name/value; a checked-in
 * entrant's public id as its name when known. */
export function winnerText(w) {
  if (w === null || w === undefined) return '';
  if (typeof w === 'object') return String(w.name ?? w.value ?? w.label ?? JSON.stringify(w));
  return hostNames.get(w) ?? entrantNames.get(w) ?? privateTag(w) ?? String(w);
}

const PRIVATE_ID = /^#[0-9a-f]{64}$/;

/** A private draw's public id (docs/FAIRNESS.md §22, `#` and 64 hex digits) as a screen shows an
 * entrant whose name it does not know: its first 6 digits, `#A1B2C3`. Else null. */
export function privateTag(w) {
  return typeof w === 'string' && PRIVATE_ID.test(w) ? `#${w.slice(1, 7).toUpperCase()}` : null;
}

function learnNames(names) {
  if (!names || typeof names !== 'object') return;
  for (const [id, name] of Object.entries(names)) if (typeof name === 'string') entrantNames.set(id, name);
}

function sameWinner(a, b) {
  return winnerText(a) === winnerText(b);
}

/** `state.claims` or a `claims` message with each open window's end on this page's clock. */
function claimsOf(msg) {
  if (!msg || typeof msg !== 'object' || !Array.isArray(msg.items)) return null;
  const now = Date.now();
  const items = msg.items.map((item) => ({
    winner: item.winner, status: item.status, to: item.to ?? null, name: item.name ?? null,
    until: item.status === 'open' && Number.isFinite(item.left) ? now + item.left : null,
  }));
  for (const item of items) if (typeof item.name === 'string') learnNames({ [item.winner]: item.name });
  return { round: msg.round, seconds: msg.seconds, open: Boolean(msg.open), items };
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
    this.resumed = null;           // the round a server restart carried on (the same winners), until the next Start
    this.beacon = null;            // a beacon-sealed round: { round, beaconRound, status: waiting|sealed|void, reason, lock, index, prev, due, retryAt }
    this.sealedBy = new Map();     // round → the drand round that sealed it (read with its records from the export)
    this.relayChecks = new Map();  // round (a replacement: its hash) → this device's own look at its drand round: { beaconRound, quicknet, chain, state: checking|match|mismatch|unreachable, relay }
    this.checkin = null;           // check-in: { open, count, fields, presence, publicNames, names, me } or null
    this.winnerPresence = null;    // host: { round, winners: [{ id, name, connected }] }
    this.witness = new Witness(code); // the record heads this page saw, and any contradiction (witness.js)
    this.witnessReport = null;     // host: { count, reason, heads } relayed from pages that saw another history
    this.claims = null;            // claims (#26): { round, seconds, open, items: [{ winner, status, until, to }] }
    this.signoffs = [];            // observers' sign-offs of this session (#41): [{ round, statement, observer, observerId, key }]
    this.lockSigned = false;       // a sign-off stands for the lock of the round about to start (four eyes)
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
    // A reverse raffle's rounds draw people out (FAIRNESS §21): its card says who is still in.
    if (!id || this.config?.reverse === true) return null;
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
      case 'lock':
        // Start stored the round's lock: the chain's head from now on (FAIRNESS §14).
        this.witnessed(msg);
        break;
      case 'phase':
        // A new Start (not the resumed round rolling on) ends the "resumed" notice.
        if (msg.phase === 'rolling' && this.phase !== 'rolling') this.resumed = null;
        this.phase = msg.phase;
        if (msg.phase === 'rolling') this.interrupted = null;
        if (msg.phase === 'rolling' && this.round !== null) this.rememberAnnounced();
        break;
      case 'commit':
        this.commit = { round: msg.round, commitment: msg.commitment, poolHash: msg.poolHash };
        this.lockSigned = false; // a new lock: its sign-off is still to come (docs/PROTOCOL.md, "Sign-offs")
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
      case 'beacon': this.beacon = beaconOf(msg); this.witnessBeacon(); break;
      case 'entrants': {
        // The count (and after a host's change, the settings too: fields, presence, publicNames).
        const { type, ...rest } = msg;
        this.checkin = { fields: [], names: {}, me: null, ...(this.checkin ?? {}), ...rest };
        this.lockSigned = false;
        break;
      }
      case 'winners': learnNames(msg.names); break;
      case 'witness': this.witnessReport = { count: msg.count, reason: msg.reason, heads: msg.heads ?? [] }; break;
      case 'claims': this.claims = claimsOf(msg); break;
      // This phone's prize vouchers (issue 45), sent to it alone; kept where the snapshot puts them.
      case 'voucher': if (this.checkin?.me) this.checkin.me = { ...this.checkin.me, vouchers: msg.vouchers ?? [] }; break;
      // A prize was handed over (no code, no name): host pages reread their list.
      case 'handover': this.lastHandover = { round: msg.round, winner: msg.winner, at: msg.at, by: msg.by, handedOver: msg.handedOver }; break;
      case 'signoff':
        this.signoffs = Array.isArray(msg.signoffs) ? msg.signoffs : [];
        this.lockSigned = msg.lockSigned === true;
        break;
      case 'pass': this.applyPass(msg); break;
      case 'winnerPresence':
        this.winnerPresence = msg;
        for (const w of msg.winners ?? []) if (typeof w.name === 'string') entrantNames.set(w.id, w.name);
        break;
      case 'cleared':
        this.signoffs = [];
        this.lockSigned = false;
        this.rounds = [];
        this.olderRounds = 0;
        this.listLimits.clear();
        this.results = [];
        this.lastReveal = null;
        this.tick = null;
        this.claims = null;
        // Round numbers start again at 1: what was learnt about the old rounds' beacons is not theirs.
        this.sealedBy.clear();
        this.relayChecks.clear();
        this.clearedAt = Date.now();
        break;
      case 'role': this.role = msg.role === 'host' ? 'host' : 'viewer'; break;
      case 'config':
        if (msg.config) this.config = msg.config;
        this.lockSigned = false;
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
    this.resumed = Number.isInteger(s.resumed?.round) ? s.resumed.round : null;
    // A restart cut a newer round short: the server is back at the last reveal, but the stage is
    // about the interrupted round now, ready to draw again, not the previous round's winners
    // (issue 39 item 11).
    if (this.phase === 'revealed' && this.interrupted !== null && this.interrupted > (s.result?.round ?? 0)) this.phase = 'idle';
    this.beacon = beaconOf(s.beacon);
    this.witnessBeacon();
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
    this.claims = claimsOf(s.claims);
    this.signoffs = Array.isArray(s.signoffs) ? s.signoffs : [];
    this.lockSigned = s.lockSigned === true;
    learnNames(this.checkin?.names);
    // A private list's winners (masked by the server; the host's real): docs/FAIRNESS.md §22.
    learnNames(s.names);
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
      this.witnessed(s.result);
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
   * The full settings once per settings hash (room-link.js fetches them). Resolves to the
   * config object or null.
   */
  loadSettings() {
    return this.ask('settings');
  }

  /** The full settings for the summary whose hash is `hash` (the connection layer's answer). */
  applySettings(hash, config) {
    this.settings = { hash, config };
    this.changed('settings');
  }

  /** Adds a result record to the known list and schedules its recheck. */
  addResult(result, session = null) {
    const id = resultId(result);
    if (this.results.some((r) => resultId(r) === id)) return false;
    this.results.push(result);
    if (contributedTo(result, this.mine)) this.contributed = Math.max(this.contributed ?? 0, result.round);
    if (!this.verification.has(id)) {
      this.verification.set(id, { state: 'pending' });
      this.ask('verify', { result, id, session });
    }
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
      this.witnessed(result);
      this.revealCount += 1;
      this.lastReveal = result;
      this.phase = 'revealed';
      this.tick = { value: result.winners?.[0] ?? null };
    }
  }

  /** A `pass` (#26): the unclaimed winner is voided with the reason, the alternate takes the place. */
  applyPass(msg) {
    const entry = this.rounds.find((e) => e.round === msg.round);
    if (!entry) return;
    if (msg.alternate !== null && typeof msg.name === 'string') learnNames({ [msg.alternate]: msg.name });
    const i = entry.winners.findIndex((w) => sameWinner(w, msg.winner));
    if (i >= 0 && msg.alternate !== null) entry.winners[i] = msg.alternate;
    else if (i >= 0) entry.winners.splice(i, 1);
    if (!entry.voided.some((v) => sameWinner(v.winner, msg.winner))) entry.voided.push({ winner: msg.winner, reason: msg.reason ?? null });
    // The stage shows the alternate where it showed the unclaimed winner.
    if (msg.alternate !== null && sameWinner(this.tick?.value, msg.winner)) this.tick = { value: msg.alternate };
  }

  /** This device's claim window in the latest claim round (#26), or null. */
  myClaim() {
    const id = this.me?.id;
    if (!id || !this.claims) return null;
    return [...this.claims.items].reverse().find((item) => item.winner === id) ?? null;
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

  /** A recheck's outcome for the result `result` known as `id` (the connection layer runs it). */
  applyVerification(id, result, outcome) {
    this.verification.set(id, outcome);
    if (contributedTo(outcome.record ?? result, this.mine)) this.contributed = Math.max(this.contributed ?? 0, result.round);
    this.changed('verified');
  }

  /** What this device's own fetch of a sealed round's drand value found (the connection layer asks). */
  relayChecked(round, check) {
    this.relayChecks.set(round, check);
    this.changed('verified');
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

  /** Shows `step` more winners of `round` in the lists, asking for them when this page has fewer. */
  showMore(round, step = LIST_STEP) {
    const limit = this.listLimit(round) + step;
    this.listLimits.set(round, limit);
    this.changed('winners');
    return this.loadWinners(round, limit);
  }

  /**
   * Makes sure this page holds the first `upTo` current winners of `round` (or all it has); the
   * connection layer reads the missing ones. Resolves to whether it did.
   */
  loadWinners(round, upTo) {
    return this.ask('winners', { round, upTo });
  }

  /** Reads the board's earlier rounds the snapshot left out. Resolves to whether it read any. */
  loadOlderRounds() {
    return this.ask('olderRounds');
  }

  /**
   * Adds a page of round `entry`'s winners (GET …/rounds/<round>/winners, read after the ones this
   * page holds). Returns whether any was new; with none, the round counts only those it has.
   */
  applyWinnersPage(entry, page) {
    learnNames(page.names);
    const known = new Set(entry.winners.map(winnerText));
    const before = entry.winners.length;
    for (const w of page.winners) if (!known.has(winnerText(w))) { known.add(winnerText(w)); entry.winners.push(w); }
    if (Number.isInteger(page.total)) entry.total = page.total;
    // Nothing new (the round changed under this page's count): keep what it has, ask no more.
    if (entry.winners.length === before) entry.total = entry.winners.length;
    this.changed('winners');
    return entry.winners.length !== before;
  }

  /** Adds a page of the board's earlier rounds (GET …/rounds, newest first) as summaries. */
  applyOlderRounds(page) {
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
  }

  /** A record head the server shows (FAIRNESS §14): what the witness made of it goes to the connection layer. */
  witnessed(record) {
    const verdict = this.witness.observe(record, Date.now());
    if (verdict === 'added' || verdict === 'check' || verdict === 'alarm') this.ask('witness', { verdict });
  }

  /** A sealed round's `beacon` record, shown while it waits for R (FAIRNESS §13 step 2): the
   * witness keeps it as a head, with R's due time, so a chain where that record differs later (a
   * lock rewritten once R was public) raises its alarm like a rewritten round. */
  witnessBeacon() {
    const b = this.beacon;
    if (b?.status === 'waiting' && b.lock && Number.isInteger(b.index)) {
      this.witnessed({ index: b.index, hash: b.lock, prev: b.prev, round: b.round, beaconRound: b.beaconRound, due: b.due });
    }
  }

  /** The export's records (oldest first) settle the heads the witness could not link itself. */
  settleWitness(records) {
    const verdict = this.witness.settle(records, Date.now());
    this.ask('witness', { verdict: verdict === 'alarm' ? 'alarm' : 'settled' });
    this.changed('witness');
  }

  /**
   * Asks the page's connection layer (room-link.js) for something from the network: a `need`
   * event it answers synchronously with a promise. Resolves to null when nothing answers.
   */
  ask(kind, fields = {}) {
    const need = { kind, ...fields, answer: null };
    this.dispatchEvent(new CustomEvent('need', { detail: need }));
    return need.answer ?? Promise.resolve(null);
  }

  /** The round entry to feature: the newest on the board, or null. */
  currentRound() {
    return this.board()[0] ?? null;
  }

  changed(type) {
    // The draw's name masking holds for everything the page shows from here on.
    setMask(this.config?.mask);
    // A ticket-book pool's colours, for every ticket the page shows (books.js).
    setBooks(this.config?.pool?.kind === 'books' ? this.config.pool.books : null);
    this.dispatchEvent(new CustomEvent('change', { detail: type }));
  }
}

/** Winners a list shows of a round at first, and how many more each "show more" adds. */
export const LIST_FIRST = 20;
export const LIST_STEP = 100;
export function resultId(r) {
  return r.hash ?? `${r.round}:${r.index ?? ''}:${(r.winners ?? []).map(winnerText).join(',')}`;
}
/** A `beacon` message or `state.beacon` (docs/PROTOCOL.md, "Beacon-sealed rounds"), or null. */
function beaconOf(msg) {
  if (!msg || !Number.isInteger(msg.round) || !Number.isInteger(msg.beaconRound)) return null;
  if (!['waiting', 'sealed', 'void'].includes(msg.status)) return null;
  return {
    round: msg.round, beaconRound: msg.beaconRound, status: msg.status, reason: typeof msg.reason === 'string' ? msg.reason : null,
    // While waiting: the `beacon` record's hash (the witness keeps it, FAIRNESS §13/§14) and the next try.
    lock: typeof msg.lock === 'string' ? msg.lock : null, retryAt: Number.isInteger(msg.retryAt) ? msg.retryAt : null,
    index: Number.isInteger(msg.index) ? msg.index : null, prev: typeof msg.prev === 'string' ? msg.prev : null,
    due: Number.isInteger(msg.due) ? msg.due : null, replacement: msg.replacement === true,
  };
}
