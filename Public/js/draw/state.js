// The host page's store: the draw room plus what only this page knows
// (whether it holds a key, commands waiting for the server's answer).

import { DrawRoom } from '../lib/room.js';

export class HostState extends DrawRoom {
  constructor(code) {
    super(code);
    this.hasKey = false;
    this.authFailed = false;
    this.awaiting = null;  // 'start' | 'stop' while that command is unanswered
    this.lanBase = null;   // http://<lan address>:<port> from /api/info, for links
    this.archived = false; // read-only (the admin archived it): the snapshot says so, as does a refused command
  }

  /** Host controls show while the key is being checked and once it is accepted. */
  get isHost() {
    return this.role === 'host' || (this.hasKey && !this.authFailed);
  }

  apply(msg) {
    if (msg.type === 'phase' || msg.type === 'result' || msg.type === 'error' || msg.type === 'state') this.awaiting = null;
    if (msg.type === 'error' && msg.code === 'draw_archived') this.archived = true;
    // The snapshot names an archived draw (docs/PROTOCOL.md, `state`): known as the page opens.
    if (msg.type === 'state') this.archived = msg.archived === true;
    super.apply(msg);
  }

  expect(command) {
    this.awaiting = command;
    this.changed('awaiting');
  }
}
