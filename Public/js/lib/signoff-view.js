// Observers' sign-offs on every page (issue #41, docs/FAIRNESS.md §20): one line under the
// commitment, "Witnessed by Ann (lock ✓, result ✓)", for the round the page is about. The
// sign-offs themselves are records in the chain; this line only says who signed what.

import { $$, el, setText, show } from './dom.js';
import { i18nEvents, t } from './i18n.js';

/** The round a page is about: the revealed one after a reveal, else the one about to start (or rolling). */
export function roundInView(room) {
  if (room.phase === 'revealed') return room.lastReveal?.round ?? room.board?.()[0]?.round ?? room.round;
  return room.commit?.round ?? room.round;
}

/** "Witnessed by Ann (lock ✓, result ✓); Bo (result ✓, own key)" for `round`, or '' when nobody signed it. */
export function signoffText(signoffs, round) {
  const list = signoffPeople(signoffs, round);
  return list ? t('signoff.line', { list }) : '';
}

/** "Ann (lock ✓, result ✓); Bo (result ✓, own key)": the sign-offs of `round` (pages' `key` or records' `publicKey`), or ''. */
export function signoffPeople(signoffs, round) {
  const people = new Map(); // observerId → { name, lock, result, keyed }
  for (const s of signoffs ?? []) {
    if (s?.round !== round) continue;
    const who = people.get(s.observerId) ?? { name: String(s.observer ?? ''), lock: false, result: false, keyed: false };
    if (s.statement === 'lock') who.lock = true;
    if (s.statement === 'result') who.result = true;
    if (typeof s.key === 'string' || typeof s.publicKey === 'string') who.keyed = true;
    people.set(s.observerId, who);
  }
  if (!people.size) return '';
  const list = [...people.values()].map((who) => {
    const what = [who.lock && t('signoff.what.lock'), who.result && t('signoff.what.result'), who.keyed && t('signoff.what.keyed')].filter(Boolean);
    return t('signoff.entry', { name: who.name, what: what.join(t('signoff.sep')) });
  });
  return list.join(t('signoff.sep.people'));
}

/** Adds the line after each commitment line of the page (host, phone: `.fair-line`; projector: `.fair`). */
export function showSignoffs(room, root = document) {
  const lines = [];
  for (const fair of $$('.fair-line', root)) {
    const line = el('p', { class: 'signoff-line', attrs: { hidden: true }, data: { signoffLine: '' } });
    fair.after(line);
    lines.push(line);
  }
  for (const fair of $$('.fair', root)) {
    const line = el('p', { class: 'signoff-line', attrs: { hidden: true }, data: { signoffLine: '' } });
    fair.append(line);
    lines.push(line);
  }
  const render = () => {
    const text = signoffText(room.signoffs, roundInView(room));
    for (const line of lines) {
      setText(line, text);
      show(line, text !== '');
    }
  };
  room.addEventListener('change', ({ detail }) => { if (detail !== 'tick') render(); });
  i18nEvents.addEventListener('change', render);
  render();
}
