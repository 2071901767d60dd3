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
