// The projector's show (issue #26, docs/STAGE.md): confetti at a live reveal, and sound
// synthesized with Web Audio: a drumroll while rolling (the prize tier's own music instead,
// when the host uploaded one), a landing thump on the slow-down's last tick, a fanfare at the reveal. Sound is on by default on the screen (a remembered
// choice: `M` or the Sound button) and starts at the first click or key press, as browsers
// require; phones have none. Reduced motion: no confetti.

import { mediaUrl, tierOnShow } from '../lib/prize-media.js';

const CONFETTI_MS = 3500;
const PIECES = 160;

export class Confetti {
  constructor(root = document.body) {
    this.root = root;
    this.canvas = null;
    this.frame = 0;
    this.bursts = 0;
    this.motion = window.matchMedia?.('(prefers-reduced-motion: reduce)');
  }

  /** One burst over the whole page; returns whether it played (not under reduced motion). */
  burst(colors) {
    if (this.motion?.matches) return false;
    this.bursts += 1;
    document.body.dataset.confetti = String(this.bursts);
    if (!this.canvas) {
      this.canvas = document.createElement('canvas');
      this.canvas.className = 'confetti';
      this.canvas.setAttribute('aria-hidden', 'true');
      this.root.append(this.canvas);
    }
    const ratio = window.devicePixelRatio || 1;
    const w = window.innerWidth;
    const h = window.innerHeight;
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(h * ratio);
    // Display only: where the pieces fly is no one's fortune.
    const pieces = Array.from({ length: PIECES }, (_, i) => ({
      x: w * (0.2 + 0.6 * Math.random()), y: h * 0.35, vx: (Math.random() - 0.5) * w * 0.9,
      vy: -h * (0.6 + Math.random() * 0.7), spin: (Math.random() - 0.5) * 12, size: 6 + Math.random() * 10,
      color: colors[i % colors.length],
    }));
    const start = performance.now();
    const g = this.canvas.getContext('2d');
    cancelAnimationFrame(this.frame);
    const step = (now) => {
      const t = (now - start) / 1000;
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, w, h);
      if (now - start > CONFETTI_MS) { this.frame = 0; return; }
      g.globalAlpha = Math.min(1, (CONFETTI_MS - (now - start)) / 600);
      for (const p of pieces) {
        const x = p.x + p.vx * t * 0.6;
        const y = p.y + p.vy * t + 0.5 * h * 1.6 * t * t;
        g.save();
        g.translate(x, y);
        g.rotate(p.spin * t);
        g.fillStyle = p.color;
        g.fillRect(-p.size / 2, -p.size / 4, p.size, p.size / 2);
        g.restore();
      }
      this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
    return true;
  }
}

/** The show's sounds on an AudioContext the page's Sound owns. */
export class ShowSound {
  constructor(sound) {
    this.sound = sound;
    this.roll = null;
  }

  get ctx() { return this.sound.ctx?.state === 'running' ? this.sound.ctx : null; }

  noise(ctx, seconds) {
    const buffer = ctx.createBuffer(1, Math.round(ctx.sampleRate * seconds), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
    return buffer;
  }

  /** The tier's music (`url`), looped, instead of the drumroll; or the snare roll. */
  startRoll(url) {
    const ctx = this.ctx;
    if (!ctx || this.roll) return;
    if (url) {
      const audio = new Audio(url);
      audio.loop = true;
      audio.volume = 0.7;
      audio.play().catch(() => { /* refused or unplayable: silence, not an error on the stage */ });
      this.roll = { audio };
      document.body.dataset.drumroll = 'music';
      return;
    }
    const source = ctx.createBufferSource();
    source.buffer = this.noise(ctx, 1);
    source.loop = true;
    const band = ctx.createBiquadFilter();
    band.type = 'bandpass';
    band.frequency.value = 1800;
    const level = ctx.createGain();
    level.gain.value = 0.05;
    const beat = ctx.createOscillator();
    beat.frequency.value = 16;
    const depth = ctx.createGain();
    depth.gain.value = 0.04;
    beat.connect(depth).connect(level.gain);
    source.connect(band).connect(level).connect(ctx.destination);
    source.start();
    beat.start();
    this.roll = { source, beat, level };
    document.body.dataset.drumroll = 'on';
  }

  stopRoll() {
    if (!this.roll) return;
    const { source, beat, level, audio } = this.roll;
    this.roll = null;
    document.body.dataset.drumroll = 'off';
    if (audio) {
      // A short fade, then silence: the fanfare is the reveal's sound.
      const fade = setInterval(() => {
        audio.volume = Math.max(0, audio.volume - 0.1);
        if (audio.volume <= 0.01) { clearInterval(fade); audio.pause(); audio.removeAttribute('src'); audio.load(); }
      }, 30);
      return;
    }
    const ctx = this.sound.ctx;
    if (ctx) level.gain.setTargetAtTime(0, ctx.currentTime, 0.05);
    setTimeout(() => { try { source.stop(); beat.stop(); } catch { /* stopped */ } }, 300);
  }

  /** The slow-down's last tick: a low thump. */
  land() {
    const ctx = this.ctx;
    if (!ctx) return;
    const t0 = ctx.currentTime;
    const osc = ctx.createOscillator();
    const amp = ctx.createGain();
    osc.frequency.setValueAtTime(160, t0);
    osc.frequency.exponentialRampToValueAtTime(45, t0 + 0.25);
    amp.gain.setValueAtTime(0.5, t0);
    amp.gain.exponentialRampToValueAtTime(0.001, t0 + 0.35);
    osc.connect(amp).connect(ctx.destination);
    osc.start(t0);
    osc.stop(t0 + 0.4);
  }

  /** A peg of the wheel passing its pointer (mode-wheel.js `wheel-peg`): a short click, at most one each 30 ms. */
  peg() {
    const ctx = this.ctx;
    if (!ctx || ctx.currentTime - (this.pegAt ?? -1) < 0.03) return;
    this.pegAt = ctx.currentTime;
    document.body.dataset.pegs = String(Number(document.body.dataset.pegs ?? 0) + 1);
    this.sound.tone(2400, ctx.currentTime, 0.025, 0.05, 'square');
  }

  /** The reveal: a brass-like arpeggio and chord. */
  fanfare() {
    if (!this.ctx) return;
    document.body.dataset.fanfares = String(Number(document.body.dataset.fanfares ?? 0) + 1);
    const t0 = this.ctx.currentTime;
    const notes = [523.25, 659.25, 783.99, 1046.5];
    notes.forEach((f, i) => this.sound.tone(f, t0 + i * 0.12, 0.35, 0.1, 'sawtooth'));
    notes.forEach((f) => this.sound.tone(f, t0 + 0.5, 1.4, 0.06, 'sawtooth'));
  }
}

const SOUND_KEY = 'tombola.screen.sound';

/** Whether the screen's sound is wanted: on unless turned off here before. */
export function soundWanted() {
  try { return localStorage.getItem(SOUND_KEY) !== 'off'; } catch { return true; }
}

/**
 * Wires the show to the screen's store: sound turns on at the first click or key press if
 * wanted (a press of `M` is left to toggle it), the drumroll follows the phase, the thump the
 * last slow-down tick, the fanfare and confetti a live result.
 */
export function wireShow(state, sound, enableSound) {
  const show = new ShowSound(sound);
  const confetti = new Confetti();
  const first = (event) => {
    document.removeEventListener('pointerdown', first, true);
    document.removeEventListener('keydown', first, true);
    if (event.type === 'keydown' && (event.key === 'm' || event.key === 'M')) return;
    if (soundWanted() && !state.sound) enableSound();
  };
  document.addEventListener('pointerdown', first, true);
  document.addEventListener('keydown', first, true);
  document.addEventListener('wheel-peg', () => { if (state.sound) show.peg(); });
  state.addEventListener('change', ({ detail }) => {
    const rolling = state.sound && (state.phase === 'rolling' || state.phase === 'stopping');
    if (rolling) show.startRoll(mediaUrl(tierOnShow(state), 'music')); else show.stopRoll();
    if (detail === 'tick' && state.sound && state.tick?.landing && state.tick.landing.step >= state.tick.landing.steps) show.land();
    if (detail === 'result') {
      if (state.sound) show.fanfare();
      const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#f59e0b';
      confetti.burst([accent, '#ef4444', '#3b82f6', '#22c55e', '#eab308', '#ec4899']);
    }
  });
  return { show, confetti };
}
