// Reed–Solomon over GF(256) (polynomial 0x11D) for the QR reader (qr-scan.js).

export const EXP = new Uint8Array(512), LOG = new Uint8Array(256);
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
export function rsCorrect(block, ecLen) {
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
