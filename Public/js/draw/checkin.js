// The host's check-in card: open and close entries with their settings, the entrant list
// (searchable, paged, fetched with the host key; never in the room's snapshot), removal with
// a reason, CSV export, erasing. This file reads and writes the server; the list's state is
// checkin-state.js and its drawing checkin-view.js.

import { downloadBlob } from '../lib/dom.js';
import { hostApi } from '../lib/host-api.js';
import { errorText } from '../lib/i18n.js';
import { CheckinListState } from './checkin-state.js';
import { CheckinView } from './checkin-view.js';

export class HostCheckin {
  /** `key()` returns the host key (or null); `toast(text)` shows a message. */
  constructor({ code, key, toast }, root = document) {
    this.code = code;
    this.key = key;
    this.call = hostApi(code, key);
    this.toast = toast;
    this.list = new CheckinListState();
    this.view = new CheckinView(root);
    this.followTimer = null;
    const v = this.view;
    v.bindOpen((settings) => this.post('entries/open', settings));
    v.bindClose(() => this.post('entries/close'));
    v.bindPrevious(() => { this.list.previous(); this.load(); });
    v.bindNext(() => { if (this.list.next()) this.load(); });
    let timer = null;
    v.bindSearch((text) => {
      this.list.setQuery(text);
      clearTimeout(timer);
      timer = setTimeout(() => { this.list.fromStart(); this.load(); }, 250);
    });
    v.bindExport((format) => this.exportEntrants(format));
    v.bindErase(() => this.post('entrants/erase'));
  }

  async post(path, body) {
    try {
      await this.call('POST', path, body ?? {});
      this.load();
    } catch (error) {
      this.toast(errorText(error.code));
    }
  }

  async remove(entry, reason) {
    try {
      await this.call('DELETE', `entrants/${encodeURIComponent(entry.id)}`, { reason });
      this.load();
    } catch (error) {
      this.toast(errorText(error.code));
    }
  }

  async load() {
    if (!this.key()) return;
    try {
      this.list.applyPage(await this.call('GET', this.list.pagePath()));
    } catch (error) {
      this.list.applyError(error.code);
    }
    this.view.renderList(this.list, (entry, reason) => this.remove(entry, reason));
  }

  /** Every entrant as `csv` or `xlsx` (the same cells), fetched with the host key. */
  async exportEntrants(format) {
    try {
      const response = await fetch(`/api/draws/${encodeURIComponent(this.code)}/entrants.${format}`, {
        headers: { Authorization: `Bearer ${this.key() ?? ''}` },
      });
      if (!response.ok) throw new Error('export');
      downloadBlob(await response.blob(), `tombola-${this.code}-entrants.${format}`);
    } catch {
      this.toast(errorText('network'));
    }
  }

  render(state) {
    if (!this.view.render(state)) return;
    // The list follows the count, at most once a second.
    this.list.follow(state.checkin);
    this.followCount();
  }

  // Loads the list when the count or status changed since it was loaded; within a second of the
  // last load it waits for the rest of that second (a change then is never skipped for good).
  followCount() {
    if (this.followTimer) return;
    const wait = this.list.followWait(Date.now());
    if (wait === null) return;
    if (wait > 0) {
      this.followTimer = setTimeout(() => { this.followTimer = null; this.followCount(); }, wait);
      return;
    }
    this.list.followed(Date.now());
    this.load();
  }
}
