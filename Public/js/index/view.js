// Owns the landing page's DOM.

import { $, copyText, el, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, locale, t } from '../lib/i18n.js';

export class HomeView {
  constructor(root = document) {
    this.root = root;
    this.form = $('[data-create]', root);
    this.keyInput = $('[data-admin-key]', root);
    this.qr = $('[data-lan-qr]', root);
    this.qrFor = null;
    this.qr.addEventListener('load', () => show(this.qr, true));
    this.qr.addEventListener('error', () => show(this.qr, false));
  }

  bindCreate(handler) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const key = this.keyInput.value.trim();
      if (key) handler(key);
    });
  }

  /** The admin key as typed (trimmed), or ''. */
  adminKey() {
    return this.keyInput.value.trim();
  }

  setAdminKey(key) {
    this.keyInput.value = key;
  }

  bindShowDraws(handler) {
    $('[data-admin-show]', this.root).addEventListener('click', () => {
      if (!this.form.reportValidity()) return;
      handler(this.adminKey());
    });
    $('[data-admin-more]', this.root).addEventListener('click', () => handler(this.adminKey(), true));
  }

  /** handler(action, code): action is archive, unarchive, delete (asks), confirm or cancel. */
  bindAdminAction(handler) {
    $('[data-admin-list]', this.root).addEventListener('click', (event) => {
      const button = event.target.closest('[data-action]');
      if (button) handler(button.dataset.action, button.dataset.code);
    });
  }

  bindCopy(handler) {
    $('[data-created-copy]', this.root).addEventListener('click', handler);
  }

  async copy(text) {
    return copyText(text);
  }

  render(state) {
    const code = state.info?.defaultDraw;
    show($('[data-default-draw]', this.root), Boolean(code));
    show($('[data-no-draw]', this.root), state.infoLoaded && !code);
    if (code) {
      $('[data-watch-link]', this.root).href = `/watch/${encodeURIComponent(code)}`;
      $('[data-screen-link]', this.root).href = `/screen/${encodeURIComponent(code)}`;
    }
    const lan = state.info?.lanUrl ?? (state.infoLoaded ? location.origin : null);
    setText($('[data-lan-url]', this.root), lan ?? '');
    if (lan && this.qrFor !== lan) {
      this.qrFor = lan;
      this.qr.alt = t('home.lan.qr');
      this.qr.src = `/api/qr?text=${encodeURIComponent(lan)}`;
    }

    const submit = $('[data-create-submit]', this.root);
    submit.disabled = state.creating;
    setText(submit, state.creating ? t('home.create.busy') : t('home.create.submit'));
    setText($('[data-create-error]', this.root), state.createError ? errorText(state.createError) : '');
    show($('[data-created]', this.root), Boolean(state.created));
    if (state.created) {
      setText($('[data-created-text]', this.root), t('home.create.done', { code: state.created.code }));
      $('[data-created-link]', this.root).href = state.created.hostUrl;
    }
    this.renderAdmin(state.admin);
  }

  renderAdmin(admin) {
    show($('[data-admin]', this.root), admin.open);
    const showButton = $('[data-admin-show]', this.root);
    showButton.disabled = admin.loading;
    setText($('[data-admin-error]', this.root), admin.error ? errorText(admin.error) : '');
    setText($('[data-admin-notice]', this.root), admin.deleted ? t('home.admin.deleted', { code: admin.deleted }) : '');
    show($('[data-admin-empty]', this.root), admin.open && !admin.loading && !admin.error && admin.draws.length === 0);
    const more = $('[data-admin-more]', this.root);
    show(more, Boolean(admin.next));
    more.disabled = admin.loading;
    const focused = document.activeElement?.closest?.('[data-admin-list] [data-action]');
    const refocus = focused ? `${focused.dataset.action}:${focused.dataset.code}` : null;
    replaceChildren($('[data-admin-list]', this.root), admin.draws.map((draw) => this.item(draw, admin)));
    if (refocus) {
      const [action, code] = refocus.split(':');
      const again = $(`[data-admin-list] [data-code="${CSS.escape(code)}"][data-action="${action}"]`, this.root)
        ?? $(`[data-admin-list] [data-code="${CSS.escape(code)}"][data-action]`, this.root);
      again?.focus();
    }
  }

  item(draw, admin) {
    const when = new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' });
    const busy = admin.busy === draw.code;
    const button = (action, label, extra = '') => el('button', {
      class: `btn btn-small ${extra}`.trim(), text: t(label),
      attrs: { type: 'button', disabled: busy || admin.loading, 'aria-label': t(`${label}.label`, { code: draw.code }) },
      data: { action, code: draw.code },
    });
    const actions = [];
    if (admin.confirming === draw.code && admin.confirmAction === 'archive') {
      actions.push(el('p', { class: 'admin-confirm', text: t('home.admin.archive.confirm', { code: draw.code }) }));
      actions.push(el('div', { class: 'home-actions' },
        button('confirm', 'home.admin.archive.yes', 'btn-primary'), button('cancel', 'home.admin.archive.no')));
    } else if (admin.confirming === draw.code) {
      actions.push(el('p', { class: 'admin-confirm', text: t('home.admin.confirm', { code: draw.code }) }));
      actions.push(el('div', { class: 'home-actions' },
        button('confirm', 'home.admin.confirm.yes', 'btn-danger'), button('cancel', 'home.admin.confirm.no')));
    } else {
      const row = [el('a', { class: 'btn btn-small', text: t('home.admin.view'), attrs: { href: `/watch/${encodeURIComponent(draw.code)}`, 'aria-label': t('home.admin.view.label', { code: draw.code }) } })];
      row.push(draw.archived ? button('unarchive', 'home.admin.unarchive') : button('archive', 'home.admin.archive'));
      if (draw.archived) row.push(button('delete', 'home.admin.delete', 'btn-danger'));
      actions.push(el('div', { class: 'home-actions' }, row));
    }
    return el('li', { class: 'admin-item', data: { draw: draw.code } },
      el('div', { class: 'admin-item-head' },
        el('span', { class: 'admin-code mono', text: draw.code }),
        el('span', { class: 'admin-title', text: draw.title ?? t('home.admin.untitled') }),
        draw.archived ? el('span', { class: 'admin-badge', text: t('home.admin.archived') }) : null),
      el('p', { class: 'admin-meta', text: t('home.admin.meta', {
        created: when.format(new Date(draw.created)), rounds: draw.rounds, last: when.format(new Date(draw.lastActivity)),
      }) }),
      draw.retention ? el('p', { class: 'admin-meta', data: { retention: '' }, text: retentionText(draw.retention, when) }) : null,
      actions);
  }
}

/** What the draw's retention (`retentionDays`) erases when: the admin list's line under the dates. */
function retentionText(retention, when) {
  if (retention.entrants === 0) return t('home.admin.retention.none');
  if (retention.open) return t('home.admin.retention.open');
  return t('home.admin.retention.due', { date: when.format(new Date(retention.dueAt)) });
}
