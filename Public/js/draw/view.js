// Owns the host/viewer page's DOM.

import { booksText, parseBooks, renderBooksPreview } from './books-form.js';
import { modeSelect, mountSlowDown, readSlowDown, showSlowDown } from './modes.js';
import { $, $$, copyText, downloadBlob, el, isTyping, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, lang, t } from '../lib/i18n.js';
import { Stage, boardSignature, renderHistory, renderWinners, valueText } from '../lib/board.js';
import { countEntrants, groupList, parseList } from './entrants.js';

const MAX_RANGE = 1e12;

export class DrawView {
  constructor(root = document) {
    this.root = root;
    this.heading = $('[data-heading]', root);
    this.roleBadge = $('[data-role-badge]', root);
    this.toastNode = $('[data-toast]', root);
    this.barStatus = $('[data-bar-status]', root);
    this.barToast = '';
    this.planText = '';
    this.stage = Stage.within(root, { fit: { max: 200, min: 18, waitingMax: 28 }, showContributing: false, hostPrompt: true });
    this.winners = $('[data-winners]', root);
    this.winnersEmpty = $('[data-winners-empty]', root);
    this.winnersHeading = $('[data-winners-heading]', root);
    this.history = $('[data-history]', root);
    this.historyEmpty = $('[data-history-empty]', root);
    this.startStop = $('[data-startstop]', root);
    this.audience = $('[data-audience]', root);
    this.form = $('[data-settings]', root);
    this.prizeRows = $('[data-prize-rows]', root);
    this.prizeCurrent = $('[data-prize-current]', root);
    this.settingsError = $('[data-settings-error]', root);
    mountSlowDown(this.form);
    this.clearDialog = $('[data-clear-dialog]', root);
    this.voidDialog = $('[data-void-dialog]', root);
    this.links = $('[data-links]', root);
    this.formDirty = false;
    /** Entrant objects (tickets, group, id) of a detailed list, while the names box still shows them. */
    this.detailed = null;
    this.detailedText = '';
    this.onImport = null;
    this.importResult = null;
    this.onVoid = null;
    this.toastTimer = 0;
    this.wireForm();
  }

  // --- intents ---

  bindStartStop(handler) {
    this.startStop.addEventListener('click', () => handler());
    document.addEventListener('keydown', (event) => {
      if (event.key !== ' ' && event.key !== 'Enter') return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target;
      if (isTyping(target) || document.querySelector('dialog[open]')) return;
      // A focused control keeps its own Space/Enter; the shortcut is for the page itself (presenter clickers).
      if (target instanceof Element && target.closest('button, a, summary, select, input, textarea')) return;
      if (this.startStop.closest('[hidden]') || this.startStop.disabled) return;
      event.preventDefault();
      handler();
    });
  }

  /** The rehearsal's wipe (issue 45): after a confirmation, `handler()`. */
  bindWipeRehearsal(handler) {
    $('[data-wipe-rehearsal]', this.root).addEventListener('click', () => {
      if (window.confirm(t('host.rehearsal.wipe.confirm'))) handler();
    });
  }

  /** After the wipe: the settings saved again without rehearsal, so the next round is real. */
  goLive() {
    $('[data-rehearsal]', this.form).checked = false;
    this.form.requestSubmit();
  }

  /** A sealed round waiting for drand round R (issue #40): `retry()` asks the relays again at once;
   * `abandon(reason)` gives R up on the record, after the host says why. */
  bindBeacon({ retry, abandon }) {
    this.beaconActions = $('[data-beacon-actions]', this.root);
    $('[data-beacon-retry]', this.root).addEventListener('click', () => retry());
    $('[data-beacon-abandon]', this.root).addEventListener('click', () => {
      const reason = window.prompt(t('host.beacon.abandon.prompt', { r: this.beaconRound }))?.trim();
      if (reason) abandon(reason.slice(0, 200));
    });
  }

  renderBeacon(state) {
    if (!this.beaconActions) return;
    const waiting = state.isHost && state.beacon?.status === 'waiting';
    this.beaconRound = state.beacon?.beaconRound ?? null;
    show(this.beaconActions, waiting);
    if (waiting) setText($('[data-beacon-abandon]', this.root), t('host.beacon.abandon', { r: this.beaconRound }));
  }

  bindClear(handler) {
    $('[data-clear]', this.root).addEventListener('click', () => this.clearDialog.showModal());
    this.clearDialog.addEventListener('close', () => {
      if (this.clearDialog.returnValue === 'clear') handler();
      this.clearDialog.returnValue = '';
    });
  }

  bindVoid(handler) {
    let target = null;
    this.onVoid = (entry) => {
      target = entry;
      setText($('[data-void-title]', this.voidDialog), t('host.void.title', { value: valueText(entry.value) }));
      $('[data-void-reason]', this.voidDialog).value = '';
      this.voidDialog.showModal();
    };
    this.voidDialog.addEventListener('close', () => {
      const reason = $('[data-void-reason]', this.voidDialog).value.trim();
      if (this.voidDialog.returnValue === 'void' && target && reason) {
        handler({ round: target.round, winner: target.value, reason });
      }
      target = null;
      this.voidDialog.returnValue = '';
    });
  }

  /** `handler(config)` receives a validated config object. */
  bindSettings(handler) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const { config, error } = this.readConfig();
      setText(this.settingsError, error ?? '');
      if (config) {
        this.formDirty = false;
        handler(config);
      }
    });
  }

  readAudience() {
    const value = this.audience.value.trim();
    return /^\d{1,32}$/.test(value) ? value : null;
  }

  clearAudience() {
    this.audience.value = '';
  }

  // --- settings form ---

  wireForm() {
    // A field's own "change" as the form is refilled (its blur) is no edit of the host's.
    this.form.addEventListener('input', () => { if (!this.filling) { this.formDirty = true; this.updateFormShape(); } });
    this.form.addEventListener('change', () => { if (!this.filling) { this.formDirty = true; this.updateFormShape(); } });
    $('[data-add-prize]', this.form).addEventListener('click', () => {
      this.addPrizeRow({ name: '', count: 1 });
      this.formDirty = true;
      this.updateFormShape();
      $$('[data-prize-name]', this.prizeRows).at(-1)?.focus();
    });
    this.prizeRows.addEventListener('click', (event) => {
      const remove = event.target.closest('[data-remove-prize]');
      if (!remove) return;
      remove.closest('li').remove();
      this.formDirty = true;
      this.renumberPrizes();
      this.updateFormShape();
    });
    $('[data-csv]', this.form).addEventListener('change', async (event) => {
      const file = event.target.files?.[0];
      if (!file) return;
      await this.previewImport(new Uint8Array(await file.arrayBuffer()), file.name);
      event.target.value = '';
    });
    $('[data-import-paste]', this.form).addEventListener('click', () => {
      this.previewImport(new TextEncoder().encode($('[data-entrants]', this.form).value), null);
    });
    $('[data-import-use]', this.form).addEventListener('click', () => this.useImport());
  }

  /** `handler(bytes, merge)` resolves to { preview } or { error: { code, line } } (the REST preview). */
  bindImport(handler) {
    this.onImport = handler;
  }

  async previewImport(bytes, fileName) {
    if (!this.onImport) return;
    const outcome = await this.onImport(bytes, $('[data-import-merge]', this.form).checked);
    const panel = $('[data-import-preview]', this.form);
    if (outcome.error) {
      this.importResult = null;
      show(panel, false);
      const line = outcome.error.line ? ` (${t('host.import.line', { line: outcome.error.line })})` : '';
      this.toast(errorText(outcome.error.code) + line);
      return;
    }
    const p = outcome.preview;
    this.importResult = { entrants: p.entrants, fileName };
    setText($('[data-import-summary]', panel), t('host.import.summary', {
      n: p.count, tickets: p.tickets, rejected: p.rejectedCount, duplicates: p.duplicates.length,
    }));
    const head = el('tr', {}, ...['name', 'tickets', 'group', 'id'].map((c) => el('th', { text: t(`host.import.col.${c}`) })));
    const rows = p.first.map((e) => el('tr', {}, el('td', { text: e.name }), el('td', { text: String(e.tickets) }),
      el('td', { text: e.group ?? '' }), el('td', { text: e.id ?? '' })));
    replaceChildren($('[data-import-rows]', panel), head, ...rows);
    // A repeated name or id is listed once, with its lines, not again among the rejected rows.
    const repeated = new Set(['duplicate_name', 'duplicate_id']);
    const problems = [
      ...p.rejected.filter((r) => !repeated.has(r.reason))
        .map((r) => t('host.import.rejected', { line: r.line, reason: t(`host.import.reason.${r.reason}`) })),
      ...p.duplicates.map((d) => t('host.import.duplicate', { name: d.name, lines: d.lines.join(', ') })),
    ];
    if (p.duplicates.length) problems.push(t('host.import.samename'));
    replaceChildren($('[data-import-problems]', panel), ...problems.map((text) => el('li', { text })));
    show($('[data-import-use]', panel), p.count >= 2);
    show(panel, true);
  }

  useImport() {
    const result = this.importResult;
    if (!result) return;
    const entrants = result.entrants;
    const detailed = entrants.some((e) => e.tickets !== 1 || e.group || e.id);
    $('[data-entrants]', this.form).value = entrants.map((e) => e.name).join('\n');
    this.setDetailed(detailed ? entrants : null);
    show($('[data-import-preview]', this.form), false);
    this.importResult = null;
    this.formDirty = true;
    this.updateFormShape();
    const loaded = result.fileName ? t('host.pool.csv.loaded', { n: entrants.length, file: result.fileName }) : '';
    // Using the list saves it (issue 39, item 3): the pool the bar announces is the one Start
    // draws from, with no "Save settings" to forget. While a round rolls the form is locked:
    // the list waits in the form and Start asks for Save first (main.js).
    if (!$('[data-save]', this.form).disabled) {
      this.savedText = loaded ? t('host.pool.saved', { loaded }) : null;
      this.form.requestSubmit();
    }
    if (loaded) this.toast(loaded);
  }

  /** The message for the server's "saved": the loaded list's, once, else "Settings saved". */
  takeSavedText() {
    const text = this.savedText ?? t('host.saved');
    this.savedText = null;
    return text;
  }

  setDetailed(entrants) {
    this.detailed = entrants;
    this.detailedText = $('[data-entrants]', this.form).value;
    const note = $('[data-detailed-note]', this.form);
    show(note, Boolean(entrants));
    if (entrants) setText(note, t('host.import.detailed', { n: entrants.length }));
  }

  poolKind() {
    return $$('[data-pool-kind]', this.form).find((r) => r.checked)?.value ?? 'range';
  }

  updateFormShape() {
    const list = this.poolKind() === 'list';
    show($('[data-range-fields]', this.form), this.poolKind() === 'range');
    show($('[data-list-fields]', this.form), list);
    show($('[data-books-fields]', this.form), this.poolKind() === 'books');
    if (this.poolKind() === 'books') renderBooksPreview($('[data-books-preview]', this.form), $('[data-books]', this.form).value);
    if (list) {
      const text = $('[data-entrants]', this.form).value;
      if (this.detailed && text !== this.detailedText) this.setDetailed(null);  // edited: a plain list again
      const count = countEntrants(text);
      setText($('[data-entrant-count]', this.form), t('host.pool.count', { n: count }));
    }
    show($('[data-claim-fields]', this.form), this.poolKind() === 'checkin');
    show($('[data-retention-fields]', this.form), this.poolKind() === 'checkin');
    const rows = $$('[data-prize-name]', this.prizeRows);
    show($('[data-prize-current-field]', this.form), rows.length > 0);
    const selected = this.prizeCurrent.value;
    replaceChildren(this.prizeCurrent, rows.map((input, i) => el('option', { text: input.value || `#${i + 1}`, attrs: { value: i } })));
    if (selected && Number(selected) < rows.length) this.prizeCurrent.value = selected;
  }

  addPrizeRow(prize) {
    const index = this.prizeRows.children.length + 1;
    const row = el('li', { class: 'prize-row' },
      el('label', { class: 'field' }, el('span', { text: t('host.prizes.name') }),
        el('input', { attrs: { type: 'text', maxlength: 100, value: prize.name ?? '' }, data: { prizeName: '' } })),
      el('label', { class: 'field' }, el('span', { text: t('host.prizes.count') }),
        el('input', { attrs: { type: 'number', min: 1, max: 100000, step: 1, value: prize.count ?? 1 }, data: { prizeCount: '' } })),
      el('label', { class: 'field' }, el('span', { text: t('host.prizes.only') }),
        el('input', { attrs: { type: 'text', value: (prize.onlyGroups ?? []).join(', ') }, data: { prizeOnly: '' } })),
      el('label', { class: 'field' }, el('span', { text: t('host.prizes.except') }),
        el('input', { attrs: { type: 'text', value: (prize.exceptGroups ?? []).join(', ') }, data: { prizeExcept: '' } })),
      modeSelect(prize.mode),
      el('button', {
        class: 'btn btn-small', text: '✕',
        attrs: { type: 'button', 'aria-label': t('host.prizes.remove', { n: index }) },
        data: { removePrize: '' },
      }));
    this.prizeRows.append(row);
  }

  renumberPrizes() {
    $$('[data-remove-prize]', this.prizeRows).forEach((b, i) => b.setAttribute('aria-label', t('host.prizes.remove', { n: i + 1 })));
  }

  /** Fills the form from the server's config unless the host is editing it. */
  fillForm(config, hash) {
    if (!config || this.formDirty) return;
    // Once per settings (their hash) and language: a render between Save and the server's answer
    // must not put the old settings back into the form the host just saved.
    if (hash !== undefined && hash === this.filledHash) return;
    this.filledHash = hash;
    this.filling = true;
    try {
      // A focused field that is about to be replaced fires "change" as it goes: let it go now.
      if (this.form.contains(document.activeElement)) document.activeElement.blur();
      this.fillFields(config);
    } finally {
      this.filling = false;
    }
  }

  fillFields(config) {
    const pool = config.pool ?? {};
    for (const r of $$('[data-pool-kind]', this.form)) r.checked = r.value === (['list', 'checkin', 'books'].includes(pool.kind) ? pool.kind : 'range');
    if (pool.kind === 'books') {
      $('[data-books]', this.form).value = booksText(pool.books);
    } else if (pool.kind === 'range') {
      $('[data-from]', this.form).value = pool.from ?? 1;
      $('[data-to]', this.form).value = pool.to ?? 500;
    } else if (Array.isArray(pool.entrants)) {
      const objects = pool.entrants.some((e) => typeof e === 'object' && e !== null);
      $('[data-entrants]', this.form).value = pool.entrants.map((e) => (typeof e === 'string' ? e : e.name)).join('\n');
      this.setDetailed(objects ? pool.entrants.map((e) => (typeof e === 'string' ? { name: e, tickets: 1 } : e)) : null);
    }
    $('[data-exclude]', this.form).value = (config.exclude ?? []).join('\n');
    $('[data-perstop]', this.form).value = config.perStop === 'all' ? 1 : config.perStop ?? 1;
    $('[data-repeats]', this.form).checked = Boolean(config.repeats);
    $('[data-rehearsal]', this.form).checked = config.rehearsal === true;
    $('[data-foureyes]', this.form).checked = config.foureyes === true;
    $('[data-private]', this.form).checked = config.private === true;
    $('[data-waitlist-on]', this.form).checked = config.waitlist === true;
    $('[data-reverse-on]', this.form).checked = config.reverse === true;
    $('[data-mode]', this.form).value = config.mode ?? 'number';
    $('[data-mask]', this.form).value = config.mask ?? 'none';
    showSlowDown(this.form, config);
    $('[data-claim-on]', this.form).checked = Boolean(config.claim);
    $('[data-claim-seconds]', this.form).value = config.claim?.seconds ?? 30;
    $('[data-claim-alternates]', this.form).value = config.claim?.alternates ?? 3;
    $('[data-retention]', this.form).value = config.retentionDays ?? '';
    replaceChildren(this.prizeRows);
    for (const p of config.prizes ?? []) this.addPrizeRow(p);
    this.updateFormShape();
    if (Number.isInteger(config.prize) && config.prize < (config.prizes ?? []).length) this.prizeCurrent.value = String(config.prize);
  }

  /** The form as a config object, or an error text. */
  readConfig() {
    const kind = this.poolKind();
    let pool;
    let exclude = parseList($('[data-exclude]', this.form).value, /[\n,;]/);
    if (kind === 'range') {
      const fromText = $('[data-from]', this.form).value.trim();
      const toText = $('[data-to]', this.form).value.trim();
      if (!/^-?\d+$/.test(fromText) || !/^-?\d+$/.test(toText)) return { error: t('host.invalid.range') };
      const from = Number(fromText);
      const to = Number(toText);
      if (!(to > from) || to - from + 1 > MAX_RANGE || Math.abs(from) > MAX_RANGE || Math.abs(to) > MAX_RANGE) return { error: t('host.invalid.range') };
      pool = { kind: 'range', from, to };
      exclude = exclude.filter((x) => /^-?\d+$/.test(x)).map(Number);
    } else if (kind === 'books') {
      const read = parseBooks($('[data-books]', this.form).value);
      if (read.error) return { error: read.error };
      pool = { kind: 'books', books: read.books };
    } else if (kind === 'checkin') {
      // The pool is whoever enters from their phones (the check-in card opens entries).
      pool = { kind: 'checkin' };
      exclude = [];
    } else {
      const entrants = parseList($('[data-entrants]', this.form).value);
      if (entrants.length < 2) return { error: t('host.invalid.list') };
      pool = { kind: 'list', entrants: this.detailed ?? entrants };
    }
    const perStop = Number($('[data-perstop]', this.form).value);
    if (!Number.isInteger(perStop) || perStop < 1) return { error: t('host.invalid.perstop') };
    const prizes = $$('.prize-row', this.prizeRows)
      .map((row) => {
        const prize = { name: $('[data-prize-name]', row).value.trim(), count: Number($('[data-prize-count]', row).value) };
        const only = groupList($('[data-prize-only]', row).value);
        const except = groupList($('[data-prize-except]', row).value);
        if (only.length) prize.onlyGroups = only;
        if (except.length) prize.exceptGroups = except;
        const mode = $('[data-prize-mode]', row).value;
        if (mode) prize.mode = mode;
        return prize;
      })
      .filter((p) => p.name !== '');
    if (prizes.some((p) => !Number.isInteger(p.count) || p.count < 1)) return { error: t('err.invalid_prize') };
    const prize = prizes.length ? Math.min(Number(this.prizeCurrent.value) || 0, prizes.length - 1) : 0;
    // Claims (check-in only): the server checks the bounds (bad_claim).
    const claim = kind === 'checkin' && $('[data-claim-on]', this.form).checked
      ? { seconds: Number($('[data-claim-seconds]', this.form).value), alternates: Number($('[data-claim-alternates]', this.form).value) }
      : null;
    return {
      config: { pool, exclude, perStop, repeats: $('[data-repeats]', this.form).checked, prizes, prize, mode: $('[data-mode]', this.form).value,
        mask: $('[data-mask]', this.form).value, claim, slowDown: readSlowDown(this.form),
        // Retention (check-in only): empty is none; the server checks the bounds (bad_retention).
        retentionDays: kind === 'checkin' && $('[data-retention]', this.form).value.trim() !== '' ? Number($('[data-retention]', this.form).value) : null,
        ...($('[data-rehearsal]', this.form).checked ? { rehearsal: true } : {}),
        ...($('[data-foureyes]', this.form).checked ? { foureyes: true } : {}),
        private: $('[data-private]', this.form).checked,
        ...($('[data-waitlist-on]', this.form).checked ? { waitlist: true } : {}),
        ...($('[data-reverse-on]', this.form).checked ? { reverse: true } : {}) },
    };
  }

  // --- links ---

  /** The event's pack (issue #41): offered while this draw excludes the winners of others (state updates). */
  showEventPack(state) {
    show($('[data-audit-export="event"]', this.root), (state.config?.excludeWinnersOf?.length ?? 0) > 0);
  }

  renderLinks(state, hostKey) {
    const base = state.lanBase ?? location.origin;
    const code = encodeURIComponent(state.code);
    const rows = [
      { label: t('host.link.screen'), url: `${base}/screen/${code}`, shown: `${base}/screen/${code}` },
      { label: t('host.link.viewer'), url: `${base}/watch/${code}`, shown: `${base}/watch/${code}` },
    ];
    if (hostKey) {
      const key = encodeURIComponent(hostKey);
      // The projector that Space, Enter and a presenter clicker drive (and that shows a check-in code).
      rows.unshift({ label: t('host.link.screenControls'), url: `${base}/screen/${code}#key=${key}`, shown: `${base}/screen/${code}#key=••••••`, secret: true, open: true, hook: 'screen-controls' });
      rows.push({ label: t('host.link.host'), url: `${base}/draw/${code}#key=${key}`, shown: `${base}/draw/${code}#key=••••••`, secret: true });
    }
    replaceChildren(this.links, rows.map((row) => el('li', { class: 'link-row', data: row.hook ? { link: row.hook } : {} },
      el('span', { class: 'link-label', text: row.label }),
      el('span', { class: 'link-url', text: row.shown }),
      el('span', { class: 'link-actions' },
        row.secret && !row.open ? null : el('a', { class: 'btn btn-small', text: t('host.open'), attrs: { href: row.url, target: '_blank', rel: 'noopener noreferrer', 'aria-label': `${t('host.open')}: ${row.label}` } }),
        el('button', {
          class: 'btn btn-small', text: t('host.copy'),
          attrs: { type: 'button', 'aria-label': `${t('host.copy')}: ${row.label}` },
          on: { click: async () => { if (await copyText(row.url)) this.toast(t('host.copied')); } },
        })))));
    for (const a of $$('[data-export]', this.root)) {
      const format = a.dataset.export;
      const sheet = format === 'csv' || format === 'xlsx';
      // The CSV and .xlsx in the page's language (a claim pass's reason); fetched with the host key,
      // they name a check-in pool's winners beside their ids (personal data: never in a plain link).
      a.href = `/api/draws/${code}/export.${format}${sheet ? `?lang=${encodeURIComponent(lang())}` : ''}`;
      // A private draw's JSON export with the key is the host's: the public ids beside the names (docs/FAIRNESS.md §22).
      if (sheet || (format === 'json' && state.config?.private === true)) a.onclick = hostKey ? (event) => { event.preventDefault(); downloadExport(a.href, hostKey, `tombola-${state.code}.${format}`, this); } : null;
    }
    // The audit log is the host's: shown only with the key, always fetched with it.
    show($('[data-audit-links]', this.root), Boolean(hostKey));
    for (const a of $$('[data-audit-export]', this.root)) {
      // `zip`: the auditor's pack (issue #41): export, audit log, certificates, key, identity, summary.
      // `event`: the same for each draw this one excludes the winners of, and theirs (shown when it links some).
      const format = a.dataset.auditExport;
      const file = format === 'zip' ? 'auditpack.zip' : format === 'event' ? 'event-auditpack.zip' : `audit.${format}`;
      a.href = `/api/draws/${code}/${format === 'event' ? 'auditpack.zip?event=1' : file}`;
      a.onclick = hostKey ? (event) => { event.preventDefault(); downloadExport(a.href, hostKey, `tombola-${state.code}-${file}`, this); } : null;
    }
    // A private draw's receipts: one row per entrant, its link opens "your entry is in the locked pool" (mail merge).
    const receipts = $('[data-receipts]', this.root);
    show(receipts, Boolean(hostKey) && state.config?.private === true);
    receipts.href = `/api/draws/${code}/receipts.csv`;
    receipts.onclick = hostKey ? (event) => { event.preventDefault(); downloadExport(receipts.href, hostKey, `tombola-${state.code}-receipts.csv`, this); } : null;
  }

  // --- feedback ---

  /**
   * A short message. The host reads it in the Start/Stop bar (which covers nothing new: a
   * floating toast hid the host link on a phone); a viewer gets the floating toast.
   */
  toast(text) {
    const inBar = document.body.classList.contains('is-host');
    clearTimeout(this.toastTimer);
    if (inBar) {
      setText(this.toastNode, '');
      this.barToast = text;
      this.renderBarStatus();
    } else {
      setText(this.toastNode, text);
    }
    this.toastTimer = setTimeout(() => {
      setText(this.toastNode, '');
      this.barToast = '';
      this.renderBarStatus();
    }, 4000);
  }

  renderBarStatus() {
    // A refusal in the toast and the same reason in the plan would say it twice: the toast alone.
    const plan = this.planIsNotice && this.barToast ? '' : this.planText;
    const text = this.barToast ? (plan ? `${this.barToast} · ${plan}` : this.barToast) : plan;
    setText(this.barStatus, text);
    this.barStatus.dataset.flash = this.barToast ? 'true' : 'false';
  }

  /** What Start will draw, before Start: round, prize, how many, and why fewer than asked. */
  static planText(state) {
    const plan = state.plan;
    if (!plan || typeof plan.count !== 'number' || plan.count < 1) return '';
    const count = plan.count === 1 ? t('host.plan.one') : t('host.plan.many', { n: plan.count });
    let text = t('host.plan', { round: plan.round, prize: plan.prize ? ` · ${plan.prize}` : '', count });
    if (plan.cut === 'prize') text += t('host.plan.cut.prize', { asked: plan.perStop, n: plan.count, prize: plan.prize ?? '' });
    if (plan.cut === 'pool') text += t('host.plan.cut.pool', { asked: plan.perStop, n: plan.count });
    return text;
  }

  renderTick(state) {
    this.stage.renderValue(state);
  }

  renderBoard(state, host) {
    const signature = boardSignature(state, host && state.role === 'host');
    if (signature === this.boardShown) return;
    this.boardShown = signature;
    const board = state.board();
    const current = board[0] ?? null;
    renderWinners(this.winners, current, {
      onVoid: host && state.role === 'host' ? this.onVoid : null,
      limit: current ? state.listLimit(current.round) : Infinity,
      onMore: (entry) => state.showMore(entry.round),
    });
    show(this.winnersEmpty, !current);
    // A reverse raffle's rounds draw people out (docs/FAIRNESS.md §21): not winners.
    const heading = state.config?.reverse === true ? 'reverse.outHeading' : 'draw.winners.round';
    setText(this.winnersHeading, current ? t(heading, { n: current.round }) : t('draw.winners'));
    renderHistory(this.history, board.slice(1), { older: state.olderRounds, onOlder: () => state.loadOlderRounds() });
    show(this.historyEmpty, board.length < 2 && !state.olderRounds);
  }

  render(state) {
    const host = state.isHost;
    document.body.classList.toggle('is-host', host);
    for (const node of $$('[data-host-only]', this.root)) show(node, host);
    show($('[data-wipe-rehearsal]', this.root), host && state.config?.rehearsal === true);
    this.renderBeacon(state);
    setText(this.heading, t('draw.heading', { code: state.code }));
    document.title = t('draw.title', { code: state.code });
    setText(this.roleBadge, state.snapshotReceived || state.hasKey ? t(host ? 'role.host' : 'role.viewer') : '');
    this.stage.render(state);

    this.renderBoard(state, host);

    const phase = state.phase;
    const rolling = phase === 'rolling';
    let label = t('host.start');
    let mode = 'start';
    if (rolling || state.awaiting === 'start') { label = t('host.stop'); mode = 'stop'; }
    if (phase === 'stopping' || state.awaiting === 'stop') { label = t('host.stopping'); mode = 'stopping'; }
    setText(this.startStop, label);
    this.startStop.dataset.state = mode;
    // Nothing left to start (every prize drawn, an archived draw): Start is off and the bar says
    // why, once (pressed, it used to add the server's refusal to the same words; issue 39, item 11).
    // Four eyes (issue #41): Start waits for an observer's sign-off of the lock as it stands.
    const waitingSignoff = mode === 'start' && state.config?.foureyes === true && !state.lockSigned && !state.prizesDone && !state.archived;
    const cannotStart = mode === 'start' && (state.prizesDone || state.archived || waitingSignoff);
    this.startStop.disabled = mode === 'stopping' || cannotStart || (!state.snapshotReceived && state.connection !== 'offline');

    const notice = state.archived ? errorText('draw_archived') : state.checkin?.open ? t('host.checkin.status.open', { n: state.checkin.count ?? 0 })
      : state.exhausted && emptyPool(state) ? t(state.checkin ? 'host.checkin.nobody' : 'host.pool.empty')
        : state.exhausted ? t('host.exhausted') : state.prizesDone ? t('host.prizesdone')
          : waitingSignoff ? t('host.foureyes.waiting', { n: state.commit?.round ?? state.round ?? '' }) : '';
    setText($('[data-start-notice]', this.root), notice);
    // While rolling the plan is the round being drawn: the stage says so; the bar keeps quiet.
    this.planText = rolling || phase === 'stopping' ? '' : notice || DrawView.planText(state);
    this.planIsNotice = Boolean(notice);
    this.renderBarStatus();

    const locked = rolling || phase === 'stopping';
    show($('[data-settings-locked]', this.form), locked);
    $('[data-save]', this.form).disabled = locked;
    // The form needs the full settings (the summary has no names): loaded by main.js.
    this.fillForm(state.fullSettings(), state.config?.hash === undefined ? undefined : `${state.config.hash}|${lang()}`);
  }
}

/** Nobody is in the pool yet (a new check-in draw before anyone entered): nobody "has won" either. */
function emptyPool(state) {
  const pool = state.config?.pool;
  return state.checkin ? (state.checkin.count ?? 0) === 0 : pool?.kind === 'list' && pool.count === 0;
}

/** Downloads an export read with the host key (the plain link's file, with what only the host may read). */
async function downloadExport(url, key, name, view) {
  try {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, cache: 'no-store' });
    if (!response.ok) throw new Error('export');
    downloadBlob(await response.blob(), name);
  } catch {
    view.toast(errorText('network'));
  }
}
