// The witness on the page (docs/FAIRNESS.md §14): a loud warning when this page saw the
// draw's history change, the host's count of pages that reported one, and (on a phone) the
// download of what this page saw. Built at the top of the host's and phone's main column and
// under the projector's offline banner.

import { $, el, setText, show } from './dom.js';
import { i18nEvents, t } from './i18n.js';

export class WitnessView {
  /** `onExport()` downloads the record; `withRecord` adds the phone's "This phone's record" card. */
  constructor({ onExport, withRecord = false }, root = document) {
    const exportButton = () => el('button', { class: 'btn btn-small', attrs: { type: 'button' }, on: { click: onExport } });
    this.alarm = el('section', { class: 'witness-alarm', attrs: { role: 'alert', hidden: true, 'aria-labelledby': 'witness-alarm-title' }, data: { witnessAlarm: '' } },
      el('h2', { class: 'witness-alarm-title', attrs: { id: 'witness-alarm-title' } }),
      el('p', { data: { witnessText: '' } }),
      el('p', { data: { witnessKeep: '' } }),
      el('p', { class: 'mono witness-heads', data: { witnessHeads: '' } }));
    this.alarmExport = exportButton();
    this.alarmExport.dataset.witnessExport = '';
    this.alarm.append(this.alarmExport);
    this.reports = el('p', { class: 'witness-reports', attrs: { role: 'alert', hidden: true }, data: { witnessReports: '' } });
    // First in the page's main column (the projector: under its offline banner, in <main> too).
    const column = $('.draw-main', root);
    if (column) column.prepend(this.alarm, this.reports);
    else $('[data-offline-banner]', root).after(this.alarm, this.reports);
    this.record = null;
    if (withRecord) {
      this.recordExport = exportButton();
      this.recordExport.dataset.witnessDownload = '';
      this.record = el('section', { class: 'card witness-record', attrs: { 'aria-labelledby': 'witness-record-title' }, data: { witnessRecord: '' } },
        el('h2', { attrs: { id: 'witness-record-title' } }),
        el('p', { class: 'hint', data: { witnessHint: '' } }),
        this.recordExport);
      ($('.draw-main', root) ?? $('main', root)).append(this.record);
    }
  }

  render(room) {
    const w = room.witness;
    const alarm = w.alarm;
    show(this.alarm, Boolean(alarm));
    if (alarm) {
      setText($('.witness-alarm-title', this.alarm), t('witness.alarm.title'));
      setText($('[data-witness-text]', this.alarm), t(`witness.alarm.${alarm.reason}`, { record: where(alarm) }));
      setText($('[data-witness-keep]', this.alarm), t('witness.alarm.keep'));
      setText($('[data-witness-heads]', this.alarm), [alarm.seen, alarm.got].filter(Boolean)
        .map((h) => `#${h.index} ${h.hash.slice(0, 16)}…`).join(' ≠ '));
      setText(this.alarmExport, t('witness.export'));
    }
    const report = room.witnessReport;
    show(this.reports, Boolean(report));
    if (report) setText(this.reports, t('witness.reports', { n: report.count, index: report.heads?.[0]?.index ?? '?' }));
    if (this.record) {
      setText($('h2', this.record), t('witness.record.title'));
      setText($('[data-witness-hint]', this.record), t('witness.record.hint', { n: w.heads.length }));
      setText(this.recordExport, t('witness.export'));
    }
  }
}

/** Shows `room`'s witness on this page (re-drawn on every change but ticks, and language). */
export function showWitness(room, link, { withRecord = false } = {}) {
  const view = new WitnessView({ onExport: () => link.exportWitness(), withRecord });
  room.addEventListener('change', ({ detail }) => { if (detail !== 'tick') view.render(room); });
  i18nEvents.addEventListener('change', () => view.render(room));
  view.render(room);
  return view;
}

/** "record #i (round n)" for the head the alarm names. */
function where(alarm) {
  const round = alarm.round;
  return Number.isInteger(round) ? t('witness.where.round', { index: alarm.seen.index, round }) : t('witness.where', { index: alarm.seen.index });
}
