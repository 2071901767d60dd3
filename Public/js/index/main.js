// Wiring for the landing page: server info, the default draw, creating a draw and the
// admin's list of draws (archive, delete).

import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { serverInfo } from '../lib/info.js';
import { adminKeyFromFragment, deleteDraw, listDraws, setArchived } from './admin.js';
import { HomeState } from './state.js';
import { HomeView } from './view.js';

initLanguageSwitch();
const state = new HomeState();
const view = new HomeView();

function hostUrlOf(body) {
  if (typeof body.hostUrl === 'string' && body.hostUrl) return body.hostUrl;
  return `${location.origin}/draw/${encodeURIComponent(body.code)}#key=${encodeURIComponent(body.hostKey)}`;
}

view.bindCreate(async (adminKey) => {
  state.update({ creating: true, createError: null, created: null });
  try {
    const response = await fetch('/api/draws', {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const body = await response.json().catch(() => null);
    if (!response.ok || !body?.code) {
      const code = body?.error?.code ?? (response.status === 401 || response.status === 403 ? 'unauthorized' : 'network');
      state.update({ creating: false, createError: code });
      return;
    }
    state.update({ creating: false, created: { code: body.code, hostKey: body.hostKey, hostUrl: hostUrlOf(body) } });
    if (state.admin.open) showDraws(adminKey);
  } catch {
    state.update({ creating: false, createError: 'network' });
  }
});
view.bindCopy(() => { if (state.created) view.copy(state.created.hostUrl); });

/** The first page (or, with `more`, the next one) of the server's draws. */
async function showDraws(key, more = false) {
  if (!key) return;
  state.updateAdmin({ open: true, loading: true, error: null, deleted: more ? state.admin.deleted : null, confirming: null });
  const answer = await listDraws(key, more ? state.admin.next : null);
  if (!answer.ok) {
    state.updateAdmin({ loading: false, error: answer.code, ...(more ? {} : { draws: [], next: null }) });
    return;
  }
  const draws = more ? [...state.admin.draws, ...answer.body.draws] : answer.body.draws;
  state.updateAdmin({ loading: false, draws, next: answer.body.next });
}
view.bindShowDraws(showDraws);

view.bindAdminAction(async (action, code) => {
  const key = view.adminKey();
  // Deleting and archiving both ask first (archiving stops a draw mid-event: issue 39, item 11).
  if (action === 'delete' || action === 'archive') return state.updateAdmin({ confirming: code, confirmAction: action, deleted: null });
  if (action === 'cancel') return state.updateAdmin({ confirming: null });
  state.updateAdmin({ busy: code, error: null, deleted: null });
  if (action === 'confirm' && state.admin.confirmAction === 'archive') {
    state.updateAdmin({ confirming: null });
    action = 'archive-now';
  }
  if (action === 'confirm') {
    const answer = await deleteDraw(key, code);
    if (!answer.ok) return state.updateAdmin({ busy: null, confirming: null, error: answer.code });
    state.updateAdmin({ busy: null, confirming: null, deleted: code, draws: state.admin.draws.filter((d) => d.code !== code) });
    return;
  }
  const archived = action === 'archive-now';
  const answer = await setArchived(key, code, archived);
  if (!answer.ok) return state.updateAdmin({ busy: null, error: answer.code });
  state.updateAdmin({ busy: null, draws: state.admin.draws.map((d) => (d.code === code ? { ...d, archived } : d)) });
});

state.addEventListener('change', () => view.render(state));
i18nEvents.addEventListener('change', () => view.render(state));
view.render(state);
serverInfo().then((info) => state.update({ info, infoLoaded: true }));

// An admin link (`/#admin=…`, printed by the server or `tombola admin-link`): fill in the key,
// drop it from the address bar and history, and list the draws.
const linked = adminKeyFromFragment(location.hash);
if (linked) {
  history.replaceState(null, '', location.pathname + location.search);
  view.setAdminKey(linked);
  showDraws(linked);
}
