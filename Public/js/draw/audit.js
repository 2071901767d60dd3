// The host page's "Audit log" panel (issue #41): the newest entries of the draw's audit log
// (GET /api/draws/<code>/audit with the host key, read forward from the last index seen, so
// following the log costs one small page per change). The whole log downloads from the Links
// card (audit.csv, audit.xlsx).

import { $, el } from '../lib/dom.js';
import { clockTime } from '../lib/format.js';
import { hostApi } from '../lib/host-api.js';
import { errorText, has, locale, t } from '../lib/i18n.js';

/** How many entries the panel shows (the CSV has them all). */
const SHOWN = 50;

export class HostAudit {
  /** `key()` returns the host key (or null). */
  constructor({ code, key }, root = document) {
    this.code = code;
    this.key = key;
    this.call = hostApi(code, key);
    this.panel = $('[data-audit-panel]', root);
    this.list = $('[data-audit-list]', root);
    this.status = $('[data-audit-status]', root);
    this.entries = [];
    this.last = null; // index of the newest entry read
    this.loading = false;
    this.again = false;
    this.error = null;
    this.followTimer = null;
    if (!this.panel) return;
    this.panel.addEventListener('toggle', () => { if (this.panel.open) this.refresh(); });
  }

  page(after) {
    return this.call('GET', `audit?limit=1000${after === null ? '' : `&after=${after}`}`);
  }

  /**
   * The room changed: read now, and once more a second later (in cluster mode an entry is kept
   * right after its command is answered, so it can trail the message that announced it).
   */
  follow() {
    this.refresh();
    if (this.followTimer) return;
    this.followTimer = setTimeout(() => { this.followTimer = null; this.refresh(); }, 1000);
  }

  /** Reads the entries written since the last read (only while the panel is open). */
  async refresh() {
    if (!this.panel?.open || !this.key()) return;
    if (this.loading) { this.again = true; return; }
    this.loading = true;
    try {
      for (;;) {
        const page = await this.page(this.last);
        if (page.entries.length) {
          this.entries = this.entries.concat(page.entries).slice(-SHOWN);
          this.last = page.entries[page.entries.length - 1].index;
        }
        if (page.next === null) break;
      }
      this.error = null;
    } catch (error) {
      this.error = error.code ?? 'network';
    }
    this.loading = false;
    this.render();
    if (this.again) { this.again = false; this.refresh(); }
  }

  render() {
    if (!this.list) return;
    const items = this.entries.slice().reverse().map((entry) => {
      const action = has(`audit.action.${entry.action}`) ? t(`audit.action.${entry.action}`) : t('audit.action.other');
      // A host command names who gave it (issue #41): the owner, or a co-host by name.
      const by = entry.actor === 'host' ? entry.detail?.operator : undefined;
      const actor = by === 'owner' ? t('audit.actor.owner')
        : typeof by === 'string' ? by
          : has(`audit.actor.${entry.actor}`) ? t(`audit.actor.${entry.actor}`) : entry.actor;
      const round = Number.isInteger(entry.detail?.round) && entry.detail.round > 0 ? t('host.audit.round', { n: entry.detail.round }) : '';
      return el('li', { data: { auditIndex: entry.index } },
        el('time', { text: clockTime(entry.at, locale()), attrs: { datetime: new Date(entry.at).toISOString() } }),
        el('span', { class: 'audit-actor', text: actor }),
        el('span', { class: 'audit-action', text: round ? `${action} · ${round}` : action }));
    });
    this.list.replaceChildren(...items);
    this.status.textContent = this.error ? errorText(this.error) : (this.entries.length ? '' : t('host.audit.empty'));
  }
}
