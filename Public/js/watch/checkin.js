// The viewer page's check-in: the join form while entries are open, the phone's own entry
// once it entered, and "You won!" when a revealed round drew it. Owns its part of the DOM.

import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';

/** Characters a name may have (the server's limit, CheckinSettings.maxNameLength). */
const NAME_LIMIT = 60;

export class JoinPanel {
  constructor(root = document) {
    this.card = $('[data-checkin]', root);
    this.form = $('[data-join-form]', root);
    this.name = $('[data-join-name]', root);
    this.fields = $('[data-join-fields]', root);
    this.codeRow = $('[data-join-code-row]', root);
    this.code = $('[data-join-code]', root);
    this.error = $('[data-join-error]', root);
    this.submit = $('[data-join-submit]', root);
    this.done = $('[data-join-done]', root);
    this.doneText = $('[data-join-done-text]', root);
    this.id = $('[data-join-id]', root);
    this.closed = $('[data-join-closed]', root);
    this.count = $('[data-join-count]', root);
    this.won = $('[data-you-won]', root);
    this.wonDetail = $('[data-you-won-detail]', root);
    this.stage = $('[data-stage]', root);
    this.fieldsShown = '';
  }

  /** `handler({ name, fields, code })` runs on submit. */
  bindJoin(handler) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      // Refused here as the server would refuse it: a longer name is never cut without a word.
      if ([...this.name.value.trim()].length > NAME_LIMIT) { this.showError('bad_name'); this.name.focus(); return; }
      const fields = {};
      for (const input of this.fields.querySelectorAll('[data-field-key]')) {
        if (input.value.trim() !== '') fields[input.dataset.fieldKey] = input.value;
      }
      handler({ name: this.name.value, fields, code: this.codeRow.hidden ? null : this.code.value });
    });
  }

  showError(code, field) {
    if (!code) { setText(this.error, ''); return; }
    const label = field ? this.fieldLabel(field) : null;
    setText(this.error, label ? `${errorText(code)} (${label})` : errorText(code));
  }

  fieldLabel(key) {
    return this.lastFields?.find((f) => f.key === key)?.label ?? key;
  }

  setBusy(busy) {
    this.submit.disabled = busy;
  }

  /**
   * While entries are open the card stands above the stage (the form is what the guest came for);
   * once they close it moves under the stage, which is the show from then on: "You won!", the
   * claim and the voucher above it, the stage's winner still on a 390x844 screen.
   */
  placeCard(open) {
    if (!this.stage) return;
    if (open && this.card.nextElementSibling !== this.stage) this.stage.before(this.card);
    if (!open && this.card.previousElementSibling !== this.stage) this.stage.after(this.card);
  }

  render(state) {
    const checkin = state.checkin;
    const me = state.me;
    show(this.card, Boolean(checkin) || Boolean(me));
    const win = state.myWin();
    show(this.won, Boolean(win));
    if (win) {
      setText(this.wonDetail, win.prize ? t('checkin.won.prize', { prize: win.prize, n: win.round }) : t('checkin.won.round', { n: win.round }));
    }
    document.body.classList.toggle('i-won', Boolean(win));
    if (!checkin && !me) return;
    const open = Boolean(checkin?.open);
    this.placeCard(open);
    show(this.form, open && !me);
    show(this.done, Boolean(me));
    show(this.closed, !open && !me);
    if (me) {
      setText(this.doneText, me.removed ? t('checkin.removed', { name: me.name ?? '' }) : t('checkin.done', { name: me.name ?? '' }));
      setText(this.id, me.id);
    }
    setText(this.count, typeof checkin?.count === 'number' ? t('checkin.count', { n: checkin.count }) : '');
    show(this.codeRow, Boolean(checkin?.presence));
    const fields = Array.isArray(checkin?.fields) ? checkin.fields : [];
    const signature = JSON.stringify(fields);
    if (signature !== this.fieldsShown) {
      this.fieldsShown = signature;
      this.lastFields = fields;
      replaceChildren(this.fields, ...fields.map((f) => el('label', { class: 'field' },
        el('span', { text: f.required ? f.label : t('checkin.optional', { label: f.label }) }),
        el('input', { attrs: { type: 'text', maxlength: f.maxLength ?? 64, autocomplete: 'off', ...(f.required ? { required: '' } : {}) },
          data: { fieldKey: f.key } }))));
    }
  }
}

/** The join attempt's `Idempotency-Key` (128 random bits), kept until an answer arrives: a retry after
 *  a lost answer sends the same key and gets its entry back (docs/PROTOCOL.md "Check-in"). */
function joinKey(code) {
  const slot = `tombola.joinKey.${code}`;
  try {
    let key = sessionStorage.getItem(slot);
    if (!key) {
      key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
      sessionStorage.setItem(slot, key);
    }
    return { key, done: () => sessionStorage.removeItem(slot) };
  } catch {
    return { key: null, done: () => {} }; // storage blocked: join without a key, as before
  }
}

/** POST /api/draws/<code>/join; resolves to { entry } or { error: { code, field, entry } }. */
export async function join(code, body) {
  const { key, done } = joinKey(code);
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/join`, {
      method: 'POST', body: JSON.stringify(body), credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
    });
    done(); // answered: the device cookie came with it, the next attempt gets a new key
    const json = await response.json().catch(() => null);
    if (response.ok) return { entry: json?.entry ?? null };
    return { error: json?.error ?? { code: 'network' } };
  } catch {
    return { error: { code: 'network' } };
  }
}

/** This device's entry (GET /api/draws/<code>/entry), or null. */
export async function myEntry(code) {
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/entry`, { cache: 'no-store', credentials: 'same-origin' });
    return response.ok ? (await response.json())?.entry ?? null : null;
  } catch {
    return null;
  }
}
