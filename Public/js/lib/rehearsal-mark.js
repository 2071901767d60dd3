// Rehearsal (issue 45, docs/STAGE.md "Rehearsal"): while the draw's settings say `rehearsal`,
// every page (host, projector, phones) wears a band across its top, "REHEARSAL — not the real
// draw", and a large diagonal watermark over everything, so a rehearsal round is never taken for
// the real one. A session holds rehearsal rounds or real ones, never both (FAIRNESS §19), so the
// settings say what every round on the board is. The certificate shows the same from its record.

import { el } from './dom.js';
import { i18nEvents, t } from './i18n.js';

let band = null;
let mark = null;

/** Shows or hides the band and the watermark. */
export function showRehearsal(on) {
  if (on && !band) {
    band = el('div', { class: 'rehearsal-band', attrs: { role: 'status' }, data: { rehearsalBand: '' } });
    mark = el('div', { class: 'rehearsal-watermark', attrs: { 'aria-hidden': 'true' } });
    document.body.prepend(band);
    document.body.append(mark);
    i18nEvents.addEventListener('change', label);
  }
  if (!band) return;
  label();
  band.hidden = !on;
  mark.hidden = !on;
  document.body.classList.toggle('is-rehearsal', on);
  // The page moves down by the band's height (the projector's grid shrinks by it).
  document.documentElement.style.setProperty('--rehearsal-band', on ? `${band.offsetHeight}px` : '0px');
}

function label() {
  if (!band) return;
  band.textContent = t('rehearsal.band');
  mark.textContent = t('rehearsal.mark');
}

/** Keeps the band in step with a room's settings. */
export function markRehearsal(room) {
  const update = () => showRehearsal(room.config?.rehearsal === true);
  room.addEventListener('change', update);
  update();
}
