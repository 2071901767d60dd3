// The prize table (issue 45, docs/PROTOCOL.md "Prize hand-over") on the host page and a check-in
// co-host's ("staff") page: type a winner's voucher code or scan its QR with the camera
// (qr-camera.js), see whose it is, press "Hand over"; and the list of every prize, "Prizes: 3 of 5
// handed over", with each winner, prize, state, time and who handed it over. The server decides
// (bad_voucher, unknown_voucher, voucher_void, already_handed_over, role_forbidden); this page
// catches a mistyped code first with the check character.

import { decodeImageFile, scanCamera } from '../lib/qr-camera.js';
import { errorText, i18nEvents, t } from '../lib/i18n.js';
import { hostApi } from '../lib/host-api.js';
import { handoverBy, handoverTime } from '../lib/voucher-view.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A typed or scanned code as `XXXX-XXXX`, or null when it is malformed or its check character is wrong (VoucherCode.swift). */
export function normalizeVoucher(input) {
  const values = [];
  for (const ch of String(input).toUpperCase()) {
    if (ch === ' ' || ch === '-' || ch === '\t') continue;
    const v = ch === 'O' ? 0 : ch === 'I' || ch === 'L' ? 1 : ALPHABET.indexOf(ch);
    if (v < 0 || values.length === 8) return null;
    values.push(v);
  }
  if (values.length !== 8) return null;
  const check = values.slice(0, 7).reduce((sum, v, i) => (sum + (i + 1) * v) % 31, 0);
  if (check !== values[7]) return null;
  const text = values.map((v) => ALPHABET[v]).join('');
  return `${text.slice(0, 4)}-${text.slice(4)}`;
}

const el = (tag, attrs = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
};

const CAMERA_ERRORS = { NotAllowedError: 'handover.camera.denied', NotFoundError: 'handover.camera.none',
  NotReadableError: 'handover.camera.busy', NotSupportedError: 'handover.camera.unsupported' };

export class PrizeTable {
  /** `key()`: the host or co-host key; `role()`: the co-host's role (null: the owner's key). */
  constructor({ code, key, role, state }) {
    this.code = code;
    this.key = key;
    this.role = role;
    this.state = state;
    this.list = null;
    this.found = null;
    this.message = null;
    this.scanner = null;
    this.call = hostApi(code, key);
    this.root = el('section', { class: 'card prize-table', 'data-prize-table': '', hidden: '', 'aria-labelledby': 'prize-table-heading' });
    this.root.innerHTML = `
      <h2 id="prize-table-heading"></h2>
      <form class="handover-form" data-handover-form novalidate>
        <label class="field"><span data-handover-label></span>
          <input type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" data-handover-code></label>
        <div class="actions">
          <button type="submit" class="btn" data-handover-check></button>
          <button type="button" class="btn" data-handover-scan></button>
          <label class="btn" data-handover-photo-label><span data-handover-photo-text></span>
            <input type="file" accept="image/*" capture="environment" class="visually-hidden" data-handover-photo></label>
        </div>
      </form>
      <video class="handover-video" data-handover-video hidden playsinline muted></video>
      <p class="notice" data-handover-message role="status" aria-live="polite"></p>
      <div class="handover-found" data-handover-found hidden>
        <p class="handover-found-text" data-handover-found-text></p>
        <button type="button" class="btn btn-primary" data-handover-confirm></button>
      </div>
      <h3 data-handover-count></h3>
      <ul class="handover-list" data-handover-list></ul>`;
    const anchor = document.querySelector('[data-checkin-host]');
    anchor.after(this.root);
    this.$ = (s) => this.root.querySelector(s);
    this.$('[data-handover-form]').addEventListener('submit', (e) => { e.preventDefault(); this.check(this.$('[data-handover-code]').value); });
    this.$('[data-handover-scan]').addEventListener('click', () => this.toggleScan());
    this.$('[data-handover-photo]').addEventListener('change', (e) => this.photo(e.target));
    this.$('[data-handover-confirm]').addEventListener('click', () => this.handOver());
    let timer = null;
    const reload = () => { clearTimeout(timer); timer = setTimeout(() => this.load(), 150); };
    state.addEventListener('change', ({ detail }) => {
      if (['handover', 'result', 'void', 'pass', 'cleared', 'state', 'role', 'config'].includes(detail)) reload();
      else this.render();
    });
    i18nEvents.addEventListener('change', () => this.render());
    this.render();
  }

  /** Whether this page keeps the prize table: the owner, a host or check-in co-host, in a check-in draw. */
  get shown() {
    const role = this.role();
    return this.state.isHost && this.key() !== null && this.state.config?.pool?.kind === 'checkin'
      && (role === null || role === 'host' || role === 'checkin') && this.list?.enabled === true;
  }

  async load() {
    const role = this.role();
    if (!this.state.isHost || this.key() === null || this.state.config?.pool?.kind !== 'checkin'
        || (role !== null && role !== 'host' && role !== 'checkin')) { this.list = null; this.render(); return; }
    try {
      this.list = await this.call('GET', 'handovers');
    } catch {
      this.list = null;
    }
    this.render();
  }

  say(text, kind = 'info') {
    this.message = { text, kind };
    this.render();
  }

  async check(input) {
    this.found = null;
    const code = normalizeVoucher(input);
    if (!code) return this.say(t('handover.typo'), 'error');
    this.$('[data-handover-code]').value = code;
    try {
      const answer = await this.call('POST', 'handover', { code });
      this.found = answer.voucher;
      this.message = null;
    } catch (error) {
      this.say(this.refusal(error), 'error');
    }
    this.render();
  }

  async handOver() {
    if (!this.found) return;
    try {
      const answer = await this.call('POST', 'handover', { code: this.found.code, confirm: true });
      this.found = null;
      this.$('[data-handover-code]').value = '';
      this.say(t('handover.done', this.words(answer.voucher)), 'ok');
    } catch (error) {
      this.found = null;
      this.say(this.refusal(error), 'error');
    }
    this.load();
  }

  /** A refusal in words; a voided or handed-over voucher says whose it is. */
  refusal(error) {
    const v = error.voucher;
    if (error.code === 'already_handed_over' && v) return t('handover.already', { ...this.words(v), time: handoverTime(v.at), by: handoverBy(v) });
    if (error.code === 'voucher_void' && v) return t('handover.void', this.words(v));
    return errorText(error.code);
  }

  words(v) {
    return { name: v?.name ?? v?.winner ?? '', prize: v?.prize || t('handover.noPrize'), n: v?.round ?? '' };
  }

  async toggleScan() {
    if (this.scanner) return this.stopScan();
    const video = this.$('[data-handover-video]');
    video.hidden = false;
    this.say(t('handover.scanning'));
    try {
      this.scanner = await scanCamera(video, (text) => {
        this.stopScan();
        this.check(text);
      });
    } catch (error) {
      video.hidden = true;
      this.scanner = null;
      this.say(t(CAMERA_ERRORS[error.name] ?? 'handover.camera.denied'), 'error');
    }
    this.render();
  }

  stopScan() {
    this.scanner?.stop();
    this.scanner = null;
    this.$('[data-handover-video]').hidden = true;
    if (this.message?.text === t('handover.scanning')) this.message = null;
    this.render();
  }

  async photo(input) {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const text = await decodeImageFile(file);
    if (text) this.check(text);
    else this.say(t('handover.photo.none'), 'error');
  }

  render() {
    this.root.hidden = !this.shown;
    if (this.root.hidden) { if (this.scanner) this.stopScan(); return; }
    this.$('#prize-table-heading').textContent = t('handover.title');
    this.$('[data-handover-label]').textContent = t('handover.code');
    this.$('[data-handover-check]').textContent = t('handover.check');
    this.$('[data-handover-scan]').textContent = this.scanner ? t('handover.scan.stop') : t('handover.scan');
    this.$('[data-handover-photo-text]').textContent = t('handover.photo');
    const message = this.$('[data-handover-message]');
    message.textContent = this.message?.text ?? '';
    message.dataset.kind = this.message?.kind ?? '';
    const found = this.$('[data-handover-found]');
    found.hidden = !this.found;
    if (this.found) {
      this.$('[data-handover-found-text]').textContent = t('handover.found', this.words(this.found));
      this.$('[data-handover-confirm]').textContent = t('handover.confirm');
    }
    const list = this.list ?? { items: [], handedOver: 0, total: 0 };
    this.$('[data-handover-count]').textContent = t('handover.count', { done: list.handedOver, total: list.total });
    this.$('[data-handover-list]').replaceChildren(...list.items.slice().reverse().map((v) => {
      const state = v.state === 'handedOver' ? t('handover.state.handedOver', { time: handoverTime(v.at), by: handoverBy(v) })
        : v.state === 'void' ? t('handover.state.void') : t('handover.state.waiting');
      const item = el('li', { 'data-handover-item': v.code, 'data-state': v.state });
      item.append(el('span', { class: 'handover-who' }, t('handover.item', this.words(v))), ' ',
        el('code', { class: 'handover-code', translate: 'no' }, v.code), ' ',
        el('span', { class: `handover-state handover-${v.state}` }, state));
      return item;
    }));
  }
}
