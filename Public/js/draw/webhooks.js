// The host page's "Webhooks" panel (issue #43, item 4): the draw's outgoing webhooks with their
// last delivery (GET /api/draws/<code>/webhooks with the host key), a form to add one (its
// signing secret is shown here once, as the server answers it) and Delete on each.

import { $, el } from '../lib/dom.js';
import { clockTime } from '../lib/format.js';
import { apiErrorText, hostApi } from '../lib/host-api.js';
import { lang, locale, t } from '../lib/i18n.js';

export class HostWebhooks {
  /** `key()` returns the host key (or null). */
  constructor({ code, key }, root = document) {
    this.key = key;
    this.call = hostApi(code, key);
    this.panel = $('[data-webhooks-panel]', root);
    this.list = $('[data-webhook-list]', root);
    this.empty = $('[data-webhook-empty]', root);
    this.form = $('[data-webhook-form]', root);
    this.error = $('[data-webhook-error]', root);
    this.secret = $('[data-webhook-secret]', root);
    this.hooks = [];
    this.secretText = null; // the last hook's secret, shown until the panel closes
    if (!this.panel) return;
    this.panel.addEventListener('toggle', () => {
      if (this.panel.open) this.refresh();
      else this.secretText = null;
      this.render();
    });
    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.add(); });
  }

  /** A delivery may have happened: read the statuses again (only while the panel is open). */
  follow() {
    if (!this.panel?.open) return;
    clearTimeout(this.followTimer);
    this.followTimer = setTimeout(() => this.refresh(), 1500);
  }

  async refresh() {
    if (!this.panel?.open || !this.key()) return;
    try {
      this.hooks = (await this.call('GET', 'webhooks')).webhooks;
      this.error.textContent = '';
    } catch (error) {
      this.error.textContent = apiErrorText(error);
    }
    this.render();
  }

  async add() {
    const url = $('[data-webhook-url]', this.form).value.trim();
    const format = $('[data-webhook-format]', this.form).value;
    try {
      const hook = await this.call('POST', 'webhooks', { url, format, language: lang() });
      this.secretText = hook.secret;
      $('[data-webhook-url]', this.form).value = '';
      this.error.textContent = '';
      await this.refresh();
    } catch (error) {
      this.error.textContent = apiErrorText(error);
    }
  }

  async remove(id) {
    try {
      await this.call('DELETE', `webhooks/${encodeURIComponent(id)}`);
      await this.refresh();
    } catch (error) {
      this.error.textContent = apiErrorText(error);
    }
  }

  /** The last delivery in the page's language (the server's error text stays out: it is English). */
  lastText(last) {
    if (!last || last.at === null) return t('host.webhooks.last.none');
    const time = clockTime(last.at, locale());
    if (last.status >= 200 && last.status < 300) return t('host.webhooks.last.ok', { status: last.status, time });
    if (last.status > 0) return t('host.webhooks.last.failed', { status: last.status, time });
    return t('host.webhooks.last.unsent', { time });
  }

  render() {
    if (!this.list) return;
    this.list.replaceChildren(...this.hooks.map((hook) => el('li', { data: { webhookId: hook.id } },
      el('bdi', { class: 'webhook-url', text: hook.url, attrs: { dir: 'ltr' } }),
      el('span', { class: 'webhook-format', text: t(`host.webhooks.format.${hook.format}`) }),
      el('span', { class: 'webhook-last', text: this.lastText(hook.last) }),
      el('button', { class: 'btn btn-small', text: t('host.webhooks.delete'), attrs: { type: 'button' },
        on: { click: () => this.remove(hook.id) } }))));
    this.empty.hidden = this.hooks.length > 0;
    this.secret.hidden = !this.secretText;
    this.secret.textContent = this.secretText ? t('host.webhooks.secret', { secret: this.secretText }) : '';
  }
}
