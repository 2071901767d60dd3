// A draw room's connection to the server: the WebSocket (hello with fresh entropy, host
// commands) and the REST reads the store asks for (the full settings, a round's winners, older
// rounds, the export a recheck needs). It runs the timers too (a recheck waits for the reveal
// to paint). The store (room.js) only holds state; this layer feeds it messages and answers.

import { Socket } from './socket.js';
import { downloadBlob, randomHex } from './dom.js';
import { entrantsHash, verifyRound } from './verify.js';
import { hostNames } from './room.js';

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

function witnessKey(code) {
  return `tombola.witness.${code}`;
}

function readWitness(code) {
  try { return JSON.parse(localStorage.getItem(witnessKey(code)) ?? 'null'); } catch { return null; }
}

/** Winners read per request when a page needs more than it holds. */
const PAGE_SIZE = 200;
/** A page reads the export for its witness at most this often (ms) while rounds come. */
const WITNESS_EVERY = 30000;

/** drand quicknet's chain hash (docs/FAIRNESS.md §13) and the League of Entropy's public relays. */
const QUICKNET = '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971';
const PUBLIC_RELAYS = ['https://api.drand.sh', 'https://api2.drand.sh', 'https://api3.drand.sh', 'https://drand.cloudflare.com'];
/** How long a page waits for one relay's answer (ms). */
const RELAY_TIMEOUT = 5000;

/** Answers a store's `need` events with REST reads and rechecks, and feeds the answers back. */
export class RoomLink {
  constructor(room) {
    this.room = room;
    this.apiKey = null;           // the host key for REST reads that show names (host pages only)
    this.exportCache = null;
    this.settingsLoad = null;
    this.winnerLoads = new Map();
    this.olderLoad = null;
    this.socket = null;           // set by connectRoom: witness reports go over it
    this.witnessTimer = null;
    this.witnessReadAt = 0;
    room.witness.restore(readWitness(room.code));
    room.addEventListener('need', ({ detail: need }) => { need.answer = this.answer(need); });
  }

  answer(need) {
    switch (need.kind) {
      case 'settings': return this.loadSettings();
      case 'winners': return this.loadWinners(need.round, need.upTo);
      case 'olderRounds': return this.loadOlderRounds();
      case 'verify': this.scheduleVerify(need.result, need.id, need.session); return null;
      case 'witness': this.witnessed(need.verdict); return null;
      default: return null;
    }
  }

  get code() {
    return encodeURIComponent(this.room.code);
  }

  headers() {
    return this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {};
  }

  /**
   * Fetches the full settings once per settings hash (GET /api/draws/<code>/config, gzipped;
   * the browser revalidates its copy by ETag). Resolves to the config object or null.
   */
  loadSettings() {
    const room = this.room;
    const hash = room.config?.hash;
    if (room.settings && room.settings.hash === hash) return Promise.resolve(room.settings.config);
    if (!this.settingsLoad || this.settingsLoad.hash !== hash) {
      const load = (async () => {
        try {
          // A private draw's host reads its own settings (the names) and the roster (docs/FAIRNESS.md §22).
          if (room.config?.private === true && this.apiKey) return await this.loadPrivateSettings(hash);
          const response = await fetch(`/api/draws/${this.code}/config`, { cache: 'no-cache' });
          if (!response.ok) return null;
          const tag = (response.headers.get('ETag') ?? '').replace(/^W\//, '').replace(/"/g, '');
          const config = await response.json();
          room.applySettings(tag || hash, config);
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

  /** The host's roster of a private draw: every public id's name (`hostNames`) and the settings with names. */
  async loadPrivateSettings(hash) {
    const response = await fetch(`/api/draws/${this.code}/private`, { cache: 'no-store', headers: this.headers() });
    if (!response.ok) return null;
    const body = await response.json();
    for (const e of body.entrants ?? []) if (typeof e.id === 'string' && typeof e.name === 'string') hostNames.set(e.id, e.name);
    this.room.applySettings(hash, body.config);
    return body.config;
  }

  scheduleVerify(result, id, session = null) {
    // Let the reveal paint first; the recheck takes a few milliseconds.
    setTimeout(() => {
      this.verify(result, session).then((outcome) => this.room.applyVerification(id, result, outcome));
    }, 30);
  }

  async verify(result, session = null) {
    const room = this.room;
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
    const current = room.config?.pool;
    if (needsList && (current?.entrantsHash === result.pool.entrants || Array.isArray(current?.entrants))) {
      // Thousands of phones verify the same reveal: spread their downloads over a few seconds.
      const count = current.count ?? 0;
      if (count > 10000 && !room.fullSettings()) await new Promise((r) => setTimeout(r, Math.random() * Math.min(10000, count / 10)));
      const settings = room.fullSettings() ?? await this.loadSettings();
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
    const published = result.replaces ? null : room.announced.get(result.round) ?? null;
    // A beacon-sealed draw: the round's winners come from its `beacon` lock and drand value, read
    // with the round from the export (FAIRNESS §13); a round without them was drawn from its seed.
    let beacon = null;
    if (room.config?.beacon) {
      const records = (await this.fetchExport(true))?.records ?? [];
      const at = records.findIndex((r) => r.hash === result.hash);
      const value = at > 0 && records[at - 1].kind === 'beaconValue' ? records[at - 1] : null;
      const lock = value ? records.find((r) => r.kind === 'beacon' && r.hash === value.lock) ?? null : null;
      if (value && lock) {
        beacon = { lock, value };
        // A void's replacement is sealed by a drand round of its own (§13, "Voids"): known by its hash.
        const key = result.replaces ? result.hash : result.round;
        room.sealedBy.set(key, value.beaconRound);
        this.checkRelay(key, lock, value);
      }
    }
    const outcome = verifyRound(record, { entrants, published, session, beacon });
    return outcome.ok ? { state: 'ok', record } : { state: 'fail', reason: outcome.reason, record };
  }

  /**
   * FAIRNESS §13: this device asks a public relay for drand round R itself (CORS is open there)
   * and compares its value with the round's `beaconValue` record: "matches", a loud warning when
   * it differs, or "not compared" when no relay answered. For quicknet it asks the League of
   * Entropy's relays first (not only those the server names); for another chain, the lock's
   * relays, and the page says the chain is not quicknet. Once per round; spread over a few
   * seconds when thousands of phones ask at once.
   */
  async checkRelay(round, lock, value) {
    const room = this.room;
    if (room.relayChecks.has(round)) return;
    const quicknet = lock.chain?.hash === QUICKNET;
    const check = { beaconRound: value.beaconRound, quicknet, chain: String(lock.chain?.hash ?? ''), state: 'checking', relay: null };
    room.relayChecked(round, check);
    const named = (Array.isArray(lock.relays) ? lock.relays : []).filter((r) => typeof r === 'string' && /^https?:\/\//.test(r));
    const relays = quicknet ? [...shuffled(PUBLIC_RELAYS), ...named.filter((r) => !PUBLIC_RELAYS.includes(r.replace(/\/+$/, '')))] : named;
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(3000, (room.viewers ?? 0) / 2)));
    for (const relay of relays) {
      const got = await fetchBeaconRound(relay, check.chain, value.beaconRound);
      if (!got) continue;
      const same = got.round === value.beaconRound && got.randomness === value.randomness && got.signature === value.signature;
      return room.relayChecked(round, { ...check, state: same ? 'match' : 'mismatch', relay: hostOf(relay) });
    }
    room.relayChecked(round, { ...check, state: 'unreachable' });
  }

  async fetchExport(fresh) {
    if (this.exportCache && !fresh) return this.exportCache;
    try {
      const response = await fetch(`/api/draws/${this.code}/export.json`, { cache: 'no-store' });
      this.exportCache = response.ok ? await response.json() : null;
    } catch {
      this.exportCache = null;
    }
    return this.exportCache;
  }

  /**
   * Keeps the witness in localStorage; reads the export for heads it could not link (spread over
   * a few seconds for thousands of phones, at most every WITNESS_EVERY); reports an alarm.
   */
  witnessed(verdict) {
    const witness = this.room.witness;
    try { localStorage.setItem(witnessKey(this.room.code), JSON.stringify(witness)); } catch { /* memory only */ }
    if (verdict === 'alarm') this.report();
    if (witness.pending.length === 0 || this.witnessTimer || witness.alarm) return;
    const spread = Math.min(10000, Math.max(200, (this.room.viewers ?? 0) * 2));
    const wait = Math.max(Math.random() * spread, WITNESS_EVERY - (Date.now() - this.witnessReadAt));
    this.witnessTimer = setTimeout(async () => {
      this.witnessReadAt = Date.now();
      const exported = await this.fetchChainFrom(witness.needsFrom());
      this.witnessTimer = null;
      if (Array.isArray(exported?.records)) this.room.settleWitness(exported.records);
      else this.witnessed('check'); // no answer: try again later
    }, wait);
  }

  /** The draw's records from index `from` on (GET …/export.json?from=, a few records a round), or null. */
  async fetchChainFrom(from) {
    try {
      const response = await fetch(`/api/draws/${this.code}/export.json?from=${from}`, { cache: 'no-store' });
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  }

  /** Tells the server (for the host pages) that this page saw another history. */
  report() {
    const report = this.room.witness.report();
    if (report && this.socket?.isOpen()) this.socket.send(report, { queue: false });
  }

  /** What this page saw, as a JSON download (for a dispute). */
  exportWitness() {
    const body = JSON.stringify(this.room.witness.exported(Date.now(), location.origin), null, 2);
    downloadBlob(new Blob([body], { type: 'application/json' }), `tombola-${this.room.code}-witness.json`);
  }

  /**
   * Makes sure the room holds the first `upTo` current winners of `round` (or all it has), reading
   * the missing ones from GET /api/draws/<code>/rounds/<round>/winners. Resolves to whether it did.
   */
  async loadWinners(round, upTo) {
    const room = this.room;
    const entry = room.rounds.find((e) => e.round === round);
    if (!entry) return false;
    const want = Math.min(upTo, room.winnerTotal(entry));
    while (entry.winners.length < want) {
      const offset = entry.winners.length;
      const key = `${round}|${offset}`;
      if (!this.winnerLoads.has(key)) {
        const limit = Math.min(1000, Math.max(PAGE_SIZE, want - offset));
        this.winnerLoads.set(key, this.fetchWinners(round, offset, limit).finally(() => this.winnerLoads.delete(key)));
      }
      const page = await this.winnerLoads.get(key);
      if (!page || !Array.isArray(page.winners) || page.winners.length === 0) return false;
      if (!room.rounds.includes(entry)) return false; // cleared meanwhile
      // Another caller waiting for the same page has added it already.
      if (entry.winners.length !== offset) continue;
      if (!room.applyWinnersPage(entry, page)) return false;
    }
    return true;
  }

  async fetchWinners(round, offset, limit) {
    const url = `/api/draws/${this.code}/rounds/${round}/winners?offset=${offset}&limit=${limit}`;
    try {
      const response = await fetch(url, { cache: 'no-cache', headers: this.headers() });
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  }

  /**
   * Reads the board's earlier rounds the snapshot left out (GET /api/draws/<code>/rounds, newest
   * first, after the ones the room holds), as summaries. Resolves to whether it read any.
   */
  loadOlderRounds() {
    if (this.olderLoad) return this.olderLoad;
    const load = (async () => {
      try {
        const url = `/api/draws/${this.code}/rounds?offset=${this.room.rounds.length}&limit=50`;
        const response = await fetch(url, { cache: 'no-cache', headers: this.headers() });
        if (!response.ok) return false;
        this.room.applyOlderRounds(await response.json());
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
}

/**
 * Connects a page to /ws/draw/<code>: sends hello with fresh entropy (and auth
 * when a host key is known) on every (re)connect, feeds messages to `room`,
 * answers its `need`s, and returns a `command(type, fields)` for host commands
 * (sequenced, queued offline, resent until acknowledged).
 */
export function connectRoom(room, { hostKey = null, onAuthFailed = () => {} } = {}) {
  const link = new RoomLink(room);
  let key = hostKey;
  link.apiKey = key;
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
  // A page that saw the history change says so again on every (re)connect (the count is of reports).
  const witnessReport = () => { const r = room.witness.report(); return r ? [r] : []; };
  const socket = new Socket(`/ws/draw/${encodeURIComponent(room.code)}`, {
    greeting: () => [...(key ? [hello(), { type: 'auth', key }] : [hello()]), ...witnessReport()],
  });
  link.socket = socket;

  socket.addEventListener('message', ({ detail: msg }) => {
    if (msg.type === 'ack') socket.acknowledge(msg.seq);
    if (msg.type === 'error') {
      if (msg.code === 'bad_key') {
        key = null;
        link.apiKey = null;
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
  return { socket, command, link, hasKey: () => key !== null };
}

/** drand's `GET {relay}/{chain}/public/{round}` as JSON, or null (no answer in time, an error, not JSON). */
async function fetchBeaconRound(relay, chain, round) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), RELAY_TIMEOUT);
  try {
    const response = await fetch(`${relay.replace(/\/+$/, '')}/${chain}/public/${round}`,
      { signal: controller.signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    if (!response.ok) return null;
    const body = await response.json();
    return body && typeof body === 'object' ? body : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

function hostOf(url) {
  try { return new URL(url).host; } catch { return url; }
}

function shuffled(list) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
