// Wiring for the landing page: server info, the default draw, creating a draw.

import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { serverInfo } from '../lib/info.js';
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
  } catch {
    state.update({ creating: false, createError: 'network' });
  }
});
view.bindCopy(() => { if (state.created) view.copy(state.created.hostUrl); });

state.addEventListener('change', () => view.render(state));
i18nEvents.addEventListener('change', () => view.render(state));
view.render(state);
serverInfo().then((info) => state.update({ info, infoLoaded: true }));
