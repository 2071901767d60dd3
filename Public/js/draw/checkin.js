// The host's check-in card: open and close entries with their settings, the entrant list
// (searchable, paged, fetched with the host key; never in the room's snapshot), removal with
// a reason, CSV export, erasing, and whether the latest winner's phone is connected.

import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';

const PAGE = 20;

export class HostCheckin {
  /** `key()` returns the host key (or null); `toast(text)` shows a message. */
  constructor({ code, key, toast }, root = document) {
    this.code = code;
    this.key = key;
    this.toast = toast;
    this.card = $('[data-checkin-host]', root);
    this.status = $('[data-checkin-status]', root);
    this.presence = $('[data-winner-presence]', root);
    this.form = $('[data-checkin-settings]', root);
    this.list = $('[data-checkin-list]', root);
    this.page = $('[data-checkin-page]', root);
    this.search = $('[data-checkin-search]', root);
    this.offset = 0;
    this.total = 0;
    this.listedFor = null;
    this.formFilled = false;
    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.open(); });
    $('[data-checkin-close]', root).addEventListener('click', () => this.post('entries/close'));
    $('[data-checkin-prev]', root).addEventListener('click', () => { this.offset = Math.max(0, this.offset - PAGE); this.load(); });
    $('[data-checkin-next]', root).addEventListener('click', () => {
      if (this.offset + PAGE < this.total) { this.offset += PAGE; this.load(); }
    });
    let timer = null;
    this.search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => { this.offset = 0; this.load(); }, 250);
    });
    $('[data-checkin-export]', root).addEventListener('click', () => this.exportCSV());
    $('[data-checkin-erase]', root).addEventListener('click', () => {
      if (confirm(t('host.checkin.erase.confirm'))) this.post('entrants/erase');
    });
  }

  async call(method, path, body) {
    const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/${path}`, {
      method, headers: { Authorization: `Bearer ${this.key() ?? ''}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json().catch(() => null);
    if (!response.ok) throw json?.error ?? { code: 'network' };
    return json;
  }

  async post(path, body) {
    try {
      await this.call('POST', path, body ?? {});
      this.load();
    } catch (error) {
      this.toast(errorText(error.code));
    }
  }

  open() {
    const label = $('[data-checkin-field]', this.form).value.trim();
    const fields = label ? [{
      key: 'field1', label,
      required: $('[data-checkin-required]', this.form).checked,
      unique: $('[data-checkin-unique]', this.form).checked,
    }] : [];
    this.post('entries/open', {
      fields, presence: $('[data-checkin-presence]', this.form).checked, publicNames: $('[data-checkin-public]', this.form).checked,
    });
  }

  async load() {
    if (!this.key()) return;
    const q = encodeURIComponent(this.search.value.trim());
    try {
      const page = await this.call('GET', `entrants?limit=${PAGE}&offset=${this.offset}&q=${q}`);
      this.total = page.total;
      replaceChildren(this.list, ...page.items.map((entry) => this.row(entry)));
      setText(this.page, page.total ? t('host.checkin.page', {
        from: Math.min(page.total, this.offset + 1), to: Math.min(page.total, this.offset + PAGE), n: page.total,
      }) : t('host.checkin.none'));
    } catch (error) {
      setText(this.page, errorText(error.code));
    }
  }

  row(entry) {
    const fields = Object.values(entry.fields ?? {}).join(' · ');
    const remove = el('button', { class: 'btn btn-small', text: t('host.checkin.remove'),
      attrs: { type: 'button', 'aria-label': t('host.checkin.remove.who', { name: entry.name ?? entry.id }) } });
    remove.addEventListener('click', async () => {
      const reason = prompt(t('host.checkin.remove.reason', { name: entry.name ?? entry.id }));
      if (!reason || !reason.trim()) return;
      try {
        await this.call('DELETE', `entrants/${encodeURIComponent(entry.id)}`, { reason });
        this.load();
      } catch (error) {
        this.toast(errorText(error.code));
      }
    });
    return el('li', { class: 'entrant-row' },
      el('span', { class: `dot${entry.connected ? ' on' : ''}`, attrs: { title: entry.connected ? t('host.checkin.online') : t('host.checkin.offline') } }),
      el('span', { class: 'grow' }, el('strong', { text: entry.name ?? '—' }), fields ? ` ${fields}` : '',
        el('code', { class: 'mono', text: ` ${entry.id}` })),
      remove);
  }

  async exportCSV() {
    try {
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/entrants.csv`, {
        headers: { Authorization: `Bearer ${this.key() ?? ''}` },
      });
      if (!response.ok) throw new Error('export');
      const url = URL.createObjectURL(await response.blob());
      const link = el('a', { attrs: { href: url, download: `tombola-${this.code}-entrants.csv` } });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch {
      this.toast(errorText('network'));
    }
  }

  render(state) {
    const visible = state.isHost && Boolean(state.checkin);
    show(this.card, visible);
    if (!visible) return;
    const c = state.checkin;
    setText(this.status, c.open ? t('host.checkin.status.open', { n: c.count ?? 0 }) : t('host.checkin.status.closed', { n: c.count ?? 0 }));
    if (!this.formFilled) {
      this.formFilled = true;
      const field = (c.fields ?? [])[0];
      $('[data-checkin-field]', this.form).value = field?.label ?? '';
      $('[data-checkin-required]', this.form).checked = Boolean(field?.required);
      $('[data-checkin-unique]', this.form).checked = Boolean(field?.unique);
      $('[data-checkin-presence]', this.form).checked = Boolean(c.presence);
      $('[data-checkin-public]', this.form).checked = Boolean(c.publicNames);
    }
    const presence = state.winnerPresence;
    show(this.presence, Boolean(presence));
    if (presence) {
      setText(this.presence, (presence.winners ?? []).map((w) => t(w.connected ? 'host.checkin.winner.on' : 'host.checkin.winner.off',
        { name: w.name ?? w.id })).join(' · '));
    }
    // The list follows the count, at most once a second.
    this.wantedFor = `${c.count}|${c.open}`;
    this.followCount();
  }

  // Loads the list when the count or status changed since it was loaded; within a second of the
  // last load it waits for the rest of that second (a change then is never skipped for good).
  followCount() {
    if (this.wantedFor === this.listedFor || this.followTimer) return;
    const wait = this.lastLoad ? 1000 - (Date.now() - this.lastLoad) : 0;
    if (wait > 0) {
      this.followTimer = setTimeout(() => { this.followTimer = null; this.followCount(); }, wait);
      return;
    }
    this.listedFor = this.wantedFor;
    this.lastLoad = Date.now();
    this.load();
  }
}
