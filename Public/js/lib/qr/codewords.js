// Function patterns and codewords for the QR reader (qr-scan.js): the zig-zag walk, masks, RS blocks.

export function alignmentCentres(version) {
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
export function functionMask(version) {
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
export function readCodewords(grid, version, mask) {
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
export function deinterleave(codewords, version, ec) {
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
