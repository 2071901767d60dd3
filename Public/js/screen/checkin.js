// The projector's check-in lines: entries open or closed, the live count of entrants, and
// (on a screen opened with the host key) the presence code, which changes every 30 s.

import { $, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';

export class ScreenCheckin {
  constructor({ code, key }, root = document) {
    this.code = code;
    this.key = key;
    this.line = $('[data-checkin-line]', root);
    this.count = $('[data-entrant-count]', root);
    this.presence = $('[data-presence]', root);
    this.presenceCode = $('[data-presence-code]', root);
    this.presenceHidden = $('[data-presence-hidden]', root);
    this.timer = null;
    this.codeValue = null;
  }

  render(state) {
    const c = state.checkin;
    show(this.line, Boolean(c));
    show(this.count, Boolean(c));
    if (!c) { this.stopCode(); show(this.presence, false); show(this.presenceHidden, false); return; }
    setText(this.line, c.open ? t('screen.checkin.open') : t('screen.checkin.closed'));
    setText(this.count, t('screen.checkin.count', { n: c.count ?? 0 }));
    document.body.classList.toggle('entries-open', Boolean(c.open));
    const wantCode = Boolean(c.open && c.presence && this.key());
    // Without the key this screen cannot show the code: say where it is (issue #26).
    show(this.presenceHidden, Boolean(c.open && c.presence && !this.key()));
    if (wantCode && !this.timer) this.startCode();
    if (!wantCode) this.stopCode();
    show(this.presence, wantCode && this.codeValue !== null);
  }

  startCode() {
    const poll = async () => {
      try {
        const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/entries/presence`, {
          headers: { Authorization: `Bearer ${this.key() ?? ''}` }, cache: 'no-store',
        });
        if (response.ok) {
          const body = await response.json();
          this.codeValue = body.code;
          setText(this.presenceCode, body.code);
          show(this.presence, true);
          // Ask again just after it changes (and every 5 s in case the clock drifts).
          const wait = Math.max(500, Math.min(5000, body.changesAt - Date.now() + 200));
          this.timer = setTimeout(poll, wait);
          return;
        }
      } catch { /* offline: try again */ }
      this.timer = setTimeout(poll, 5000);
    };
    this.timer = setTimeout(poll, 0);
  }

  stopCode() {
    clearTimeout(this.timer);
    this.timer = null;
    this.codeValue = null;
  }
}
