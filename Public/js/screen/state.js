// The projector's store: the draw room plus screen preferences and paging.

import { DrawRoom } from '../lib/room.js';

const THEME_KEY = 'tombola.screen.theme';
const SOUND_KEY = 'tombola.screen.sound';

function read(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}
function write(key, value) {
  try { localStorage.setItem(key, value); } catch { /* not remembered */ }
}

export class ScreenState extends DrawRoom {
  constructor(code) {
    super(code);
    this.theme = read(THEME_KEY) === 'light' ? 'light' : 'dark';
    this.sound = read(SOUND_KEY) === 'on';
    this.page = 0;
    this.joinUrl = null;
    this.hasKey = false;
    this.awaiting = null;
    this.pagedAt = 0;
  }

  setTheme(theme) {
    this.theme = theme;
    write(THEME_KEY, theme);
    this.changed('theme');
  }

  setSound(on) {
    this.sound = on;
    write(SOUND_KEY, on ? 'on' : 'off');
    this.changed('sound');
  }

  setJoinUrl(url) {
    this.joinUrl = url;
    this.changed('join');
  }

  apply(msg) {
    if (msg.type === 'phase' || msg.type === 'result' || msg.type === 'error' || msg.type === 'state') this.awaiting = null;
    if (msg.type === 'result') this.page = 0;
    super.apply(msg);
  }

  /** A page turned by hand (arrow keys): -1 or +1, wrapping around. */
  turnPage(delta, pages) {
    if (pages <= 1) return;
    this.pagedAt = Date.now();
    this.page = (((this.page + delta) % pages) + pages) % pages;
    this.changed('page');
  }

  nextPage(pages) {
    this.page = pages > 0 ? (this.page + 1) % pages : 0;
    this.changed('page');
  }
}
