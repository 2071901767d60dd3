// The keypad's store. Everything shown comes from the server's `display` frames;
// the page only remembers what it last heard and what it still has to send.

export class CalcState extends EventTarget {
  constructor() {
    super();
    this.display = '0';
    this.expression = '';
    this.error = null;
    this.memory = false;
    this.mode = 'basic';
    this.angle = 'rad';
    this.history = [];
    this.connection = 'connecting';
    this.backlog = 0;
    this.notice = null;   // { code } of the last non-display error, or null
    this.received = false; // a display has arrived at least once
    this.seq = 0;          // the `seq` of the last display frame
    // Digits past the display (docs/PROTOCOL.md, "Digits"): null, or { seq, display,
    // negative, integer, fraction, exact, status, terminatesAt, repeat, loading }.
    this.digits = null;
    this.digitsEnd = 0;    // the digit after the point at the display's right edge; 0: not scrolled
  }

  /** Whether `digits` belong to the value shown now. */
  digitsCurrent() {
    return Boolean(this.digits) && this.digits.seq === this.seq && this.digits.display === this.display && !this.error;
  }

  /** Adds a `digits` frame to the known expansion (ignored when it is for another value). */
  applyDigits(frame) {
    if (!this.digitsCurrent() || frame.seq !== this.seq) return;
    const d = this.digits;
    d.loading = false;
    d.status = frame.status;
    if (frame.status === 'undecidable') { this.changed(); return; }
    if (frame.position === d.fraction.length + 1 && typeof frame.digits === 'string') {
      d.fraction += frame.digits;
    }
    Object.assign(d, {
      negative: Boolean(frame.negative), integer: String(frame.integer ?? '0'), exact: Boolean(frame.exact),
      terminatesAt: frame.terminatesAt ?? null, repeat: frame.repeat ?? null,
    });
    this.changed();
  }

  /** Applies a `display` frame from the server. */
  applyDisplay(frame) {
    if (typeof frame.seq === 'number') this.seq = frame.seq;
    this.display = typeof frame.display === 'string' ? frame.display : this.display;
    this.expression = typeof frame.expression === 'string' ? frame.expression : '';
    this.error = frame.error ?? null;
    this.memory = Boolean(frame.memory);
    if (frame.mode === 'basic' || frame.mode === 'scientific') this.mode = frame.mode;
    if (frame.angle === 'deg' || frame.angle === 'rad') this.angle = frame.angle;
    if (Array.isArray(frame.history)) this.history = frame.history;
    this.received = true;
    this.notice = null;
    if (!this.digitsCurrent()) { this.digits = null; this.digitsEnd = 0; }
    this.changed();
  }

  update(patch) {
    Object.assign(this, patch);
    this.changed();
  }

  changed() {
    this.dispatchEvent(new Event('change'));
  }
}
