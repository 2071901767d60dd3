// The host's check-in list as the page holds it: which page of entrants it shows, the search,
// and whether the list still has to follow the room's count. No fetch, timer or DOM
// (checkin.js reads the pages, checkin-view.js draws them).

/** Entrants per page of the host's list. */
export const PAGE = 20;

export class CheckinListState {
  constructor() {
    this.offset = 0;
    this.total = 0;
    this.items = [];
    this.query = '';
    this.error = null;       // the last read's error ({ code }), or null
    this.wantedFor = null;   // "count|open" the room has now
    this.listedFor = null;   // "count|open" the list was last read for
    this.lastLoad = 0;       // when (ms) the list was last read for a change of count
  }

  previous() {
    this.offset = Math.max(0, this.offset - PAGE);
  }

  /** Turns to the next page; false when this is the last one. */
  next() {
    if (this.offset + PAGE >= this.total) return false;
    this.offset += PAGE;
    return true;
  }

  /** The search as typed; it applies (from the first page) on the next `fromStart`. */
  setQuery(text) {
    this.query = text;
  }

  fromStart() {
    this.offset = 0;
  }

  /** GET …/<this> for the page shown. */
  pagePath() {
    return `entrants?limit=${PAGE}&offset=${this.offset}&q=${encodeURIComponent(this.query.trim())}`;
  }

  applyPage(page) {
    this.total = page.total;
    this.items = page.items;
    this.error = null;
  }

  applyError(code) {
    this.error = { code };
  }

  /** The entrants shown, 1-based: { from, to, n }, or null with none. */
  range() {
    if (!this.total) return null;
    return { from: Math.min(this.total, this.offset + 1), to: Math.min(this.total, this.offset + PAGE), n: this.total };
  }

  /** The room's check-in as it is now (the list follows its count and status). */
  follow(checkin) {
    this.wantedFor = `${checkin.count}|${checkin.open}`;
  }

  /**
   * Whether the list should be read again for the room's count: null when it is current, else
   * the milliseconds to wait (0: now), at most one read a second.
   */
  followWait(now) {
    if (this.wantedFor === this.listedFor) return null;
    return this.lastLoad ? Math.max(0, 1000 - (now - this.lastLoad)) : 0;
  }

  /** A read for the room's count starts at `now`. */
  followed(now) {
    this.listedFor = this.wantedFor;
    this.lastLoad = now;
  }
}
