// A QR code reader for camera frames (issue #45, the prize hand-over scan): the staff page's
// fallback where the browser has no BarcodeDetector. Written from ISO/IEC 18004 (QR Code 2005):
// its tables (error correction per version, format and version information, masks) and its
// algorithms; no library code.
//
// decodeQR({data, width, height}) → text or null. A pure function (no DOM), in pieces:
//   binarize        grey levels, then a local-mean threshold (uneven lighting, low contrast)
//   findFinders     the three 1:1:3:1:1 corner patterns, from row runs cross-checked in columns
//   chooseTriples   which three of the candidates form a symbol, and which corner is which
//   sampleGrid      a perspective map from module space to the frame: the three finder centres
//                   plus the bottom-right alignment pattern (version ≥ 2; from version 7 each cell
//                   of the alignment grid gets its own map), else a parallelogram's fourth corner
//                   (version 1: a few nearby places for it are tried)
//   readFormat      EC level and mask from the 15 format bits (either copy, BCH nearest match)
//   readVersion     the 18 version bits for version ≥ 7 (the size estimate is checked against them)
//   readCodewords   the zig-zag walk over the non-function modules, unmasked
//   deinterleave    codewords → RS blocks;  rsCorrect  Reed–Solomon over GF(256), polynomial 0x11D
//   decodeSegments  numeric, alphanumeric, byte (UTF-8, or Latin-1 after ECI 3), kanji, ECI
//
// What it handles (Tests/browser/test_qr_scan.py checks these): versions 1–40, EC levels L/M/Q/H,
// dark modules on a light ground, any quiet zone of at least a module, the symbol anywhere in the
// frame at 25–95 % of its height as long as a module is at least about 2–2.5 pixels (versions
// 1–8 at 25 % of a 640x480 frame's height, 9–10 from 30 %), rotated in the image plane by any angle (tested ±8° and
// ±10°; 45° and 137° by hand), perspective as of a phone held at an angle (one side up to about
// 20 % farther than the other; the camera test uses 12 %), a light gradient or shadow across the
// frame, low contrast (dark grey on light grey), blur of a third of a module, sensor noise, and a
// few damaged modules (Reed–Solomon). About 6–12 ms for a 640x480 frame in Chromium on one core.
// Not handled: mirrored or light-on-dark symbols, Micro QR, structured append (read as parts).

// ---------------------------------------------------------------- binarize

// Grey level per pixel, then dark where the pixel is clearly below the mean of a window about
// 1/8 of the frame wide around it (an integral image makes each mean four lookups). A window
// wider than a finder's 3x3 centre keeps that centre dark; a local mean follows a shadow.
function binarize(image) {
  const { data, width: w, height: h } = image;
  const grey = new Uint8Array(w * h);
  for (let i = 0, p = 0; i < grey.length; i++, p += 4) {
    grey[i] = (data[p] * 77 + data[p + 1] * 150 + data[p + 2] * 29) >> 8;
  }
  const W = w + 1;
  const sum = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += grey[y * w + x];
      sum[(y + 1) * W + x + 1] = sum[y * W + x + 1] + row;
    }
  }
  const r = Math.max(8, Math.round(Math.min(w, h) / 8));
  const dark = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - r), y1 = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(0, x - r), x1 = Math.min(w, x + r + 1);
      const total = sum[y1 * W + x1] - sum[y0 * W + x1] - sum[y1 * W + x0] + sum[y0 * W + x0];
      const mean = total / ((x1 - x0) * (y1 - y0));
      // The margin keeps sensor noise on a plain ground from reading as dark specks.
      dark[y * w + x] = grey[y * w + x] < mean - Math.max(3, mean * 0.04) ? 1 : 0;
    }
  }
  return { dark, w, h };
}

// ---------------------------------------------------------------- finder patterns

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
function findFinders(bin) {
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
function chooseTriples(cands) {
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

const dist = (p, q) => Math.hypot(p.x - q.x, p.y - q.y);

// ---------------------------------------------------------------- perspective and sampling

// The projective transform taking four module-space points to four image points: the 8 unknowns
// of [a b c; d e f; g h 1] from 8 linear equations (Gaussian elimination with pivoting).
function homography(src, dst) {
  const A = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i], [u, v] = dst[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (Math.abs(A[r][col]) > Math.abs(A[pivot][col])) pivot = r;
    [A[col], A[pivot]] = [A[pivot], A[col]];
    if (Math.abs(A[col][col]) < 1e-12) return null;
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const f = A[r][col] / A[col][col];
      for (let c = col; c < 9; c++) A[r][c] -= f * A[col][c];
    }
  }
  const m = A.map((row, i) => row[8] / row[i]);
  return (x, y) => {
    const z = m[6] * x + m[7] * y + 1;
    return [(m[0] * x + m[1] * y + m[2]) / z, (m[3] * x + m[4] * y + m[5]) / z];
  };
}

function darkAt(bin, p) {
  const x = Math.round(p[0] - 0.5), y = Math.round(p[1] - 0.5);
  if (x < 0 || y < 0 || x >= bin.w || y >= bin.h) return 0;
  return bin.dark[y * bin.w + x];
}

// Module-space position of a finder centre for a symbol of `size` modules.
const finderModules = (size) => [[3.5, 3.5], [size - 3.5, 3.5], [3.5, size - 3.5]];

// An alignment pattern's centre in the image, searched around where `map` (module space → image)
// puts the one centred on module (mx, my): the pixel whose surrounding 5x5 modules best match dark
// ring / light ring / dark centre, sampled with the map's local module steps: of the best-scoring
// pixels, the centroid of those within a module of the one nearest the prediction. Null when
// nothing within `radius` modules scores at least `minScore` of 25.
function findAlignment(bin, map, mx, my, radius, minScore) {
  const [ex, ey] = map(mx + 0.5, my + 0.5);
  const [ax, ay] = map(mx + 1.5, my + 0.5), [bx, by] = map(mx + 0.5, my + 1.5);
  const ux = ax - ex, uy = ay - ey, vx = bx - ex, vy = by - ey;
  const module = Math.max(Math.hypot(ux, uy), Math.hypot(vx, vy));
  const r = Math.max(3, Math.round(radius * module));
  let best = 0, hits = [];
  for (let y = Math.round(ey - r); y <= ey + r; y++) {
    for (let x = Math.round(ex - r); x <= ex + r; x++) {
      let score = 0;
      for (let j = -2; j <= 2; j++) {
        for (let i = -2; i <= 2; i++) {
          const want = Math.max(Math.abs(i), Math.abs(j)) !== 1 ? 1 : 0;
          if (darkAt(bin, [x + 0.5 + i * ux + j * vx, y + 0.5 + i * uy + j * vy]) === want) score++;
        }
      }
      if (score > best) { best = score; hits = []; }
      if (score === best) hits.push([x + 0.5, y + 0.5]);
    }
  }
  if (best < minScore) return null;
  const d = (p) => Math.hypot(p[0] - ex, p[1] - ey);
  const near = hits.reduce((p, q) => (d(q) < d(p) ? q : p));
  const group = hits.filter((p) => Math.hypot(p[0] - near[0], p[1] - near[1]) <= module);
  return [group.reduce((t, p) => t + p[0], 0) / group.length, group.reduce((t, p) => t + p[1], 0) / group.length];
}

// From module space to the image. `how` is "align": through the three finder centres and the
// bottom-right alignment pattern (found near where a parallelogram puts it), a true perspective
// map for a tilted view; or [dx, dy]: the fourth point is the parallelogram's corner moved by that
// many modules ([0, 0]: exact for a flat, square-on view; version 1 has no alignment pattern, so
// decodeQR tries a few moves for a tilted one, and Reed–Solomon tells which fits).
function globalMap(bin, corners, size, how) {
  const src = finderModules(size);
  const dst = corners.map((c) => [c.x, c.y]);
  const [tl, tr, bl] = corners, n = size - 7;
  const [dx, dy] = how === "align" ? [0, 0] : how;
  const ux = (tr.x - tl.x) / n, uy = (tr.y - tl.y) / n, vx = (bl.x - tl.x) / n, vy = (bl.y - tl.y) / n;
  const affine = homography([...src, [size - 3.5, size - 3.5]],
    [...dst, [tr.x + bl.x - tl.x + dx * ux + dy * vx, tr.y + bl.y - tl.y + dx * uy + dy * vy]]);
  if (how !== "align" || !affine) return affine;
  const found = findAlignment(bin, affine, size - 7, size - 7, 8, 20);
  return found ? homography([...src, [size - 6.5, size - 6.5]], [...dst, found]) : null;
}

// Large symbols (version ≥ 7) carry a grid of alignment patterns: each is looked for close to where
// the global map puts it, and every module is read through the perspective map of its own cell of
// that grid (what a curved or not quite flat phone screen needs). Patterns not found keep the
// global map's place. Returns (x, y) → image point.
function cellMap(bin, map, version) {
  const centres = alignmentCentres(version), k = centres.length;
  const points = centres.map((cy, j) => centres.map((cx, i) => {
    const corner = (i === 0 || j === 0) && (i === 0 || i === k - 1) && (j === 0 || j === k - 1) && !(i === k - 1 && j === k - 1);
    return (!corner && findAlignment(bin, map, cx, cy, 2.5, 21)) || map(cx + 0.5, cy + 0.5);
  }));
  const cells = [];
  for (let j = 0; j < k - 1; j++) {
    for (let i = 0; i < k - 1; i++) {
      const x0 = centres[i] + 0.5, x1 = centres[i + 1] + 0.5, y0 = centres[j] + 0.5, y1 = centres[j + 1] + 0.5;
      cells.push(homography([[x0, y0], [x1, y0], [x0, y1], [x1, y1]],
        [points[j][i], points[j][i + 1], points[j + 1][i], points[j + 1][i + 1]]) || map);
    }
  }
  const cellOf = (v) => {
    let i = 0;
    while (i < k - 2 && v >= centres[i + 1]) i++;
    return i;
  };
  return (x, y) => cells[cellOf(Math.floor(y)) * (k - 1) + cellOf(Math.floor(x))](x, y);
}

// The symbol's modules (1 = dark) read through the map, one sample per module centre.
function sampleGrid(bin, corners, size, how) {
  let map = globalMap(bin, corners, size, how);
  if (!map) return null;
  const version = (size - 17) / 4;
  if (how === "align" && version >= 7) map = cellMap(bin, map, version);
  const grid = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) grid[y * size + x] = darkAt(bin, map(x + 0.5, y + 0.5));
  }
  return grid;
}

// ---------------------------------------------------------------- format and version information

// BCH remainders: format = 5 data bits, generator 0x537, XOR 0x5412; version = 6 bits, 0x1F25.
function bch(value, dataBits, generator, genBits) {
  let rem = value << (genBits - 1);
  for (let bit = dataBits + genBits - 2; bit >= genBits - 1; bit--) {
    if (rem & (1 << bit)) rem ^= generator << (bit - genBits + 1);
  }
  return (value << (genBits - 1)) | rem;
}
const FORMATS = Array.from({ length: 32 }, (_, d) => ({ bits: bch(d, 5, 0x537, 11) ^ 0x5412, ec: "MLHQ"[d >> 3], mask: d & 7 }));
const VERSIONS = Array.from({ length: 34 }, (_, i) => ({ bits: bch(i + 7, 6, 0x1f25, 13), version: i + 7 }));

function popcount(v) { let n = 0; while (v) { n += v & 1; v >>>= 1; } return n; }

function nearest(table, readings) {
  let best = null, bestDist = 4; // both codes correct up to 3 bit errors
  for (const bits of readings) {
    for (const entry of table) {
      const d = popcount(bits ^ entry.bits);
      if (d < bestDist) { best = entry; bestDist = d; }
    }
  }
  return best;
}

// Bit i of the 15 format bits (i = 0 least significant) sits at these (x, y) in the two copies.
function readFormat(grid, size) {
  const m = (x, y) => grid[y * size + x];
  let a = 0, b = 0;
  for (let i = 0; i < 15; i++) {
    const p1 = i < 6 ? [8, i] : i < 8 ? [8, i + 1] : i === 8 ? [7, 8] : [14 - i, 8];
    const p2 = i < 8 ? [size - 1 - i, 8] : [8, size - 15 + i];
    a |= m(...p1) << i;
    b |= m(...p2) << i;
  }
  return nearest(FORMATS, [a, b]);
}

// Version bit i sits at (size-11 + i%3, i/3) near the top-right finder and transposed bottom-left.
function readVersion(grid, size) {
  let a = 0, b = 0;
  for (let i = 0; i < 18; i++) {
    const p = size - 11 + (i % 3), q = Math.floor(i / 3);
    a |= grid[q * size + p] << i;
    b |= grid[p * size + q] << i;
  }
  const v = nearest(VERSIONS, [a, b]);
  return v ? v.version : 0;
}

// ---------------------------------------------------------------- function patterns and codewords

function alignmentCentres(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2, size = 17 + 4 * version;
  // Spacing between the inner centres: even, the same for all but the first gap (ISO 18004 Annex E).
  const step = version === 32 ? 26 : Math.ceil((size - 13) / (count - 1) / 2) * 2;
  const out = [6];
  for (let p = size - 7; out.length < count; p -= step) out.splice(1, 0, p);
  return out;
}

// 1 where a module belongs to a finder, separator, timing line, alignment pattern, format or version
// information, or the dark module: everything the codeword walk skips.
function functionMask(version) {
  const size = 17 + 4 * version;
  const f = new Uint8Array(size * size);
  const fill = (x0, y0, w, h) => {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) f[y * size + x] = 1;
  };
  fill(0, 0, 9, 9); fill(size - 8, 0, 8, 9); fill(0, size - 8, 9, 8); // finders, separators, format
  fill(6, 0, 1, size); fill(0, 6, size, 1); // timing
  const centres = alignmentCentres(version), last = centres.length - 1;
  centres.forEach((cy, j) => {
    centres.forEach((cx, i) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return; // finders' places
      fill(cx - 2, cy - 2, 5, 5);
    });
  });
  if (version >= 7) { fill(size - 11, 0, 3, 6); fill(0, size - 11, 6, 3); }
  return f;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x, y) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(y / 2) + Math.floor(x / 3)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

// The data modules in placement order: two-column strips from the right, alternately upwards and
// downwards, skipping the vertical timing column; bits most significant first into codewords.
function readCodewords(grid, version, mask) {
  const size = 17 + 4 * version;
  const f = functionMask(version);
  const flip = MASKS[mask];
  const bytes = [];
  let cur = 0, nbits = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((size - 1 - right) >> 1) % 2 === 0;
    for (let i = 0; i < size; i++) {
      const y = upward ? size - 1 - i : i;
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        if (f[y * size + x]) continue;
        cur = (cur << 1) | (grid[y * size + x] ^ (flip(x, y) ? 1 : 0));
        if (++nbits === 8) { bytes.push(cur); cur = 0; nbits = 0; }
      }
    }
  }
  return bytes; // remainder bits (0–7) dropped
}

// Error correction per version (1–40), for L, M, Q, H: [EC codewords per block, number of blocks]
// (ISO/IEC 18004 Table 9). Data codewords split as evenly as the total allows, short blocks first.
const EC_TABLE = [
  null,
  [[7, 1], [10, 1], [13, 1], [17, 1]], [[10, 1], [16, 1], [22, 1], [28, 1]], [[15, 1], [26, 1], [18, 2], [22, 2]],
  [[20, 1], [18, 2], [26, 2], [16, 4]], [[26, 1], [24, 2], [18, 4], [22, 4]], [[18, 2], [16, 4], [24, 4], [28, 4]],
  [[20, 2], [18, 4], [18, 6], [26, 5]], [[24, 2], [22, 4], [22, 6], [26, 6]], [[30, 2], [22, 5], [20, 8], [24, 8]],
  [[18, 4], [26, 5], [24, 8], [28, 8]], [[20, 4], [30, 5], [28, 8], [24, 11]], [[24, 4], [22, 8], [26, 10], [28, 11]],
  [[26, 4], [22, 9], [24, 12], [22, 16]], [[30, 4], [24, 9], [20, 16], [24, 16]], [[22, 6], [24, 10], [30, 12], [24, 18]],
  [[24, 6], [28, 10], [24, 17], [30, 16]], [[28, 6], [28, 11], [28, 16], [28, 19]], [[30, 6], [26, 13], [28, 18], [28, 21]],
  [[28, 7], [26, 14], [26, 21], [26, 25]], [[28, 8], [26, 16], [30, 20], [28, 25]], [[28, 8], [26, 17], [28, 23], [30, 25]],
  [[28, 9], [28, 17], [30, 23], [24, 34]], [[30, 9], [28, 18], [30, 25], [30, 30]], [[30, 10], [28, 20], [30, 27], [30, 32]],
  [[26, 12], [28, 21], [30, 29], [30, 35]], [[28, 12], [28, 23], [28, 34], [30, 37]], [[30, 12], [28, 25], [30, 34], [30, 40]],
  [[30, 13], [28, 26], [30, 35], [30, 42]], [[30, 14], [28, 28], [30, 38], [30, 45]], [[30, 15], [28, 29], [30, 40], [30, 48]],
  [[30, 16], [28, 31], [30, 43], [30, 51]], [[30, 17], [28, 33], [30, 45], [30, 54]], [[30, 18], [28, 35], [30, 48], [30, 57]],
  [[30, 19], [28, 37], [30, 51], [30, 60]], [[30, 19], [28, 38], [30, 53], [30, 63]], [[30, 20], [28, 40], [30, 56], [30, 66]],
  [[30, 21], [28, 43], [30, 59], [30, 70]], [[30, 22], [28, 45], [30, 62], [30, 74]], [[30, 24], [28, 47], [30, 65], [30, 77]],
  [[30, 25], [28, 49], [30, 68], [30, 81]],
];

// Codewords → RS blocks (interleaved byte by byte: data of every block, then EC of every block).
function deinterleave(codewords, version, ec) {
  const [ecLen, count] = EC_TABLE[version]["LMQH".indexOf(ec)];
  const dataTotal = codewords.length - ecLen * count;
  const short = Math.floor(dataTotal / count), longCount = dataTotal % count;
  const blocks = Array.from({ length: count }, (_, b) => ({ data: short + (b >= count - longCount ? 1 : 0), bytes: [] }));
  let k = 0;
  for (let i = 0; i <= short; i++) {
    for (const b of blocks) if (i < b.data) b.bytes.push(codewords[k++]);
  }
  for (let i = 0; i < ecLen; i++) for (const b of blocks) b.bytes.push(codewords[k++]);
  return { blocks, ecLen };
}

// ---------------------------------------------------------------- Reed–Solomon over GF(256)

const EXP = new Uint8Array(512), LOG = new Uint8Array(256);
for (let i = 0, v = 1; i < 255; i++) {
  EXP[i] = v; LOG[v] = i;
  v <<= 1; if (v & 0x100) v ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);
const div = (a, b) => (a ? EXP[LOG[a] + 255 - LOG[b]] : 0);
// p(x) with p[i] the coefficient of x^i
const evalPoly = (p, x) => { let s = 0; for (let i = p.length - 1; i >= 0; i--) s = mul(s, x) ^ p[i]; return s; };

// Corrects `block` (data then EC codewords; the first byte is the highest power of x) in place.
// The generator's roots are α^0 … α^(ecLen-1). Berlekamp–Massey for the error locator, a Chien
// search for its roots, Forney for the values. False when there are more errors than it can fix.
function rsCorrect(block, ecLen) {
  const n = block.length;
  const S = new Array(ecLen);
  let clean = true;
  for (let j = 0; j < ecLen; j++) {
    let s = 0;
    for (let k = 0; k < n; k++) s = mul(s, EXP[j]) ^ block[k];
    S[j] = s;
    if (s) clean = false;
  }
  if (clean) return true;
  let C = [1], B = [1], L = 0, m = 1, b = 1;
  for (let r = 0; r < ecLen; r++) {
    let d = S[r];
    for (let i = 1; i <= L; i++) d ^= mul(C[i] || 0, S[r - i]);
    if (d === 0) { m++; continue; }
    const coef = div(d, b);
    const T = C.slice();
    const grown = C.slice();
    for (let i = 0; i < B.length; i++) grown[i + m] = (grown[i + m] || 0) ^ mul(coef, B[i]);
    for (let i = 0; i < grown.length; i++) grown[i] = grown[i] || 0;
    if (2 * L <= r) { L = r + 1 - L; B = T; b = d; m = 1; } else { m++; }
    C = grown;
  }
  if (2 * L > ecLen) return false;
  // Ω(x) = S(x)Λ(x) mod x^ecLen; Λ'(x) keeps the odd terms (characteristic 2).
  const omega = new Array(ecLen).fill(0);
  for (let i = 0; i < ecLen; i++) for (let j = 0; j <= i && j < C.length; j++) omega[i] ^= mul(C[j], S[i - j]);
  const deriv = C.map((c, i) => (i % 2 === 1 ? c : 0)).slice(1);
  let found = 0;
  for (let p = 0; p < n; p++) {
    const xinv = EXP[(255 - p) % 255];
    if (evalPoly(C, xinv) !== 0) continue;
    const denom = evalPoly(deriv, xinv);
    if (!denom) return false;
    // e = X · Ω(X⁻¹) / Λ'(X⁻¹) for first root α^0
    block[n - 1 - p] ^= mul(EXP[p], div(evalPoly(omega, xinv), denom));
    found++;
  }
  return found === L;
}

// ---------------------------------------------------------------- segments

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";

function decodeSegments(bytes, version) {
  let pos = 0;
  const bits = (n) => {
    let v = 0;
    for (let i = 0; i < n; i++, pos++) {
      if (pos >= bytes.length * 8) throw new Error("short");
      v = (v << 1) | ((bytes[pos >> 3] >> (7 - (pos & 7))) & 1);
    }
    return v;
  };
  const band = version < 10 ? 0 : version < 27 ? 1 : 2;
  let text = "", pending = [], charset = "utf-8";
  const flush = () => {
    if (!pending.length) return;
    text += new TextDecoder(charset).decode(new Uint8Array(pending));
    pending = [];
  };
  while (bytes.length * 8 - pos >= 4) {
    const mode = bits(4);
    if (mode === 0) break;
    if (mode === 1) {
      flush();
      let count = bits([10, 12, 14][band]);
      for (; count >= 3; count -= 3) text += String(bits(10)).padStart(3, "0");
      if (count === 2) text += String(bits(7)).padStart(2, "0");
      else if (count === 1) text += String(bits(4));
    } else if (mode === 2) {
      flush();
      let count = bits([9, 11, 13][band]);
      for (; count >= 2; count -= 2) { const v = bits(11); text += ALNUM[Math.floor(v / 45)] + ALNUM[v % 45]; }
      if (count === 1) text += ALNUM[bits(6)];
    } else if (mode === 4) {
      const count = bits([8, 16, 16][band]);
      for (let i = 0; i < count; i++) pending.push(bits(8));
    } else if (mode === 8) {
      flush();
      const count = bits([8, 10, 12][band]);
      const sjis = [];
      for (let i = 0; i < count; i++) {
        const v = bits(13);
        let c = Math.floor(v / 0xc0) * 0x100 + (v % 0xc0);
        c += c < 0x1f00 ? 0x8140 : 0xc140;
        sjis.push(c >> 8, c & 0xff);
      }
      text += new TextDecoder("shift_jis").decode(new Uint8Array(sjis));
    } else if (mode === 7) {
      flush();
      let eci = bits(8);
      if ((eci & 0xc0) === 0x80) eci = ((eci & 0x3f) << 8) | bits(8);
      else if ((eci & 0xe0) === 0xc0) eci = ((eci & 0x1f) << 16) | bits(16);
      charset = eci === 26 ? "utf-8" : eci === 1 || eci === 3 ? "iso-8859-1" : eci === 20 ? "shift_jis" : "utf-8";
    } else if (mode === 3) {
      bits(16); // structured append header: this symbol's part is read on its own
    } else if (mode === 5 || mode === 9) {
      if (mode === 9) bits(8); // FNC1: an application indicator only
    } else {
      throw new Error("mode " + mode);
    }
  }
  flush();
  return text;
}

// ---------------------------------------------------------------- putting it together

// One attempt: a grid of `size` modules → text, or null (format unreadable, too many errors for
// Reed–Solomon, or a segment that runs past the data).
function decodeGrid(grid, size) {
  const version = (size - 17) / 4;
  const format = readFormat(grid, size);
  if (!format) return null;
  const codewords = readCodewords(grid, version, format.mask);
  const { blocks, ecLen } = deinterleave(codewords, version, format.ec);
  const data = [];
  for (const b of blocks) {
    if (!rsCorrect(b.bytes, ecLen)) return null;
    for (let i = 0; i < b.data; i++) data.push(b.bytes[i]);
  }
  try {
    return decodeSegments(data, version);
  } catch {
    return null;
  }
}

// Sizes worth trying for three corners: the estimate from finder spacing over module size, made
// 1 mod 4, then its neighbours; for version ≥ 7 the version information has the last word.
function sizeEstimates(corners) {
  const [tl, tr, bl] = corners;
  // A line at angle φ to a square's side crosses it in side / cos φ: fold the symbol's angle into
  // [0°, 45°] for the row and column widths, and shift it by 45° for the diagonals.
  const angle = Math.atan2(tr.y - tl.y, tr.x - tl.x);
  const fold = (a) => { a = Math.abs(a) % (Math.PI / 2); return Math.min(a, Math.PI / 2 - a); };
  const c0 = Math.cos(fold(angle)), c45 = Math.cos(fold(angle - Math.PI / 4));
  const module = (f) => ((f.widths[0] + f.widths[1]) * c0 + (f.widths[2] + f.widths[3]) * c45) / 28;
  const ms = (module(tl) * 2 + module(tr) + module(bl)) / 4;
  const modules = (dist(tl, tr) + dist(tl, bl)) / 2 / ms + 7;
  const base = Math.round((modules - 17) / 4);
  return [base, base + 1, base - 1].filter((v) => v >= 1 && v <= 40).map((v) => 17 + 4 * v);
}

// Where version 1's missing fourth point may be, in modules from the parallelogram's corner: the
// centre first, then outwards (a view tilted by up to about 20°).
const VERSION1_MOVES = [-1.5, -0.75, 0, 0.75, 1.5].flatMap((dx) => [-1.5, -0.75, 0, 0.75, 1.5].map((dy) => [dx, dy]))
  .sort((p, q) => Math.hypot(...p) - Math.hypot(...q));

export function decodeQR(image) {
  if (!image || !image.width || !image.height) return null;
  const bin = binarize(image);
  const finders = findFinders(bin);
  for (const corners of chooseTriples(finders)) {
    const tried = new Set();
    const queue = sizeEstimates(corners);
    while (queue.length) {
      const size = queue.shift();
      if (tried.has(size)) continue;
      tried.add(size);
      for (const how of size >= 25 ? ["align", [0, 0]] : VERSION1_MOVES) {
        const grid = sampleGrid(bin, corners, size, how);
        if (!grid) continue;
        if (size >= 45) {
          const v = readVersion(grid, size);
          if (v && 17 + 4 * v !== size) { queue.unshift(17 + 4 * v); break; }
        }
        const text = decodeGrid(grid, size);
        if (text !== null) return text;
      }
    }
  }
  return null;
}

// For tests: the pieces, to check each on its own.
export const _internal = { decodeGrid, sampleGrid, chooseTriples, rsCorrect, EXP, alignmentCentres, functionMask, FORMATS, VERSIONS, binarize, findFinders };
