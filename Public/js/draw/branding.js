// The host page's "Screen branding" panel: event title, accent colour and logo for the
// projector (PUT /api/draws/<code>/branding and …/logo with the host key). The server checks
// everything again (a colour is #rrggbb, a logo is PNG/JPEG/WebP by its bytes, ≤ 256 KiB).

import { $ } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';
import { fetchBranding } from '../lib/branding.js';

const MAX_LOGO_BYTES = 256 * 1024;

export function wireBranding({ code, key, toast, root = document }) {
  const form = $('[data-branding]', root);
  if (!form) return;
  const title = $('[data-brand-title-input]', root);
  const accentOn = $('[data-brand-accent-on]', root);
  const accent = $('[data-brand-accent-input]', root);
  const logoInput = $('[data-brand-logo-input]', root);
  const preview = $('[data-brand-logo-preview]', root);
  const remove = $('[data-brand-logo-remove]', root);
  const error = $('[data-brand-error]', root);
  const base = `/api/draws/${encodeURIComponent(code)}`;

  const show = (branding) => {
    title.value = branding?.title ?? '';
    accentOn.checked = Boolean(branding?.accent);
    if (branding?.accent) accent.value = branding.accent;
    accent.disabled = !accentOn.checked;
    if (branding?.logo) { preview.src = branding.logo; preview.hidden = false; remove.hidden = false; }
    else { preview.removeAttribute('src'); preview.hidden = true; remove.hidden = true; }
  };
  accentOn.addEventListener('change', () => { accent.disabled = !accentOn.checked; });

  const send = async (method, path, body, type) => {
    const headers = { Authorization: `Bearer ${key() ?? ''}` };
    if (type) headers['Content-Type'] = type;
    const response = await fetch(base + path, { method, body, headers });
    const json = await response.json().catch(() => null);
    if (!response.ok) throw new Error(json?.error?.code ?? 'network');
    return json;
  };
  const fail = (err) => { error.textContent = errorText(err?.message ?? 'network'); };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      const file = logoInput.files?.[0];
      if (file && file.size > MAX_LOGO_BYTES) throw new Error('logo_too_large');
      let branding = await send('PUT', '/branding', JSON.stringify({ title: title.value, accent: accentOn.checked ? accent.value : null }),
        'application/json');
      if (file) branding = await send('PUT', '/logo', await file.arrayBuffer(), file.type || 'application/octet-stream');
      logoInput.value = '';
      show(branding);
      toast(t('host.branding.saved'));
    } catch (err) { fail(err); }
  });
  remove.addEventListener('click', async () => {
    error.textContent = '';
    try { show(await send('DELETE', '/logo')); toast(t('host.branding.saved')); } catch (err) { fail(err); }
  });
  fetchBranding(code).then(show);
}
