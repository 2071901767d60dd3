// Finder patterns for the QR reader (qr-scan.js): the three 1:1:3:1:1 corners and which is which.

// Five runs dark-light-dark-light-dark in proportion 1:1:3:1:1 (a line through a finder's centre
// at any angle crosses its concentric squares in this proportion).
function finderRatio(runs) {
  const total = runs[0] + runs[1] + runs[2] + runs[3] + runs[4];
  if (total < 7) return 0;
  const m = total / 7, tol = m * 0.7;
  return Math.abs(runs[0] - m) < tol && Math.abs(runs[1] - m) < tol && Math.abs(runs[2] - 3 * m) < 3 * tol &&
    Math.abs(runs[3] - m) < tol && Math.abs(runs[4] - m) < tol ? total : 0;
}

// The five runs through (x, y) (continuous coordinates, pixel i covering [i, i+1)) along the unit
// step (dx, dy), from the dark centre outwards; returns [total length in steps, offset of the middle
// run's centre from (x, y) in steps] or null.
function crossCheck(bin, x, y, dx, dy, maxRun) {
  const { dark, w, h } = bin;
  const at = (i) => {
    const px = Math.floor(x + dx * i), py = Math.floor(y + dy * i);
    return px >= 0 && py >= 0 && px < w && py < h ? dark[py * w + px] : -1;
  };
  if (at(0) !== 1) return null;
  const side = (sign) => {
    const counts = [0, 0, 0]; // centre half, light ring, dark ring
    let i = 0;
    const want = [1, 0, 1];
    for (let k = 0; k < 3; k++) {
      while (at(sign * i) === want[k]) {
        counts[k]++; i++;
        if (counts[k] > maxRun) return null;
      }
      if (counts[k] === 0 || (k < 2 && at(sign * i) === -1)) return null;
    }
    return counts;
  };
  const a = side(1), b = side(-1);
  if (!a || !b) return null;
  const runs = [b[2], b[1], a[0] + b[0] - 1, a[1], a[2]];
  const total = finderRatio(runs);
  if (!total) return null;
  return [total, (a[0] - b[0]) / 2];
}

// Candidate finder centres: every row (every second one on a large frame) is cut into runs; a
// 1:1:3:1:1 window is checked down its column, then again along its row and both diagonals
// through the refined centre. Hits close together are merged (count = how many rows agreed).
export function findFinders(bin) {
  const { dark, w, h } = bin;
  const found = [];
  const step = h > 600 ? 2 : 1;
  const runs = new Int32Array(w + 1);
  for (let y = 0; y < h; y += step) {
    let n = 0, len = 1, colour = dark[y * w];
    const startColour = colour;
    for (let x = 1; x < w; x++) {
      if (dark[y * w + x] === colour) { len++; continue; }
      runs[n++] = len; len = 1; colour = dark[y * w + x];
    }
    runs[n++] = len;
    // runs alternate colours; the first is startColour. Dark runs are at even index if it was dark.
    let end = 0;
    for (let i = 0; i < n; i++) {
      end += runs[i];
      const first = i - 4;
      if (first < 0) continue;
      const firstDark = ((first % 2 === 0) === (startColour === 1));
      if (!firstDark) continue;
      const five = [runs[first], runs[first + 1], runs[first + 2], runs[first + 3], runs[first + 4]];
      const total = finderRatio(five);
      if (!total) continue;
      let cx = end - five[4] - five[3] - five[2] / 2;
      const vert = crossCheck(bin, cx, y + 0.5, 0, 1, total);
      if (!vert) continue;
      const cy = y + 0.5 + vert[1];
      const horiz = crossCheck(bin, cx, cy, 1, 0, total * 1.5);
      if (!horiz) continue;
      cx += horiz[1];
      const d1 = crossCheck(bin, cx, cy, 1, 1, total * 1.5);
      const d2 = crossCheck(bin, cx, cy, 1, -1, total * 1.5);
      if (!d1 || !d2) continue;
      // Widths across the finder in four directions (pixels); sizeEstimates turns them into a module
      // size once the symbol's angle is known.
      addCandidate(found, cx, cy, [horiz[0], vert[0], d1[0] * Math.SQRT2, d2[0] * Math.SQRT2]);
    }
  }
  return found.filter((c) => c.count >= 2).sort((a, b) => b.count - a.count);
}

function addCandidate(found, x, y, widths) {
  const size = Math.min(...widths) / 7; // a first guess, within 8 % at any angle
  for (const c of found) {
    if (Math.hypot(c.x - x, c.y - y) < c.size * 2.5 && Math.abs(c.size - size) < c.size * 0.6) {
      const n = c.count;
      c.x = (c.x * n + x) / (n + 1);
      c.y = (c.y * n + y) / (n + 1);
      c.size = (c.size * n + size) / (n + 1);
      c.widths = c.widths.map((v, i) => (v * n + widths[i]) / (n + 1));
      c.count++;
      return;
    }
  }
  found.push({ x, y, size, widths, count: 1 });
}

// Triples of candidates that could be one symbol's corners, best first: similar module sizes,
// two legs of about equal length meeting at about a right angle. Returns [topLeft, topRight,
// bottomLeft] each, oriented so the symbol reads un-mirrored (y grows downwards).
export function chooseTriples(cands) {
  const list = cands.slice(0, 12);
  const out = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      for (let k = j + 1; k < list.length; k++) {
        const t = [list[i], list[j], list[k]];
        const sizes = t.map((c) => c.size);
        if (Math.max(...sizes) > 1.6 * Math.min(...sizes)) continue;
        // The corner is the one opposite the longest side.
        const d = [dist(t[1], t[2]), dist(t[0], t[2]), dist(t[0], t[1])];
        const corner = d.indexOf(Math.max(...d));
        const a = t[corner], b = t[(corner + 1) % 3], c = t[(corner + 2) % 3];
        const ab = dist(a, b), ac = dist(a, c);
        const cos = ((b.x - a.x) * (c.x - a.x) + (b.y - a.y) * (c.y - a.y)) / (ab * ac);
        const legs = Math.max(ab, ac) / Math.min(ab, ac);
        const ms = (a.size + b.size + c.size) / 3;
        if (Math.abs(cos) > 0.3 || legs > 1.4 || ab < 8 * ms) continue;
        const cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        const [tr, bl] = cross > 0 ? [b, c] : [c, b];
        out.push({ score: Math.abs(cos) + (legs - 1), corners: [a, tr, bl] });
      }
    }
  }
  return out.sort((p, q) => p.score - q.score).slice(0, 4).map((p) => p.corners);
}

export const dist = (p, q) => Math.hypot(p.x - q.x, p.y - q.y);
