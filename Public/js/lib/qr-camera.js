// The phone's camera as a QR reader (issue #45, the prize hand-over scan).
//
// scanCamera(video, onText, options) → Promise<{stop()}>: opens the back camera into `video`,
// looks at about 8 frames a second, and calls onText(text) once for each distinct text it reads
// (a voucher held in view stays one call). The browser's BarcodeDetector reads the frames where it
// exists and lists "qr_code" (Chrome on Android, Safari); elsewhere qr-scan.js's decodeQR does.
// The promise rejects with an Error whose `name` is the camera's: NotAllowedError (permission
// refused), NotFoundError (no camera), NotReadableError (in use), NotSupportedError (no
// getUserMedia: not a secure context), so the page can say which in words.
// options: {fps (8), maxSide (longest side a frame is scaled to before decoding, 800),
//           decoder: "auto" | "builtin" (always decodeQR: tests, or a detector one distrusts)}
//
// decodeImageFile(file) → text or null: a photo from <input type=file accept=image/*
// capture=environment>, the way in when the camera may not be used.

import { decodeQR } from "./qr-scan.js";

// A BarcodeDetector for QR codes, or null when the browser has none (or none for QR).
async function qrDetector(options) {
  if (options.decoder === "builtin" || typeof globalThis.BarcodeDetector !== "function") return null;
  try {
    const formats = await globalThis.BarcodeDetector.getSupportedFormats();
    return formats.includes("qr_code") ? new globalThis.BarcodeDetector({ formats: ["qr_code"] }) : null;
  } catch {
    return null;
  }
}

// A 2D canvas to draw frames into (not in the page); readback-friendly.
function scratchCanvas() {
  const canvas = typeof OffscreenCanvas === "function" ? new OffscreenCanvas(1, 1) : document.createElement("canvas");
  return { canvas, ctx: canvas.getContext("2d", { willReadFrequently: true }) };
}

// Draws `source` (w × h) scaled so its longer side is at most maxSide, then reads it.
async function readSource(source, w, h, maxSide, detector, scratch) {
  const scale = Math.min(1, maxSide / Math.max(w, h));
  const cw = Math.max(1, Math.round(w * scale)), ch = Math.max(1, Math.round(h * scale));
  const { canvas, ctx } = scratch;
  if (canvas.width !== cw || canvas.height !== ch) { canvas.width = cw; canvas.height = ch; }
  ctx.drawImage(source, 0, 0, cw, ch);
  if (detector) {
    const codes = await detector.detect(canvas);
    const code = codes.find((c) => c.rawValue);
    return code ? code.rawValue : null;
  }
  return decodeQR(ctx.getImageData(0, 0, cw, ch));
}

function cameraError(name, message) {
  const error = new Error(message || name);
  error.name = name;
  return error;
}

export async function scanCamera(video, onText, options = {}) {
  const fps = options.fps || 8, maxSide = options.maxSide || 800;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    throw cameraError("NotSupportedError", "getUserMedia is not available (an insecure page?)");
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  } catch (e) {
    throw cameraError((e && e.name) || "NotAllowedError", e && e.message);
  }
  let stopped = false, timer = 0;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    for (const track of stream.getTracks()) track.stop();
    if (video.srcObject === stream) video.srcObject = null;
  };
  video.muted = true;
  video.playsInline = true; // iOS: in the page, not full screen
  video.srcObject = stream;
  try {
    await video.play();
  } catch (e) {
    stop();
    throw cameraError((e && e.name) || "AbortError", e && e.message);
  }
  const detector = await qrDetector(options);
  const scratch = scratchCanvas();
  const seen = new Set();
  const tick = async () => {
    if (stopped) return;
    const started = performance.now();
    if (video.readyState >= 2 && video.videoWidth) {
      try {
        const text = await readSource(video, video.videoWidth, video.videoHeight, maxSide, detector, scratch);
        if (text && !seen.has(text) && !stopped) {
          seen.add(text);
          onText(text);
        }
      } catch {
        // one unreadable frame (a detector hiccup): the next one may do
      }
    }
    if (!stopped) timer = setTimeout(tick, Math.max(0, 1000 / fps - (performance.now() - started)));
  };
  tick();
  return { stop };
}

export async function decodeImageFile(file, options = {}) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return null; // not an image the browser can read
  }
  try {
    const detector = await qrDetector(options);
    const scratch = scratchCanvas();
    // A phone photo is large: read it at a screen's size, then smaller (coarser noise, fewer pixels
    // per module) if that did not work.
    for (const side of [1024, 640]) {
      const text = await readSource(bitmap, bitmap.width, bitmap.height, side, detector, scratch);
      if (text) return text;
    }
    return null;
  } finally {
    bitmap.close();
  }
}
