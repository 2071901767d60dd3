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
  }

  /** Applies a `display` frame from the server. */
  applyDisplay(frame) {
    this.display = typeof frame.display === 'string' ? frame.display : this.display;
    this.expression = typeof frame.expression === 'string' ? frame.expression : '';
    this.error = frame.error ?? null;
    this.memory = Boolean(frame.memory);
    if (frame.mode === 'basic' || frame.mode === 'scientific') this.mode = frame.mode;
    if (frame.angle === 'deg' || frame.angle === 'rad') this.angle = frame.angle;
    if (Array.isArray(frame.history)) this.history = frame.history;
    this.received = true;
    this.notice = null;
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
