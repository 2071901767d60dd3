// Segments for the QR reader (qr-scan.js): numeric, alphanumeric, byte, kanji and ECI.

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";

export function decodeSegments(bytes, version) {
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
