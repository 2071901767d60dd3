// Rendering pieces shared by the host, screen and watch views: winners lists,
// round history, the commitment fingerprint and the verified mark.

import { $, el, fitText, replaceChildren, setText, show } from './dom.js';
import { fingerprint, groupInteger } from './format.js';
import { locale, t } from './i18n.js';
import { winnerText } from './room.js';
import { maskName } from './mask.js';
import { nameSize, showName, widestNames } from './fitname.js';
import { reasonText } from './claims.js';
import { beaconReasonText } from './beacon-reason.js';
import { tint } from './books.js';

/** A draw value for display: numbers grouped by locale, names as they are (masked as the draw says). */
export function valueText(value) {
  if (typeof value === 'number') return groupInteger(value, locale());
  return maskName(winnerText(value));
}

/**
 * Who holds each prize of `round` (the newest round on the board by default) after claims, passes
 * and voids, as the record says: the round's current winners (an alternate in a no-show's place,
 * a void's replacement), then `null` for each prize a pass left with no alternate ("nobody
 * claimed"). The stage and its modes' winner cards show these, never the first drawn winner.
 */
export function holders(room, round = room.currentRound()?.round) {
  const entry = room.rounds.find((e) => e.round === round);
  if (!entry) return [];
  const claims = room.claims?.round === round ? room.claims.items : [];
  const unawarded = claims.filter((item) => item.status === 'passed' && !item.to).length;
  return [...entry.winners, ...Array(unawarded).fill(null)];
}

/** A holder for display: its name or number, or "Nobody claimed" for a prize nobody holds. */
export function holderText(value) {
  return value === null ? t('claim.nobody') : valueText(value);
}

/** One winner as a list item; `onVoid(entry)` adds a Void button (host only). */
export function winnerItem(entry, { onVoid = null, className = 'winner' } = {}) {
  const classes = [className];
  if (entry.voided) classes.push('is-voided');
  if (entry.replaces !== undefined && !entry.voided) classes.push('is-replacement');
  const note = entry.voided ? (entry.reason ? t('draw.voided.reason', { reason: reasonText(entry.reason) }) : t('draw.voided'))
    : entry.replaces !== undefined ? t('draw.replaces', { value: valueText(entry.replaces) }) : '';
  const item = el('li', { class: classes.join(' '), data: { winner: winnerText(entry.value) } },
    tint(el('span', { class: 'winner-value', text: valueText(entry.value) }), entry.value),
    note ? el('span', { class: 'winner-note', text: note }) : null);
  if (onVoid && !entry.voided) {
    item.append(el('button', {
      class: 'btn btn-small winner-void',
      text: t('host.void'),
      attrs: { type: 'button', 'aria-label': t('host.void.title', { value: valueText(entry.value) }) },
      on: { click: () => onVoid(entry) },
    }));
  }
  return item;
}

/**
 * Fills a list with the winners of one board entry: its first `limit` current winners, its voided
 * ones, and for a long round a "show more" button (`onMore(entry)`) that reads the next ones.
 */
export function renderWinners(list, entry, { limit = Infinity, onMore = null, ...options } = {}) {
  const current = (entry?.winners ?? []).filter((w) => !w.voided);
  const voided = (entry?.winners ?? []).filter((w) => w.voided);
  const items = [...current.slice(0, limit), ...voided].map((w) => winnerItem(w, options));
  const total = Math.max(entry?.total ?? 0, current.length);
  const shown = Math.min(limit, current.length);
  if (entry && total > shown) {
    items.push(el('li', { class: 'winners-more', data: { winnersMore: entry.round } },
      el('span', { class: 'winners-count', text: t('draw.shown', { shown: groupInteger(shown, locale()), total: groupInteger(total, locale()) }) }),
      onMore ? el('button', {
        class: 'btn btn-small', text: t('draw.showMore', { n: groupInteger(Math.min(100, total - shown), locale()) }),
        attrs: { type: 'button' }, data: { showMore: entry.round }, on: { click: () => onMore(entry) },
      }) : null));
  }
  replaceChildren(list, items);
}

/** Winners an earlier round shows inline in the history before "+n more". */
const HISTORY_WINNERS = 10;

/** Fills a list with earlier rounds: "Round n · prize: a, b, c" (a long round's first ones, "+n more"). */
export function renderHistory(list, entries, { older = 0, onOlder = null } = {}) {
  const rows = entries.map((entry) => {
    const values = entry.winners.slice(0, HISTORY_WINNERS).map((w) => tint(el('span', {
      class: w.voided ? 'history-winner is-voided' : 'history-winner',
      text: valueText(w.value),
    }), w.value));
    const current = entry.winners.filter((w) => !w.voided).length;
    const hidden = Math.max(entry.total ?? 0, current) - Math.min(current, HISTORY_WINNERS);
    if (hidden > 0) values.push(el('span', { class: 'history-more', text: t('draw.history.more', { n: groupInteger(hidden, locale()) }) }));
    return el('li', { class: 'history-round', data: { round: entry.round } },
      el('span', { class: 'history-label', text: t('draw.round', { n: entry.round }) + (entry.prize ? ` · ${entry.prize}` : '') }),
      el('span', { class: 'history-winners' }, values));
  });
  if (older > 0) {
    rows.push(el('li', { class: 'history-older', data: { historyOlder: older } },
      el('span', { text: t('draw.history.older', { n: groupInteger(older, locale()) }) }),
      onOlder ? el('button', { class: 'btn btn-small', text: t('draw.history.showOlder'), attrs: { type: 'button' },
        data: { showOlder: '' }, on: { click: () => onOlder() } }) : null));
  }
  replaceChildren(list, rows);
}

/** The verified mark for a result: text, class and description. */
export function renderVerified(node, room, result) {
  if (!node) return;
  if (!result) { show(node, false); return; }
  const outcome = room.verificationOf(result);
  show(node, true);
  node.classList.toggle('verified', outcome.state === 'ok');
  node.classList.toggle('verify-failed', outcome.state === 'fail');
  node.classList.toggle('verify-pending', outcome.state === 'pending');
  node.dataset.verify = outcome.state;
  const text = outcome.state === 'ok' ? t('draw.verified') : outcome.state === 'fail' ? t('draw.verify.failed') : t('draw.verify.pending');
  setText(node, text);
  node.title = outcome.state === 'ok' ? t('draw.verified.desc', { n: result.round })
    : outcome.state === 'fail' ? `${t('draw.verify.failed.desc', { n: result.round })} (${outcome.reason ?? ''})` : '';
}

/** The commitment fingerprint: the revealed round's after a reveal, else the pending one. */
export function commitmentFor(room) {
  if (room.phase === 'revealed' && room.lastReveal) return fingerprint(room.lastReveal.commitment);
  if (room.phase === 'revealed' && !room.lastReveal) {
    const last = room.results.at(-1);
    if (last) return fingerprint(last.commitment);
  }
  return fingerprint(room.commit?.commitment);
}

/** Text for the phase pill. */
export function phaseText(phase) {
  return phase ? t(`phase.${phase}`) : t('phase.unknown');
}

/**
 * The stage: the big rolling value, phase, round, prize, viewers, commitment
 * fingerprint, verified mark and "your device contributed" line. `nodes` holds
 * the elements (any may be missing); `fit` gives the font range in px.
 */
export class Stage {
  constructor(nodes, { fit = { max: 160, min: 18 }, showContributing = false, hostPrompt = false, loadNames = false } = {}) {
    this.nodes = nodes;
    this.fit = fit;
    // Reads a list pool's names (the settings download) to size every name of a roll alike.
    this.loadNames = loadNames;
    this.poolFit = null;
    this.rollFit = null;
    this.showContributing = showContributing;
    this.hostPrompt = hostPrompt;
    this.revealSeen = 0;
    this.lastFit = '';
    this.frame = 0;
    this.room = null;
    window.addEventListener('resize', () => { this.lastFit = ''; this.renderValue(); });
  }

  /**
   * A stage over the standard hooks under `root` (`data-stage`, `data-value`, `data-phase`, …);
   * a page without one of them simply does not show that part.
   */
  static within(root, options) {
    const hook = (name) => $(`[data-${name}]`, root);
    const stage = hook('stage');
    const box = hook('stage-box');
    return new Stage({
      stage, box, value: hook('value'), phase: hook('phase'),
      round: hook('round'), prize: hook('prize'), viewers: hook('viewers'), commitment: hook('commitment'),
      verified: hook('verified'), contributed: hook('contributed'), remaining: hook('remaining'),
      many: hook('stage-winners'), more: hook('stage-more'), notice: hook('stage-notice') ?? noticeBefore(box),
    }, options);
  }

  /** The proof label beside the verified mark ("local proof" / "sealed by drand round R"), made once. */
  proofNode() {
    return this.lineAfter('proof', this.nodes.verified, 'proof-label');
  }

  /** The line under "Sealed by drand round R": what this device's own fetch of R found. */
  relayNode() {
    return this.lineAfter('relay', this.proofNode(), 'relay-check');
  }

  /** Node `name` (data-`name`), made once right after `anchor` as the same kind of line, hidden until shown. */
  lineAfter(name, anchor, cls) {
    if (!anchor) return null;
    if (!this.nodes[name]) {
      this.nodes[name] = el(anchor.tagName === 'P' ? 'p' : 'span', { class: cls, data: { [name]: '' } });
      this.nodes[name].hidden = true;
      anchor.after(this.nodes[name]);
    }
    return this.nodes[name];
  }

  /** Text for the big value. */
  valueText(room) {
    if ((room.phase === 'rolling' || room.phase === 'stopping') && room.tick) return { text: valueText(room.tick.value), waiting: false, value: room.tick.value };
    if (room.phase === 'revealed') {
      // Who holds the prize now (an alternate after a pass, "nobody claimed"), not who was drawn first.
      const held = holders(room);
      if (held.length) return { text: holderText(held[0]), waiting: false, value: held[0] };
    }
    if (!room.snapshotReceived) return { text: '…', waiting: true };
    // The host is not waiting for anyone: tell them what to do instead.
    if (this.hostPrompt && room.role === 'host') return { text: t('draw.waiting.host'), waiting: true };
    return { text: t('draw.waiting'), waiting: true };
  }

  /** Cheap update for ticks: coalesced to one paint per frame. */
  renderValue(room = this.room) {
    if (!room || this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const { value, box, stage } = this.nodes;
      if (!value) return;
      const { text, waiting, value: shownValue } = this.valueText(room);
      const many = this.renderMany(room);
      setText(value, text);
      tint(value, shownValue);
      value.classList.toggle('is-waiting', waiting);
      show(value, !many);
      if (stage) {
        stage.classList.toggle('is-revealed', room.phase === 'revealed' && !waiting);
        stage.dataset.stagePhase = room.phase ?? '';
      }
      if (many) return;
      const numeric = /^[\d,.\s\u00a0\u202f-]+$/.test(text);
      value.classList.toggle('is-name', !numeric && !waiting);
      if (!numeric && !waiting) { this.fitName(room, text); return; }
      // Every number of a range is sized as its widest one (tabular digits), so the rolling
      // numbers and the revealed one share one size and the stage does not jump at the reveal.
      const template = numeric && !waiting ? widestNumber(room) : null;
      const measured = template && template.length >= text.length ? template : text;
      const key = `${waiting}|${numeric ? `#${measured.length}` : text}|${box?.clientWidth}x${box?.clientHeight}`;
      if (key !== this.lastFit) {
        this.lastFit = key;
        const max = waiting ? Math.min(this.fit.max, this.fit.waitingMax ?? 40) : this.fit.max;
        if (measured !== text) setText(value, measured);
        // Names and messages may take two lines rather than shrink to a sliver or be cut off.
        fitText(value, { max, min: this.fit.min, box, wrap: !numeric });
        if (measured !== text) setText(value, text);
      }
    });
  }

  /**
   * A name on the stage: while rolling, with the pool's names known, at the one size its widest
   * names fit (measured once per pool and stage size); otherwise at the smallest size any name
   * of this roll needed so far, so the size does not jump from name to name. A revealed name
   * is as large as it fits.
   */
  fitName(room, text) {
    const { value, box } = this.nodes;
    this.lastFit = '';
    if (!box) return;
    const range = { max: this.fit.max, min: this.fit.min };
    const boxKey = `${box.clientWidth}x${box.clientHeight}`;
    const poolKey = `${room.config?.hash}|${boxKey}`;
    if (this.poolFit?.key !== poolKey) {
      const names = poolNames(room);
      if (names) {
        const style = getComputedStyle(value);
        const widest = widestNames(names, `${style.fontWeight} 100px ${style.fontFamily}`);
        const size = Math.min(range.max, ...widest.map((name) => nameSize(value, box, name, range)));
        this.poolFit = { key: poolKey, size, names: new Set(names) };
      } else {
        this.poolFit = null;
      }
    }
    let size;
    if (room.phase === 'revealed') {
      // The winner alone: as large as it fits (the reveal animation grows it from half size anyway).
      size = nameSize(value, box, text, range);
    } else if (this.poolFit?.names.has(text)) {
      size = this.poolFit.size;
    } else {
      const key = `${room.plan?.round ?? room.round}|${boxKey}`;
      const own = nameSize(value, box, text, range);
      size = this.rollFit?.key === key ? Math.min(this.rollFit.size, own) : own;
      this.rollFit = { key, size };
    }
    showName(value, box, text, size);
  }

  /**
   * Several winners revealed at once: all of them large on the stage (up to STAGE_WINNERS; the
   * list below has every one). Returns whether the stage shows them instead of one value.
   */
  renderMany(room) {
    const { many, more, box } = this.nodes;
    if (!many) return false;
    const current = room.phase === 'revealed' ? room.currentRound() : null;
    const active = current ? holders(room, current.round) : [];
    const on = active.length > 1;
    const shown = active.slice(0, STAGE_WINNERS);
    const signature = on ? `${current.round}|${shown.map(holderText).join('\u0000')}|${box?.clientWidth}x${box?.clientHeight}` : '';
    show(many, on);
    if (more) {
      // A long round's count is the server's: the page may hold only its first winners.
      const total = Math.max(current?.total ?? 0, active.length);
      setText(more, on && total > shown.length ? t('draw.more', { n: groupInteger(total - shown.length, locale()) }) : '');
      show(more, on && total > shown.length);
    }
    if (signature === this.manyShown) return on;
    this.manyShown = signature;
    if (!on) { replaceChildren(many); return false; }
    replaceChildren(many, shown.map((w) => tint(el('li', { class: w === null ? 'stage-winner is-unclaimed' : 'stage-winner', data: { winner: winnerText(w) }, text: holderText(w) }), w)));
    // Measured alone in the box: the single value gives its room up first.
    show(this.nodes.value, false);
    fitList(many, box, { max: this.fit.max, min: this.fit.min });
    return true;
  }

  render(room) {
    this.room = room;
    const n = this.nodes;
    if (this.loadNames && room.config?.pool?.kind === 'list' && !room.fullSettings()) room.loadSettings();
    this.renderValue(room);
    // Offline after a snapshot: what the stage shows may be stale (a roll the server no longer
    // runs), so it dims, says so, and the phase pill stops saying "Rolling".
    const paused = room.snapshotReceived && room.connection === 'offline';
    if (n.phase) {
      setText(n.phase, paused ? t('phase.paused') : phaseText(room.phase));
      n.phase.dataset.state = paused ? 'paused' : room.phase ?? '';
    }
    if (n.stage) n.stage.classList.toggle('is-paused', paused);
    if (n.notice) {
      const beacon = paused ? '' : beaconText(room);
      const resumed = paused || beacon ? '' : resumedText(room);
      const text = paused ? t('stage.paused') : beacon || resumed || interruptedText(room);
      setText(n.notice, text);
      n.notice.dataset.notice = paused ? 'paused' : beacon ? `beacon-${room.beacon.status}` : resumed ? 'resumed' : text ? 'interrupted' : '';
      show(n.notice, Boolean(text));
    }
    const featured = room.phase === 'revealed' ? room.lastReveal ?? room.results.at(-1) ?? null : null;
    // Not revealed: the armed round as the server announced it (its number and the prize it will draw).
    const armed = featured ? null : room.plan;
    const roundNumber = featured?.round ?? armed?.round ?? room.round;
    if (n.round) setText(n.round, roundNumber ? t('draw.round', { n: roundNumber }) : '');
    if (n.prize) {
      const prize = featured ? featured.prize : armed ? armed.prize : currentPrize(room);
      setText(n.prize, prize ?? '');
    }
    if (n.viewers) setText(n.viewers, typeof room.viewers === 'number' ? t('draw.viewers', { n: groupInteger(room.viewers, locale()) }) : '');
    if (n.commitment) setText(n.commitment, commitmentFor(room));
    if (n.verified) renderVerified(n.verified, room, featured);
    if (n.verified) renderProof(this.proofNode(), room, featured);
    if (n.verified) renderRelayCheck(this.relayNode(), room, featured);
    if (n.remaining) setText(n.remaining, remainingText(room));
    if (n.contributed) {
      let text = '';
      // Only about the round on show: after a Clear or a new round an older contribution is old news.
      const shownRound = featured?.round ?? null;
      if (room.contributed && room.contributed === shownRound) text = t('draw.contributed', { n: room.contributed });
      else if (this.showContributing && room.connection === 'online' && room.round && room.phase !== 'rolling' && room.phase !== 'stopping') {
        text = t('draw.contributing', { n: room.round });
      }
      setText(n.contributed, text);
      show(n.contributed, Boolean(text));
    }
    if (room.revealCount !== this.revealSeen) {
      const fresh = room.revealCount > this.revealSeen;
      this.revealSeen = room.revealCount;
      if (fresh && n.stage) {
        // A no-show's replacement spins in like a roll coming to rest, rather than just appearing.
        const animation = room.lastReveal?.replaces ? 'replacing' : 'reveal';
        n.stage.classList.remove('reveal', 'replacing');
        void n.stage.offsetWidth; // restart the animation
        n.stage.classList.add(animation);
      }
    }
  }
}

/**
 * Beacon-sealed rounds (docs/PROTOCOL.md): "Waiting for drand round R" while the sealed round
 * rolls, with the relays' errors once an attempt got no value (the round keeps R and the server
 * asks again, issue #40), or that the host gave R up (`void`: the host's abandon; older servers
 * voided by timeout).
 */
function beaconText(room) {
  const b = room.beacon;
  // A void's replacement waits for its drand round on a revealed board (FAIRNESS §13, "Voids").
  if (!b || (room.phase !== 'rolling' && b.status !== 'waiting')) return '';
  if (b.status === 'waiting') {
    const waiting = b.replacement ? t('stage.beacon.replacement', { r: b.beaconRound }) : t('stage.beacon.waiting', { r: b.beaconRound });
    return b.reason ? t('stage.beacon.retrying', { r: b.beaconRound, reason: beaconReasonText(b.reason) }) : waiting;
  }
  if (b.status === 'void') {
    const abandoned = /^abandoned by the host: /.test(b.reason ?? '');
    return abandoned ? t('stage.beacon.abandoned', { r: b.beaconRound, reason: b.reason.replace(/^abandoned by the host: /, '') })
      : t('stage.beacon.void', { r: b.beaconRound, reason: b.reason ?? '' });
  }
  return '';
}

/** "Sealed by drand round R" for a beacon-sealed round on show, else "Local proof". */
function renderProof(node, room, result) {
  if (!node) return;
  show(node, Boolean(result));
  if (!result) return;
  const b = room.beacon;
  // A void's replacement has a drand round of its own in a sealed draw (FAIRNESS §13, "Voids"),
  // known by its record's hash once rechecked; it shares its round's number, not its drand round.
  const sealedBy = result.replaces ? room.sealedBy?.get(result.hash) ?? null
    : room.sealedBy?.get(result.round) ?? (b && b.status === 'sealed' && b.round === result.round ? b.beaconRound : null);
  node.dataset.proof = sealedBy ? 'beacon' : 'local';
  setText(node, sealedBy ? t('draw.proof.beacon', { r: sealedBy }) : t('draw.proof.local'));
  // What the label means, on hover and for screen readers (issue 39, item 11: "local proof" was unexplained).
  node.title = sealedBy ? t('draw.proof.beacon.desc', { r: sealedBy }) : t('draw.proof.local.desc');
}

/**
 * FAIRNESS §13: "✓ Matches drand round R (relay)" once this device fetched R itself and found the
 * record's value; a warning when it differs or when the chain is not drand's quicknet; "not
 * compared" when no relay answered. Hidden while it asks, and for local-proof rounds.
 */
function renderRelayCheck(node, room, result) {
  if (!node) return;
  const check = result ? room.relayChecks?.get(result.replaces ? result.hash : result.round) : null;
  show(node, Boolean(check) && check.state !== 'checking');
  if (!check || check.state === 'checking') return;
  node.dataset.relay = check.state;
  const args = { r: check.beaconRound, relay: check.relay ?? '', chain: check.chain.slice(0, 8) };
  let text = t(`draw.relay.${check.state}`, args);
  if (!check.quicknet) text += ' ' + t('draw.relay.notQuicknet', args);
  node.classList.toggle('relay-bad', check.state === 'mismatch' || !check.quicknet);
  setText(node, text);
}

/** "Round n was interrupted before Stop…" after a restart that cut a roll short, until the next Start. */
function interruptedText(room) {
  if (!Number.isInteger(room.interrupted) || room.phase === 'rolling' || room.phase === 'stopping') return '';
  return t('stage.interrupted', { n: room.interrupted });
}

/** "Round n rolls on after a server restart: the same winners" while that round rolls and lands (issue #40). */
function resumedText(room) {
  if (!Number.isInteger(room.resumed)) return '';
  if (room.phase === 'revealed' && (room.lastReveal?.round ?? 0) >= room.resumed) return '';
  return t('stage.resumed', { n: room.resumed });
}

/** The stage's notice line (paused, interrupted, resumed), made before the box on pages without one. */
function noticeBefore(box) {
  if (!box) return null;
  const notice = el('p', { class: 'stage-notice', attrs: { role: 'status' }, data: { stageNotice: '' } });
  notice.hidden = true;
  box.before(notice);
  return notice;
}

/** The names of the current list pool, as shown, when this page holds the full settings, else null. */
function poolNames(room) {
  const entrants = room.fullSettings?.()?.pool?.entrants;
  if (!Array.isArray(entrants)) return null;
  // As shown (masked when the draw says so), for one size from rolling to reveal.
  return entrants.map((e) => (typeof e === 'string' ? e : e?.name)).filter((name) => typeof name === 'string' && name).map((name) => maskName(name));
}

/** At most this many winners share the host's and viewers' stage; the list below has them all. */
const STAGE_WINNERS = 12;

/** The widest number of the pool's range as shown (for one size from rolling to reveal), or null. */
function widestNumber(room) {
  const pool = room.config?.pool;
  if (pool?.kind !== 'range' || typeof pool.from !== 'number' || typeof pool.to !== 'number') return null;
  const a = valueText(pool.from);
  const b = valueText(pool.to);
  return (a.length >= b.length ? a : b).replace(/\d/g, '8');
}

/** The largest font size in [min, max] at which every item of `list` fits in `box`. */
function fitList(list, box, { max, min }) {
  if (!box || !box.clientWidth) return;
  const fits = (size) => {
    list.style.fontSize = `${size}px`;
    return list.scrollHeight <= box.clientHeight && list.scrollWidth <= box.clientWidth;
  };
  let lo = min;
  let hi = max;
  if (fits(hi)) return;
  for (let i = 0; i < 12 && hi - lo > 1; i++) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid;
  }
  list.style.fontSize = `${lo}px`;
}

/** "50 left in the pool", naming the pool the next prize draws from when its groups narrow it ("the guests-only pool"). */
export function remainingText(room) {
  if (typeof room.remaining !== 'number') return '';
  const n = groupInteger(room.remaining, locale());
  const prizes = room.config?.prizes;
  const prize = Array.isArray(prizes) && Number.isInteger(room.currentPrize) && !room.prizesDone ? prizes[room.currentPrize] : null;
  const list = (groups) => (Array.isArray(groups) ? groups.filter((g) => typeof g === 'string' && g) : []);
  if (list(prize?.onlyGroups).length) return t('draw.remaining.only', { n, count: room.remaining, groups: list(prize.onlyGroups).join(', ') });
  if (list(prize?.exceptGroups).length) return t('draw.remaining.except', { n, count: room.remaining, groups: list(prize.exceptGroups).join(', ') });
  return t('draw.remaining', { n });
}

/** The prize label of the next round from the config, if prizes are set. */
export function currentPrize(room) {
  const prizes = room.config?.prizes;
  if (!Array.isArray(prizes) || prizes.length === 0 || room.prizesDone) return null;
  const index = Number.isInteger(room.currentPrize) ? room.currentPrize : Number.isInteger(room.config.prize) ? room.config.prize : 0;
  return prizes[index]?.name ?? null;
}

/** Changes whenever the lists of winners would render differently. */
export function boardSignature(room, extra = '') {
  const rounds = room.rounds.map((r) => `${r.round}:${r.total}:${room.listLimit(r.round)}:${r.winners.length}:${r.winners.map(winnerText).join(',')}:${r.voided.map((v) => winnerText(v.winner)).join(',')}`);
  return `${rounds.join(';')}|${room.olderRounds}|${room.results.length}|${extra}|${t('draw.voided')}|${t('draw.showMore', { n: 1 })}`;
}
