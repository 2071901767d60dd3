// The wheel's motion (docs/STAGE.md, "Display modes"; issue 39 "A show"): a path of segments,
// each a closed form of the rotation over time, so a frame reads where the wheel is at its own
// moment (no jump whatever the frame rate), the turn only ever goes forward, and the speed runs
// on from one segment into the next (a new plan starts from the wheel's rotation and speed).
// Times in ms (performance.now()), rotations in radians, speeds in radians per ms.

export const TAU = Math.PI * 2;
/** Rolling speed: 1.5 turns a second. */
export const SPIN = (1.5 * TAU) / 1000;
/** From rest to the rolling speed. */
export const SPIN_UP_MS = 800;
/** The shortest landing: a page that saw no slow-down tick (or only the last) still slows down. */
export const MIN_LAND_MS = 1200;
/** Braking when the round is cleared mid-turn: a turn a second, each second. */
const BRAKE = TAU / 1e6;

const mod = (a) => ((a % TAU) + TAU) % TAU;

/** Rotation and speed of `seg` at `t` (t ≥ seg.t0; a finite segment holds its end after t0 + d). */
function stateOf(seg, t) {
  const d = seg.d ?? Infinity;
  const tau = Math.min(t - seg.t0, d);
  const { r0, v0 } = seg;
  switch (seg.kind) {
    case 'coast': return { r: r0 + v0 * tau, v: v0 };
    case 'ramp': { // constant acceleration from v0 to v1
      const a = (seg.v1 - v0) / d;
      return { r: r0 + v0 * tau + (a * tau * tau) / 2, v: v0 + a * tau };
    }
    case 'brake': { // v0·(1 − s)^p: p = 1 brakes evenly, a larger p harder at first, softer at the end
      const left = 1 - tau / d;
      return { r: r0 + ((v0 * d) / (seg.p + 1)) * (1 - left ** (seg.p + 1)), v: v0 * left ** seg.p };
    }
    case 'ease': { // cubic Hermite from speed v0 to rest, `delta` ahead
      const s = tau / d;
      const m = v0 * d;
      return {
        r: r0 + (s ** 3 - 2 * s * s + s) * m + (3 * s * s - 2 * s ** 3) * seg.delta,
        v: ((3 * s * s - 4 * s + 1) * m + 6 * s * (1 - s) * seg.delta) / d,
      };
    }
    default: return { r: r0, v: 0 }; // hold
  }
}

export class Path {
  constructor(r = 0) {
    this.segs = [{ kind: 'hold', t0: -Infinity, r0: r, v0: 0 }];
  }

  /** { r, v } at `t`. */
  state(t) {
    let i = this.segs.length - 1;
    while (i > 0 && this.segs[i].t0 > t) i -= 1;
    return stateOf(this.segs[i], t);
  }

  /** When the wheel comes to rest (Infinity while it spins on). */
  get end() {
    const last = this.segs.at(-1);
    return last.kind === 'hold' ? last.t0 : Infinity;
  }

  /** The plan from `t` on is replaced: returns the wheel's state at `t`. */
  from(t) {
    const now = this.state(t);
    this.segs = this.segs.filter((s) => s.t0 < t);
    // What is over by now is dropped (a frame never asks for the past).
    const past = Math.min(t, performance.now());
    while (this.segs.length > 1 && this.segs[1].t0 <= past) this.segs.shift();
    if (!this.segs.length) this.segs.push({ kind: 'hold', t0: -Infinity, r0: now.r, v0: 0 });
    return now;
  }

  push(seg) { this.segs.push(seg); return seg.t0 + (seg.d ?? 0); }

  /** Rest at `t` with `wanted` (an angle, mod a turn) where it is: the page shows it at once (reduced motion, a late page). */
  jump(t, wanted) {
    const { r } = this.from(t);
    const ahead = mod(wanted - r);
    // Already there (give or take rounding): stay, not a whole turn on.
    this.push({ kind: 'hold', t0: t, r0: r + (ahead > TAU - 1e-6 ? 0 : ahead), v0: 0 });
    return t;
  }

  /** Spin up (or down) to the rolling speed from `t` on, then keep turning. */
  spin(t) {
    const { r, v } = this.from(t);
    const d = (Math.abs(SPIN - v) / SPIN) * SPIN_UP_MS;
    const at = d > 1 ? this.push({ kind: 'ramp', t0: t, d, r0: r, v0: v, v1: SPIN }) : t;
    this.push({ kind: 'coast', t0: at, r0: this.state(at).r, v0: SPIN });
  }

  /** Brake evenly to rest anywhere (the round was cleared). */
  stop(t) {
    const { r, v } = this.from(t);
    if (v <= 1e-9) return this.push({ kind: 'hold', t0: t, r0: r, v0: 0 });
    const d = v / BRAKE;
    const end = this.push({ kind: 'brake', t0: t, d, r0: r, v0: v, p: 1 });
    return this.push({ kind: 'hold', t0: end, r0: r + (v * d) / 2, v0: 0 });
  }

  /**
   * Slow down from `t` to rest on `wanted` (an angle, mod a turn) about `duration` ms later, as a
   * real wheel: at speed it coasts a little, then brakes evenly; or brakes harder at first and
   * creeps onto the winner at the end; from (near) rest it winds up and down (a Hermite ease).
   * Returns when it rests.
   */
  land(t, wanted, duration) {
    const { r, v } = this.from(t);
    const d = Math.max(duration, MIN_LAND_MS);
    const base = mod(wanted - r);
    if (v > 0) {
      const natural = (v * d) / 2; // braking evenly over the whole time
      const hi = base + TAU * Math.max(0, Math.ceil((natural - base) / TAU));
      const coast = (2 * (hi - natural)) / v;
      if (coast <= 0.6 * d) {
        if (coast > 0) this.push({ kind: 'coast', t0: t, d: coast, r0: r, v0: v });
        const end = this.push({ kind: 'brake', t0: t + coast, d: d - coast, r0: r + v * coast, v0: v, p: 1 });
        return this.push({ kind: 'hold', t0: end, r0: r + hi, v0: 0 });
      }
      const lo = hi - TAU;
      const p = lo > 0 ? (v * d) / lo - 1 : Infinity;
      if (p <= 3.5) {
        const end = this.push({ kind: 'brake', t0: t, d, r0: r, v0: v, p });
        return this.push({ kind: 'hold', t0: end, r0: r + lo, v0: 0 });
      }
    }
    // Slow or at rest: half a turn at least, and never less than the speed carries (else it would turn back).
    let delta = base;
    while (delta < Math.max((v * d) / 3, TAU / 2)) delta += TAU;
    return this.ease(t, d, r, v, delta);
  }

  /** From rest at `t`, one more turn or so onto `wanted`: for each further winner of a round. */
  turn(t, wanted) {
    const { r } = this.from(t);
    let delta = mod(wanted - r);
    if (delta < TAU / 2) delta += TAU;
    return this.ease(t, 700 + (400 * delta) / TAU, r, 0, delta);
  }

  ease(t, d, r, v, delta) {
    const end = this.push({ kind: 'ease', t0: t, d, r0: r, v0: v, delta });
    return this.push({ kind: 'hold', t0: end, r0: r + delta, v0: 0 });
  }
}
