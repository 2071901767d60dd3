// The host's display-mode control of a prize tier (issue #26): the draw's mode, or its own.

import { el } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { MODES } from '../lib/stage-modes.js';

/** A labelled select: "" (as the draw) or one of the modes. */
export function modeSelect(mode) {
  const select = el('select', { data: { prizeMode: '' } },
    el('option', { text: t('host.mode.inherit'), attrs: { value: '' } }),
    ...MODES.map((m) => el('option', { text: t(`host.mode.${m}`), attrs: { value: m } })));
  select.value = mode ?? '';
  return el('label', { class: 'field' }, el('span', { text: t('host.prizes.mode') }), select);
}

/**
 * How long Stop's slow-down lasts (issue 39, "a show"): seconds, 1.5–6, placed
 * after the draw's mode select. Empty keeps the server's 1.5 s. The server checks the bounds
 * (bad_slow_down); every mode animates whatever ticks it spreads over that time.
 */
export function mountSlowDown(form) {
  const input = el('input', {
    // No min/max: the server's refusal, shown under the form in the page's language, says the range.
    attrs: { type: 'number', step: 'any', placeholder: '1.5', inputmode: 'decimal', 'aria-describedby': 'slowdown-hint' },
    data: { slowDown: '' },
  });
  const field = el('label', { class: 'field' }, el('span', { text: t('host.slowDown'), data: { i18n: 'host.slowDown' } }), input);
  const hint = el('p', { class: 'hint', text: t('host.slowDown.hint'), attrs: { id: 'slowdown-hint' }, data: { i18n: 'host.slowDown.hint' } });
  form.querySelector('[data-mode]')?.closest('label')?.after(field, hint);
}

/** The slow-down field's value as the setting: milliseconds, or null (the server's default). */
export function readSlowDown(form) {
  const text = form.querySelector('[data-slow-down]')?.value.trim() ?? '';
  return text === '' ? null : Math.round(Number(text) * 1000);
}

/** Shows a draw's `slowDown` (ms) in the field; empty when the draw keeps the default. */
export function showSlowDown(form, config) {
  const input = form.querySelector('[data-slow-down]');
  if (input) input.value = Number.isInteger(config?.slowDown) ? String(config.slowDown / 1000) : '';
}
