// The host page's "Prize pictures and music" panel (issue #26, docs/STAGE.md): a picture and
// a piece of music per prize tier (PUT/DELETE /api/draws/<code>/prizes/<tier>/picture|music with
// the host key). A photo larger than the server takes is scaled down here first (at most
// 1280 px, WebP or JPEG), so a phone's camera picture fits; the server checks every file again
// by its bytes (a picture PNG/JPEG/WebP ≤ 256 KiB, music MP3/Ogg/M4A ≤ 4 MiB).

import { $, el } from '../lib/dom.js';
import { errorText, t } from '../lib/i18n.js';
import { fetchBranding } from '../lib/branding.js';

const MAX_PICTURE_BYTES = 256 * 1024;
const MAX_MUSIC_BYTES = 4 * 1024 * 1024;
const MAX_SIDE = 1280;

/** `file` as it may be sent: itself when small enough, else scaled down and re-encoded. */
export async function fitPicture(file) {
  if (file.size <= MAX_PICTURE_BYTES) return file;
  const bitmap = await createImageBitmap(file).catch(() => null);
  if (!bitmap) throw new Error('bad_media');
  let side = Math.min(MAX_SIDE, Math.max(bitmap.width, bitmap.height));
  for (let attempt = 0; attempt < 6; attempt++) {
    const scale = side / Math.max(bitmap.width, bitmap.height);
    const canvas = el('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    for (const quality of [0.85, 0.7]) {
      let blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/webp', quality));
      if (!blob || blob.type !== 'image/webp') blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
      if (blob && blob.size <= MAX_PICTURE_BYTES) return blob;
    }
    side = Math.round(side * 0.75);
  }
  throw new Error('media_too_large');
}

export function wireMedia({ code, key, toast, prizes, onChange, root = document }) {
  const panel = $('[data-media-panel]', root);
  if (!panel) return;
  const tier = $('[data-media-tier]', panel);
  const pictureInput = $('[data-media-picture-input]', panel);
  const musicInput = $('[data-media-music-input]', panel);
  const picture = $('[data-media-picture-preview]', panel);
  const music = $('[data-media-music-preview]', panel);
  const removePicture = $('[data-media-picture-remove]', panel);
  const removeMusic = $('[data-media-music-remove]', panel);
  const error = $('[data-media-error]', panel);
  const base = `/api/draws/${encodeURIComponent(code)}/prizes`;
  let media = {};

  const renderTiers = () => {
    const list = prizes() ?? [];
    const names = list.length ? list.map((p, i) => `${i + 1}. ${p.name ?? ''}`) : [t('host.media.onePrize')];
    const chosen = tier.value;
    if (tier.options.length === names.length && [...tier.options].every((o, i) => o.textContent === names[i])) return;
    tier.replaceChildren(...names.map((name, i) => el('option', { text: name, attrs: { value: String(i) } })));
    if (chosen && Number(chosen) < names.length) tier.value = chosen;
    show();
  };
  const show = () => {
    const at = tier.value || '0';
    const pic = media[`picture-${at}`];
    const mus = media[`music-${at}`];
    if (pic) { picture.src = pic; picture.hidden = false; } else { picture.removeAttribute('src'); picture.hidden = true; }
    if (mus) { if (music.getAttribute('src') !== mus) music.src = mus; music.hidden = false; }
    else { music.removeAttribute('src'); music.hidden = true; }
    removePicture.hidden = !pic;
    removeMusic.hidden = !mus;
  };
  const take = (branding) => { media = branding?.media && typeof branding.media === 'object' ? branding.media : {}; show(); };

  const send = async (method, kind, body) => {
    const headers = { Authorization: `Bearer ${key() ?? ''}` };
    if (body) headers['Content-Type'] = body.type || 'application/octet-stream';
    const response = await fetch(`${base}/${tier.value || '0'}/${kind}`, { method, body, headers });
    const json = await response.json().catch(() => null);
    if (!response.ok) throw new Error(json?.error?.code ?? 'network');
    return json;
  };
  const run = async (work) => {
    error.textContent = '';
    panel.dataset.busy = 'true';
    try { take(await work()); toast(t('host.media.saved')); } catch (err) { error.textContent = errorText(err?.message ?? 'network'); }
    delete panel.dataset.busy;
  };
  pictureInput.addEventListener('change', () => {
    const file = pictureInput.files?.[0];
    if (file) run(async () => send('PUT', 'picture', await fitPicture(file)));
    pictureInput.value = '';
  });
  musicInput.addEventListener('change', () => {
    const file = musicInput.files?.[0];
    if (file) run(async () => { if (file.size > MAX_MUSIC_BYTES) throw new Error('media_too_large'); return send('PUT', 'music', file); });
    musicInput.value = '';
  });
  removePicture.addEventListener('click', () => run(() => send('DELETE', 'picture')));
  removeMusic.addEventListener('click', () => run(() => send('DELETE', 'music')));
  tier.addEventListener('change', show);
  onChange(renderTiers);
  renderTiers();
  fetchBranding(code).then(take);
  return { take };
}
