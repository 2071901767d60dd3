// A prize tier's picture and music on the stage (issue #26, docs/STAGE.md): the branding's
// `media` map names each slot's URL (`picture-0`, `music-0`, by tier position). The picture of
// the tier on show (the revealed round's, else the armed one's) is shown while rolling and at
// the reveal; the screen plays the tier's music, when it has one, instead of the drumroll.

let current = null;
const listeners = new Set();

/** Keeps the latest branding (applyBranding calls this) and tells the stage. */
export function setMedia(branding) {
  current = branding?.media && typeof branding.media === 'object' ? branding.media : {};
  for (const listener of listeners) listener();
}

/** The URL of a tier's `picture` or `music`, or null (only the server's own API paths). */
export function mediaUrl(tier, kind) {
  if (!Number.isInteger(tier) || !current) return null;
  const url = current[`${kind}-${tier}`];
  return typeof url === 'string' && url.startsWith('/api/draws/') ? url : null;
}

/** The tier position on show: the revealed round's, else the armed round's, else the current tier's. */
export function tierOnShow(room) {
  const featured = room.phase === 'revealed' ? room.lastReveal : null;
  const index = featured ? featured.prizeIndex : room.plan?.prizeIndex ?? room.currentPrize;
  return Number.isInteger(index) ? index : (Array.isArray(room.config?.prizes) && room.config.prizes.length ? null : 0);
}

/**
 * Shows the tier's picture in `[data-prize-picture]` (a figure holding an img) while the room
 * rolls, stops or shows a revealed round; hidden otherwise and when the tier has none.
 */
export function wirePrizePicture(room, root = document) {
  const figure = root.querySelector('[data-prize-picture]');
  const img = figure?.querySelector('img');
  if (!figure || !img) return;
  const update = () => {
    const live = room.phase === 'rolling' || room.phase === 'stopping' || room.phase === 'revealed';
    const url = live ? mediaUrl(tierOnShow(room), 'picture') : null;
    if (url) {
      if (img.getAttribute('src') !== url) img.src = url;
      figure.hidden = false;
    } else {
      figure.hidden = true;
      img.removeAttribute('src');
    }
    figure.dataset.tier = url ? String(tierOnShow(room)) : '';
  };
  listeners.add(update);
  room.addEventListener('change', update);
  update();
}
