// A QR code reader for camera frames (issue #45, the prize hand-over scan): the staff page's
// fallback where the browser has no BarcodeDetector. Written from ISO/IEC 18004 (QR Code 2005):
// its tables (error correction per version, format and version information, masks) and its
// algorithms; no library code.
//
// decodeQR({data, width, height}) → text or null. A pure function (no DOM), in pieces (the modules
// of Public/js/lib/qr/: binarize, finders, grid, format, codewords, reed-solomon, segments):
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

import { binarize } from './qr/binarize.js';
import { alignmentCentres, deinterleave, functionMask, readCodewords } from './qr/codewords.js';
import { chooseTriples, dist, findFinders } from './qr/finders.js';
import { FORMATS, VERSIONS, readFormat, readVersion } from './qr/format.js';
import { sampleGrid } from './qr/grid.js';
import { EXP, rsCorrect } from './qr/reed-solomon.js';
import { decodeSegments } from './qr/segments.js';

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
