// The observer's sign-offs on the host page (issue #41, docs/FAIRNESS.md §20): "I witnessed the
// lock of round n" before its Start and "I witnessed the result of round n" after its reveal.
// Only a page opened with an observer's link shows the card (css/draw.css). With "a key of my
// own", the browser makes an Ed25519 key (WebCrypto; kept in this browser's localStorage) and
// signs `tombola-signoff-v1:<statement>:<round>:<head>[:<poolHash>]`, so the statement in the
// record is the observer's and not only the server's word.

import { $, setText, show } from '../lib/dom.js';
import { apiErrorText, hostApi } from '../lib/host-api.js';
import { i18nEvents, t } from '../lib/i18n.js';

const KEY_STORE = 'tombola-observer-key-v1';

const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const base64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const unbase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Whether this browser can make and use an Ed25519 key (WebCrypto needs a secure context). */
export function canSignWithOwnKey() {
  return Boolean(globalThis.crypto?.subtle && globalThis.isSecureContext);
}

/** The observer's key pair from this browser's storage, made once: { privateKey, publicHex }. */
async function ownKey() {
  const subtle = crypto.subtle;
  const saved = JSON.parse(localStorage.getItem(KEY_STORE) ?? 'null');
  if (saved?.pkcs8 && saved?.publicHex) {
    const privateKey = await subtle.importKey('pkcs8', unbase64(saved.pkcs8), { name: 'Ed25519' }, false, ['sign']);
    return { privateKey, publicHex: saved.publicHex };
  }
  const pair = await subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
  const publicHex = hex(await subtle.exportKey('raw', pair.publicKey));
  localStorage.setItem(KEY_STORE, JSON.stringify({ pkcs8: base64(await subtle.exportKey('pkcs8', pair.privateKey)), publicHex }));
  return { privateKey: pair.privateKey, publicHex };
}

/** The text an observer's key signs (Sources/DrawEngine/Signoff.swift, `message`). */
export function signoffMessage({ statement, round, target, poolHash }) {
  return `tombola-signoff-v1:${statement}:${round}:${target}${statement === 'lock' ? `:${poolHash}` : ''}`;
}

export class ObserverSignoff {
  /** `key()` is this page's key; `me()` this page's co-host identity ({ id, role }) or null. */
  constructor({ code, key, me, toast, state }, root = document) {
    this.call = hostApi(code, key);
    this.me = me;
    this.toast = toast;
    this.state = state;
    this.card = $('[data-signoff-card]', root);
    this.lockButton = $('[data-signoff="lock"]', root);
    this.resultButton = $('[data-signoff="result"]', root);
    this.ownKeyBox = $('[data-signoff-ownkey]', root);
    this.keyLine = $('[data-signoff-key]', root);
    this.busy = false;
    this.lockButton.addEventListener('click', () => this.sign('lock'));
    this.resultButton.addEventListener('click', () => this.sign('result'));
    this.ownKeyBox.addEventListener('change', () => this.showKey());
    state.addEventListener('change', ({ detail }) => { if (detail !== 'tick') this.render(); });
    i18nEvents.addEventListener('change', () => { this.render(); this.showKey(); });
    this.render();
  }

  /** The round each button signs now, or null: the lock about to start, the newest drawn round. */
  targets() {
    const s = this.state;
    const settled = s.phase === 'idle' || s.phase === 'revealed';
    const waiting = s.beacon?.status === 'waiting';
    return {
      lock: settled && !waiting && s.commit && !s.prizesDone ? s.commit.round : null,
      result: settled && !waiting ? s.board()[0]?.round ?? null : null,
    };
  }

  /** Whether this observer's sign-off of `statement` for `round` stands already. */
  signed(statement, round) {
    const id = this.me()?.id;
    if (statement === 'lock' && !this.state.lockSigned) return false;
    return this.state.signoffs.some((s) => s.observerId === id && s.statement === statement && s.round === round);
  }

  render() {
    const { lock, result } = this.targets();
    setText(this.lockButton, t('signoff.lock', { n: lock ?? this.state.commit?.round ?? '' }));
    setText(this.resultButton, t('signoff.result', { n: result ?? this.state.board()[0]?.round ?? '' }));
    this.lockButton.disabled = this.busy || lock === null || this.signed('lock', lock);
    this.resultButton.disabled = this.busy || result === null || this.signed('result', result);
    this.ownKeyBox.disabled = !canSignWithOwnKey();
    if (!canSignWithOwnKey()) this.ownKeyBox.checked = false;
  }

  async showKey() {
    if (!canSignWithOwnKey()) {
      setText(this.keyLine, t('signoff.nokey'));
      show(this.keyLine, true);
      return;
    }
    show(this.keyLine, this.ownKeyBox.checked);
    if (!this.ownKeyBox.checked) return;
    const { publicHex } = await ownKey();
    const digest = hex(await crypto.subtle.digest('SHA-256', Uint8Array.from(publicHex.match(/../g), (h) => parseInt(h, 16))));
    setText(this.keyLine, t('signoff.key', { fp: `${digest.slice(0, 16)}…` }));
  }

  /** The request: with the observer's own key, the chain's head read now and signed (one retry if it moved). */
  async request(statement, round) {
    if (!this.ownKeyBox.checked) return { statement, round };
    const { privateKey, publicHex } = await ownKey();
    const records = (await this.call('GET', 'export.json')).records ?? [];
    const target = records[records.length - 1]?.hash;
    const poolHash = this.state.commit?.poolHash;
    const text = signoffMessage({ statement, round, target, poolHash });
    const signature = hex(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, new TextEncoder().encode(text)));
    return { statement, round, target, publicKey: publicHex, signature };
  }

  async sign(statement) {
    const round = this.targets()[statement];
    if (round === null || this.busy) return;
    this.busy = true;
    this.render();
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await this.call('POST', 'signoffs', await this.request(statement, round));
          break;
        } catch (error) {
          // A record came in between reading the head and storing the sign-off: read it again, once.
          if (error?.code !== 'signoff_stale' || attempt > 0) throw error;
        }
      }
      this.toast(t('signoff.stored'));
    } catch (error) {
      this.toast(apiErrorText(error));
    } finally {
      this.busy = false;
      this.render();
    }
  }
}
