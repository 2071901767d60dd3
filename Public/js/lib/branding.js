// A draw's branding for the screen (title, accent colour, logo): fetched once, then kept up to
// date by `branding` messages. The accent goes in as a CSS custom property (CSSOM, allowed by
// the CSP); the server only ever stores `#rrggbb`, and this checks it again.

import { setMedia } from './prize-media.js';

const HEX = /^#[0-9a-f]{6}$/;

/** GET /api/draws/<code>/branding, or null. */
export async function fetchBranding(code) {
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/branding`, { cache: 'no-store' });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Black or white text on `hex`, whichever reads better (WCAG relative luminance). */
export function textOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#111111' : '#ffffff';
}

/** Shows `branding` ({title, accent, logo, media}) in the `[data-brand]` header of `root` (the prize media on the stage). */
export function applyBranding(branding, root = document) {
  const header = root.querySelector('[data-brand]');
  const title = root.querySelector('[data-brand-title]');
  const logo = root.querySelector('[data-brand-logo]');
  const style = document.documentElement.style;
  const accent = typeof branding?.accent === 'string' && HEX.test(branding.accent) ? branding.accent : null;
  if (accent) {
    style.setProperty('--accent', accent);
    style.setProperty('--accent-text', textOn(accent));
  } else {
    style.removeProperty('--accent');
    style.removeProperty('--accent-text');
  }
  const text = typeof branding?.title === 'string' ? branding.title : '';
  if (title) title.textContent = text;
  const src = typeof branding?.logo === 'string' && branding.logo.startsWith('/api/draws/') ? branding.logo : '';
  if (logo) {
    if (src) { logo.src = src; logo.hidden = false; } else { logo.removeAttribute('src'); logo.hidden = true; }
  }
  if (header) header.hidden = !text && !src;
  setMedia(branding);
}
