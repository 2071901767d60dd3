// Named operators on the host page (issue #41). The owner (and host-role co-hosts) add co-hosts
// in the "Co-hosts" panel (POST /api/draws/<code>/operators: the new link is shown once, only
// its key's hash is kept) and revoke them one by one. A page opened with a co-host's link learns
// its role from the server's `operator` message and hides what the role may not do (the server
// refuses it anyway: role_forbidden): a presenter keeps Start and Stop, check-in the entrants.

import { $, copyText, el, setText } from '../lib/dom.js';
import { apiErrorText, hostApi } from '../lib/host-api.js';
import { t } from '../lib/i18n.js';

export class HostOperators {
  /** `key()` returns this page's key (or null); `toast(text)` shows a message. */
  constructor({ code, key, toast, socket }, root = document) {
    this.call = hostApi(code, key);
    this.toast = toast;
    this.root = root;
    this.me = null; // {id, name, role} when this page holds a co-host's key
    this.rows = [];
    this.panel = $('[data-operators-panel]', root);
    this.list = $('[data-operators-list]', root);
    this.created = $('[data-operator-created]', root);
    this.line = $('[data-operator-line]', root);
    socket.addEventListener('message', ({ detail }) => {
      if (detail?.type === 'operator') this.identify({ id: detail.id, name: detail.name, role: detail.role });
      if (detail?.type === 'role' && detail.role !== 'host') this.identify(null);
    });
    this.panel?.addEventListener('toggle', () => { if (this.panel.open) this.load(); });
    $('[data-operator-form]', root)?.addEventListener('submit', (event) => { event.preventDefault(); this.add(); });
  }

  /** Whether this page may start and stop (the owner, a host or a presenter co-host). */
  mayDrive() {
    return !this.me || this.me.role === 'host' || this.me.role === 'presenter';
  }

  /** This page's co-host identity (null: the owner's key, or no key): what it may see follows. */
  identify(me) {
    this.me = me;
    // The stylesheet hides, per role, the controls it may not use (css/draw.css, "Co-host roles").
    if (me && me.role !== 'host') document.body.dataset.operatorRole = me.role;
    else delete document.body.dataset.operatorRole;
    this.render();
  }

  async load() {
    try {
      this.rows = (await this.call('GET', 'operators')).operators;
    } catch (error) {
      this.toast(apiErrorText(error));
    }
    this.render();
  }

  async add() {
    const name = $('[data-operator-name]', this.root).value.trim();
    const role = $('[data-operator-role]', this.root).value;
    try {
      const made = await this.call('POST', 'operators', { name, role });
      $('[data-operator-name]', this.root).value = '';
      this.showCreated(made);
      await this.load();
    } catch (error) {
      this.toast(apiErrorText(error));
    }
  }

  async revoke(row) {
    try {
      await this.call('DELETE', `operators/${encodeURIComponent(row.id)}`);
      await this.load();
    } catch (error) {
      this.toast(apiErrorText(error));
    }
  }

  /** The new co-host's link, shown this once (the server keeps only its key's hash). */
  showCreated(made) {
    const link = made.hostUrl;
    this.created.replaceChildren(
      el('p', { text: t('host.ops.link', { name: made.name }) }),
      el('code', { class: 'link-url', text: link, data: { operatorLink: made.id } }),
      el('button', {
        class: 'btn btn-small', text: t('host.copy'), attrs: { type: 'button' },
        on: { click: async () => { if (await copyText(link)) this.toast(t('host.copied')); } },
      }));
    this.created.hidden = false;
  }

  render() {
    if (this.line) {
      this.line.hidden = !this.me;
      if (this.me) setText(this.line, t('host.ops.you', { name: this.me.name, role: t(`host.ops.is.${this.me.role}`) }));
    }
    if (!this.list) return;
    const items = this.rows.map((row) => el('li', { data: { operatorId: row.id } },
      el('span', { class: 'operator-name', text: row.name }),
      el('span', { class: 'operator-role', text: t(`host.ops.is.${row.role}`) }),
      row.revoked === null
        ? el('button', { class: 'btn btn-small btn-danger', text: t('host.ops.revoke'), attrs: { type: 'button' }, on: { click: () => this.revoke(row) } })
        : el('span', { class: 'operator-revoked', text: t('host.ops.revoked') })));
    this.list.replaceChildren(...items);
    setText($('[data-operators-empty]', this.root), this.rows.length ? '' : t('host.ops.none'));
  }
}
