// Claims (issue #26; docs/PROTOCOL.md "Claims"): the winner's phone shows a large "Tap to claim"
// with its countdown and vibrates; the screen and the host page list each window live (time left,
// claimed, passed to the next alternate). The server's clock decides; the countdown is display only.

import { errorText, i18nEvents, t } from './i18n.js';
import { maskName } from './mask.js';
import { winnerText } from './room.js';

const el = (tag, attrs = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
};

/**
 * A pass or void reason for display. The server records an unclaimed win's reason as the fixed
 * text "not claimed in N s" (kept so every export ever made still verifies: it is in the hash
 * chain), which pages read as a code and say in the page's language; a host's own void reason is
 * shown as typed.
 */
export function reasonText(reason) {
  const claim = typeof reason === 'string' ? /^not claimed in (\d+) s$/.exec(reason) : null;
  return claim ? t('claim.reason', { seconds: Number(claim[1]) }) : reason ?? '';
}

const secondsLeft = (item) => Math.max(0, Math.ceil(((item.until ?? 0) - Date.now()) / 1000));
const shown = (id) => maskName(winnerText(id));

/** POST /api/draws/<code>/claim with this phone's device cookie: { ok } or { error: { code } }. */
export async function claimWin(code) {
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/claim`, { method: 'POST', credentials: 'same-origin' });
    const body = await response.json().catch(() => ({}));
    return response.ok ? { ok: true } : { error: body.error ?? { code: 'storage_failed' } };
  } catch {
    return { error: { code: 'offline' } };
  }
}

/**
 * One panel per page. `role`: 'phone' (the winner's big button), 'screen' or 'host' (the list).
 * It mounts itself in `parent` and follows `room`'s changes.
 */
export class ClaimPanel {
  constructor(room, { role, parent = document.querySelector('main') }) {
    this.room = room;
    this.role = role;
    this.error = null;
    this.vibrated = new Set();
    this.root = el('section', { class: `claims claims-${role}`, 'data-claims': '', hidden: '' });
    if (role === 'phone') parent.prepend(this.root);
    else parent.append(this.root);
    room.addEventListener('change', () => this.render());
    // A language switch says every line again in the new language (the phone's kept view too).
    i18nEvents.addEventListener('change', () => { this.shownKey = null; this.render(); });
    this.timer = setInterval(() => this.tick(), 250);
    this.render();
  }

  tick() {
    if (this.room.claims?.items.some((item) => item.status === 'open')) this.render();
  }

  async claim() {
    this.busy = true;
    this.render();
    const outcome = await claimWin(this.room.code);
    this.busy = false;
    this.error = outcome.error ? errorText(outcome.error.code) : null;
    this.shownKey = null;
    this.render();
  }

  render() {
    const claims = this.room.claims;
    if (this.role === 'phone') return this.renderPhone(claims);
    this.root.hidden = !claims;
    if (!claims) return;
    const list = el('ul', { class: 'claims-list' });
    for (const item of claims.items) {
      const li = el('li', { class: `claim claim-${item.status}`, 'data-claim': item.winner, 'data-status': item.status });
      li.append(el('span', { class: 'claim-who' }, shown(item.winner)));
      let status;
      if (item.status === 'open') status = t('claim.left', { n: secondsLeft(item) });
      else if (item.status === 'claimed') status = t('claim.claimed');
      else if (item.to) status = t('claim.passed', { seconds: claims.seconds, to: shown(item.to) });
      else status = t('claim.passed.none', { seconds: claims.seconds });
      li.append(el('span', { class: 'claim-status' }, status));
      list.append(li);
    }
    this.root.replaceChildren(el('h2', { class: 'claims-heading' }, t('claim.heading', { n: claims.round })), list);
  }

  renderPhone(claims) {
    const mine = this.room.myClaim();
    this.root.hidden = !mine;
    if (!mine) return;
    const key = `${claims.round}|${mine.winner}|${mine.status}`;
    if (mine.status === 'open') {
      if (!this.vibrated.has(key)) {
        this.vibrated.add(key);
        // Only after a tap on the page: before one, Chromium blocks it and logs an error (issue 39, item 17).
        if (navigator.vibrate && navigator.userActivation?.hasBeenActive) navigator.vibrate([400, 120, 400, 120, 800]);
      }
      // One button kept while the window is open (the countdown changes its text only).
      if (!this.button || !this.root.contains(this.button)) {
        this.button = el('button', { type: 'button', class: 'btn btn-primary claim-button', 'data-claim-button': '' });
        this.button.addEventListener('click', () => this.claim());
        this.lead = el('p', { class: 'claim-lead' });
        this.note = el('p', { class: 'form-error', role: 'alert' });
        this.root.replaceChildren(this.lead, this.button, this.note);
      }
      this.lead.textContent = t('claim.you.won');
      this.button.textContent = t('claim.tap', { n: secondsLeft(mine) });
      this.button.disabled = Boolean(this.busy);
      this.note.textContent = this.error ?? '';
      return;
    }
    if (this.shownKey === key && !this.error) return;
    this.shownKey = key;
    this.button = null;
    const text = mine.status === 'claimed' ? t('claim.you.claimed') : t('claim.you.missed', { seconds: claims.seconds });
    const attr = mine.status === 'claimed' ? 'data-claim-done' : 'data-claim-missed';
    const nodes = [el('p', { class: mine.status === 'claimed' ? 'claim-done' : 'claim-missed', role: 'status', [attr]: '' }, text)];
    if (this.error) nodes.push(el('p', { class: 'form-error', role: 'alert' }, this.error));
    this.root.replaceChildren(...nodes);
  }
}
