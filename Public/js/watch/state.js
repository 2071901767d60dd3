// The viewer's store: the draw room; the page only watches.

import { DrawRoom } from '../lib/room.js';

export class WatchState extends DrawRoom {}
