// Optional sound made with Web Audio (off by default): a soft click per
// rolling tick and a chime on the reveal. The context is created on the click
// that turns sound on, as browsers require.

export class Sound {
  constructor() {
    this.ctx = null;
    this.lastTick = 0;
  }

  enable() {
    if (!this.ctx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return false;
      this.ctx = new Ctx();
    }
    if (this.ctx.state === 'suspended') this.ctx.resume();
    return true;
  }

  tone(freq, start, duration, gain = 0.15, type = 'sine') {
    const ctx = this.ctx;
    const osc = ctx.createOscillator();
    const amp = ctx.createGain();
    osc.type = type;
    osc.frequency.value = freq;
    amp.gain.setValueAtTime(0, start);
    amp.gain.linearRampToValueAtTime(gain, start + 0.005);
    amp.gain.exponentialRampToValueAtTime(0.0001, start + duration);
    osc.connect(amp).connect(ctx.destination);
    osc.start(start);
    osc.stop(start + duration + 0.02);
  }

  tick() {
    if (!this.ctx || this.ctx.state !== 'running') return;
    const now = performance.now();
    if (now - this.lastTick < 90) return;
    this.lastTick = now;
    this.tone(1400, this.ctx.currentTime, 0.03, 0.05, 'square');
  }

  chime() {
    if (!this.ctx || this.ctx.state !== 'running') return;
    const t0 = this.ctx.currentTime;
    [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => this.tone(f, t0 + i * 0.09, 0.9, 0.12));
  }
}
