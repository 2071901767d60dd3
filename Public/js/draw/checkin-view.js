// The host's check-in card on the page: the settings form, the entrant list with its pager and
// search, and whether the latest winner's phone is connected. Draws what checkin-state.js holds
// and hands the host's clicks to checkin.js.

import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';

export class CheckinView {
  constructor(root = document) {
    this.card = $('[data-checkin-host]', root);
    this.status = $('[data-checkin-status]', root);
    this.presence = $('[data-winner-presence]', root);
    this.form = $('[data-checkin-settings]', root);
    this.list = $('[data-checkin-list]', root);
    this.page = $('[data-checkin-page]', root);
    this.search = $('[data-checkin-search]', root);
    this.root = root;
    this.formFilled = false;
  }

  /** `handler(settings)` with the form's { fields, presence, publicNames }. */
  bindOpen(handler) {
    this.form.addEventListener('submit', (event) => { event.preventDefault(); handler(this.readForm()); });
  }

  bindClose(handler) { $('[data-checkin-close]', this.root).addEventListener('click', handler); }
  bindPrevious(handler) { $('[data-checkin-prev]', this.root).addEventListener('click', handler); }
  bindNext(handler) { $('[data-checkin-next]', this.root).addEventListener('click', handler); }
  /** `handler(format)`: `csv` or `xlsx`. */
  bindExport(handler) {
    $('[data-checkin-export]', this.root).addEventListener('click', () => handler('csv'));
    $('[data-checkin-export-xlsx]', this.root).addEventListener('click', () => handler('xlsx'));
  }

  /** `handler(text)` on every change of the search field. */
  bindSearch(handler) {
    this.search.addEventListener('input', () => handler(this.search.value));
  }

  /** `handler()` once the host confirms erasing every entrant. */
  bindErase(handler) {
    $('[data-checkin-erase]', this.root).addEventListener('click', () => {
      if (confirm(t('host.checkin.erase.confirm'))) handler();
    });
  }

  readForm() {
    const label = $('[data-checkin-field]', this.form).value.trim();
    const fields = label ? [{
      key: 'field1', label,
      required: $('[data-checkin-required]', this.form).checked,
      unique: $('[data-checkin-unique]', this.form).checked,
    }] : [];
    return { fields, presence: $('[data-checkin-presence]', this.form).checked, publicNames: $('[data-checkin-public]', this.form).checked };
  }

  /** The list's page; `onRemove(entry, reason)` when the host removes an entrant with a reason. */
  renderList(list, onRemove) {
    if (list.error) { setText(this.page, errorText(list.error.code)); return; }
    replaceChildren(this.list, ...list.items.map((entry) => this.row(entry, onRemove)));
    const range = list.range();
    setText(this.page, range ? t('host.checkin.page', range) : t('host.checkin.none'));
  }

  row(entry, onRemove) {
    const fields = Object.values(entry.fields ?? {}).join(' · ');
    const remove = el('button', { class: 'btn btn-small', text: t('host.checkin.remove'),
      attrs: { type: 'button', 'aria-label': t('host.checkin.remove.who', { name: entry.name ?? entry.id }) } });
    remove.addEventListener('click', () => {
      const reason = prompt(t('host.checkin.remove.reason', { name: entry.name ?? entry.id }));
      if (!reason || !reason.trim()) return;
      onRemove(entry, reason);
    });
    return el('li', { class: 'entrant-row' },
      el('span', { class: `dot${entry.connected ? ' on' : ''}`, attrs: { title: entry.connected ? t('host.checkin.online') : t('host.checkin.offline') } }),
      el('span', { class: 'grow' }, el('strong', { text: entry.name ?? '—' }), fields ? ` ${fields}` : '',
        el('code', { class: 'mono', text: ` ${entry.id}` })),
      remove);
  }

  /** The card for the room's state; returns whether it shows. */
  render(state) {
    const visible = state.isHost && Boolean(state.checkin);
    show(this.card, visible);
    if (!visible) return false;
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
    return true;
  }
}
