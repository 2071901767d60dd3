// Perspective and sampling for the QR reader (qr-scan.js): module space to the frame, read module by module.

import { alignmentCentres } from './codewords.js';

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
export function sampleGrid(bin, corners, size, how) {
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
