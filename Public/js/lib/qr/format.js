// Format and version information for the QR reader (qr-scan.js), BCH nearest match.

// BCH remainders: format = 5 data bits, generator 0x537, XOR 0x5412; version = 6 bits, 0x1F25.
function bch(value, dataBits, generator, genBits) {
  let rem = value << (genBits - 1);
  for (let bit = dataBits + genBits - 2; bit >= genBits - 1; bit--) {
    if (rem & (1 << bit)) rem ^= generator << (bit - genBits + 1);
  }
  return (value << (genBits - 1)) | rem;
}
export const FORMATS = Array.from({ length: 32 }, (_, d) => ({ bits: bch(d, 5, 0x537, 11) ^ 0x5412, ec: "MLHQ"[d >> 3], mask: d & 7 }));
export const VERSIONS = Array.from({ length: 34 }, (_, i) => ({ bits: bch(i + 7, 6, 0x1f25, 13), version: i + 7 }));

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
export function readFormat(grid, size) {
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
export function readVersion(grid, size) {
  let a = 0, b = 0;
  for (let i = 0; i < 18; i++) {
    const p = size - 11 + (i % 3), q = Math.floor(i / 3);
    a |= grid[q * size + p] << i;
    b |= grid[p * size + q] << i;
  }
  const v = nearest(VERSIONS, [a, b]);
  return v ? v.version : 0;
}
