// Wiring for /draw/<code>: with #key=… the host's controls, without it a viewer page.

import { showWaitlist } from '../lib/waitlist-view.js';
import { showReverse } from '../lib/reverse-board.js';
import { markRehearsal } from '../lib/rehearsal-mark.js';
import { StageModes } from '../lib/stage-modes.js';
import { renderCertificateLink } from './certificate-link.js';
import { attachConnectionUI } from '../lib/socket.js';
import { showWitness } from '../lib/witness-view.js';
import { showSignoffs } from '../lib/signoff-view.js';
import { errorText, i18nEvents, initLanguageSwitch, t } from '../lib/i18n.js';
import { winnerText } from '../lib/room.js';
import { codeFromLocation, connectRoom, forgetHostKey, takeHostKey } from '../lib/room-link.js';
import { lanBase } from '../lib/info.js';
import { HostState } from './state.js';
import { DrawView } from './view.js';
import { HostCheckin } from './checkin.js';
import { HostAudit } from './audit.js';
import { HostOperators } from './operators.js';
import { ObserverSignoff } from './signoff.js';
import { HostWebhooks } from './webhooks.js';
import { wireBranding } from './branding.js';
import { wireMedia } from './media.js';
import { pastDrawsText, readPastDraws } from './pastdraws.js';
import { ClaimPanel } from '../lib/claims.js';
import { PrizeTable } from './prize-table.js';

initLanguageSwitch();
const code = codeFromLocation();
let hostKey = takeHostKey(code);
const state = new HostState(code);
markRehearsal(state); // the rehearsal band and watermark (issue 45)
showWaitlist(state, { perPage: 20 }); // the whole order's waiting list, paged (issue 45)
state.hasKey = hostKey !== null;
const view = new DrawView();
new ClaimPanel(state, { role: 'host' }); // claimed / not claimed, live (issue #26)
new StageModes(state); // reels, wheel or names when the draw or its prize tier asks (issue #26)

const keyLost = () => {
  forgetHostKey(code);
  hostKey = null;
  state.authFailed = true;
  view.toast(t('host.auth.failed'));
  view.renderLinks(state, null);
};
const { socket, command, link } = connectRoom(state, { hostKey, onAuthFailed: keyLost });
showReverse(state, link); // the reverse raffle: how many are still in (issue 45)
// A key revoked while the page is open (a co-host's, issue #41; or replaced by tombola host-link):
// the server makes the page a viewer, and so does the page, at once.
socket.addEventListener('message', ({ detail }) => {
  if (detail?.type === 'role' && detail.role === 'viewer' && hostKey !== null) { keyLost(); view.render(state); }
});
attachConnectionUI(socket);
showWitness(state, link); // the record this page witnessed (FAIRNESS §14)
showSignoffs(state); // who witnessed this round's lock and result (issue #41)
const checkin = new HostCheckin({ code, key: () => hostKey, toast: (text) => view.toast(text) });
const audit = new HostAudit({ code, key: () => hostKey }); // the audit log, read while its panel is open
const operators = new HostOperators({ code, key: () => hostKey, toast: (text) => view.toast(text), socket }); // co-hosts (issue #41)
// An observer's sign-offs (issue #41): the card shows only on an observer's page.
new ObserverSignoff({ code, key: () => hostKey, me: () => operators.me, toast: (text) => view.toast(text), state });
const webhooks = new HostWebhooks({ code, key: () => hostKey }); // outgoing webhooks, read while their panel is open
// The prize table (issue 45): vouchers typed or scanned, handed over; the owner's, a host's and check-in staff's page.
new PrizeTable({ code, key: () => hostKey, role: () => operators.me?.role ?? null, state });

view.bindStartStop(() => {
  if (!state.isHost || !operators.mayDrive()) return; // Space on an observer's or check-in page does nothing
  if (state.phase === 'rolling' || state.awaiting === 'start') {
    state.expect('stop');
    command('stop');
  } else if (state.phase !== 'stopping' && state.awaiting !== 'stop') {
    // Unsaved settings would be silently ignored: Start draws from the saved pool (issue 39, item 3).
    if (view.formDirty) { view.toast(t('host.unsaved')); return; }
    const audience = view.readAudience();
    state.expect('start');
    command('start', audience ? { audience } : {});
    view.clearAudience();
  }
});
view.bindClear(() => command('clear'));
view.bindBeacon({ retry: () => command('beaconRetry'), abandon: (reason) => command('beaconAbandon', { reason }) });
// The rehearsal's wipe (issue 45): a Clear only a rehearsal session takes, then the settings
// saved without rehearsal, so the next round is the real event's.
let goLive = false;
view.bindWipeRehearsal(() => { goLive = true; command('clear', { rehearsal: true }); });
view.bindVoid(({ round, winner, reason }) => {
  state.voidReasons.set(`${round}|${winnerText(winner)}`, reason);
  command('void', { round, winner, reason });
});
view.bindImport(async (bytes, merge) => {
  // The server's spreadsheet preview (POST /api/draws/<code>/import); nothing is saved.
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/import${merge ? '?duplicates=merge' : ''}`, {
      method: 'POST', body: bytes, headers: { Authorization: `Bearer ${hostKey ?? ''}`, 'Content-Type': 'text/csv; charset=utf-8' },
    });
    const json = await response.json().catch(() => null);
    if (response.status === 413) return { error: { code: 'import_too_large' } };
    if (!response.ok) return { error: json?.error ?? { code: 'network' } };
    return { preview: json };
  } catch {
    return { error: { code: 'network' } };
  }
});
let configureSeq = null;
// A WebSocket message holds at most 1 MiB; a bigger list (100,000 names is ~1.7 MB) goes
// over REST, where a host's pool upload may reach --max-pool-bytes (PROTOCOL.md, "Big pools").
const WS_CONFIG_BYTES = 1000 * 1000;
const pastField = document.querySelector('[data-past-draws]');
let pastDirty = false;
pastField.addEventListener('input', () => { pastDirty = true; });
// Only a list pool may exclude other draws' winners; the field follows the pool kind chosen.
const showPast = () => {
  const list = document.querySelector('[data-pool-kind][value=list]')?.checked ?? false;
  for (const node of document.querySelectorAll('[data-past-field], [data-past-hint]')) node.hidden = !list;
};
document.querySelector('[data-settings]').addEventListener('change', showPast);
view.bindSettings(async (config) => {
  const past = readPastDraws(pastField.value);
  if (past.length && config.pool?.kind === 'list') config.excludeWinnersOf = past;
  pastDirty = false;
  const body = JSON.stringify(config);
  if (new TextEncoder().encode(body).length < WS_CONFIG_BYTES) {
    configureSeq = command('configure', { config });
    return;
  }
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/config`, {
      method: 'PUT', body, headers: { Authorization: `Bearer ${hostKey ?? ''}`, 'Content-Type': 'application/json' },
    });
    const json = await response.json().catch(() => null);
    if (!response.ok) { view.formDirty = true; view.toast(errorText(json?.error?.code ?? (response.status === 413 ? 'import_too_large' : 'network'))); return; }
    const duplicates = Array.isArray(json?.duplicates) ? json.duplicates : [];
    view.toast(duplicates.length ? t('host.duplicates', { n: duplicates.length, names: duplicates.slice(0, 5).join(', ') }) : view.takeSavedText());
  } catch {
    view.formDirty = true;
    view.toast(errorText('network'));
  }
});

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') { view.renderTick(state); return; }
  // The host's editor shows the names: fetched once per settings hash, not carried by every join.
  if ((detail === 'state' || detail === 'config' || detail === 'role') && state.isHost && !state.fullSettings()) state.loadSettings();
  if (detail === 'error' && state.lastError) {
    if (state.lastError.code !== 'bad_key') view.toast(errorText(state.lastError.code));
    if (configureSeq !== null) view.formDirty = true; // not saved: the form still differs from the pool
    configureSeq = null;
  }
  if (detail === 'warning' && state.warning) view.toast(state.warning.message ?? state.warning.code);
  if (detail === 'cleared') view.toast(t('draw.cleared'));
  if (detail === 'cleared' && goLive) { goLive = false; view.goLive(); }
  if (detail === 'error' && goLive) goLive = false;
  view.render(state);
  renderCertificateLink(state);
  checkin.render(state);
  if (detail !== 'viewers') { audit.follow(); webhooks.follow(); }
  if (!pastDirty && document.activeElement !== pastField) pastField.value = pastDrawsText(state.config);
  showPast();
  view.showEventPack(state);
});
socket.addEventListener('message', ({ detail }) => {
  if (detail.type === 'ack' && configureSeq !== null && detail.seq === configureSeq) {
    configureSeq = null;
    const duplicates = Array.isArray(detail.duplicates) ? detail.duplicates : [];
    view.toast(duplicates.length ? t('host.duplicates', { n: duplicates.length, names: duplicates.slice(0, 5).join(', ') }) : view.takeSavedText());
  }
});

i18nEvents.addEventListener('change', () => { view.render(state); view.renderLinks(state, hostKey); renderCertificateLink(state); checkin.render(state); audit.render(); operators.render(); webhooks.render(); });
view.render(state);
view.renderLinks(state, hostKey);
lanBase().then((base) => { state.lanBase = base; view.renderLinks(state, hostKey); });
if (hostKey !== null) {
  wireBranding({ code, key: () => hostKey, toast: (text) => view.toast(text) });
  // The prize tiers' pictures and music; a change from another host page arrives as `branding`.
  const media = wireMedia({ code, key: () => hostKey, toast: (text) => view.toast(text), prizes: () => state.config?.prizes,
    onChange: (update) => { state.addEventListener('change', update); i18nEvents.addEventListener('change', update); } });
  socket.addEventListener('message', ({ detail }) => { if (detail?.type === 'branding') media?.take(detail); });
}
socket.start();
window.tombola = { state, socket };
