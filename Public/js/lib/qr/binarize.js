// Binarization for the QR reader (qr-scan.js): grey levels, then a local-mean threshold.

// Grey level per pixel, then dark where the pixel is clearly below the mean of a window about
// 1/8 of the frame wide around it (an integral image makes each mean four lookups). A window
// wider than a finder's 3x3 centre keeps that centre dark; a local mean follows a shadow.
export function binarize(image) {
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
