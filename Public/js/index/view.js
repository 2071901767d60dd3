// Owns the landing page's DOM.

import { $, copyText, setText, show } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';

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
  }
}
