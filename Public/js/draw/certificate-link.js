// The host page's link to the latest round's certificate (/draw/<code>/round/<n>, issue #26).

import { $, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';

export function renderCertificateLink(state, root = document) {
  const link = $('[data-certificate-link]', root);
  const latest = state.rounds.reduce((n, r) => Math.max(n, r.round), 0);
  show(link, latest > 0);
  if (!latest) return;
  link.href = `/draw/${encodeURIComponent(state.code)}/round/${latest}`;
  setText(link, t('cert.link', { n: latest }));
}
