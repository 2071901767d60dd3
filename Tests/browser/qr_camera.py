"""A fake camera for Chromium tests of QR scanning (issue #45, the prize hand-over).

Chromium can play a video file as its camera (`--use-fake-device-for-media-stream
--use-file-for-fake-video-capture=<file.y4m>`, with `--use-fake-ui-for-media-stream` granting the
permission). So a test can show a code on one page, photograph it, and let another page's camera
see it:

    png = page_a.find_element(By.CSS_SELECTOR, "img.voucher").screenshot_as_png
    png_to_y4m(png, tmp_path / "view.y4m")            # the shot, on a phone screen, in a camera frame
    with camera_browser(tmp_path / "view.y4m", 390, 844) as staff:
        staff.get(server.url("/..."))                   # a page that calls qr-camera.js scanCamera
        staff.wait_js("...the page shows what it read...")

png_to_y4m(png_bytes, path, width=640, height=480, fill=0.6, angle=0, tilt=0): pure Python (zlib and
the five PNG row filters; 8-bit grey/RGB/grey+alpha/RGBA, not interlaced: what Chromium's screenshots
are). The picture is composited on white, scaled to `fill` of the frame's height, rotated by `angle`
degrees, seen in perspective (`tilt` 0.15: the right side about 15 % farther from the camera than
the left, as a phone held at an angle), centred on a light "screen" (grey 235) inside a mid-grey
frame (grey 110), and written as one 4:2:0 frame ("YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg"); Chromium loops it.
About 0.3 s.

camera_browser(y4m_path, width, height, lang="en-US"): a context manager giving a conftest.Browser
(same options as the `browser` fixture's) that has that file as its only camera; quit on exit.
http://127.0.0.1 is a secure context, so getUserMedia works on the test server's pages.
"""

import contextlib
import math
import struct
import zlib

from conftest import Browser


def decode_png(data):
    """(width, height, rows) with rows a list of bytes objects of RGB pixels, alpha composited on white."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError("only 8-bit grey/RGB(A), non-interlaced PNGs (got depth %d, colour %d)" % (depth, colour))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        bpp = channels
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise ValueError("bad PNG filter %d" % kind)
        prev = line
        rows.append(_to_rgb(line, channels))
    return width, height, rows


def _to_rgb(line, channels):
    if channels == 3:
        return bytes(line)
    if channels == 1:
        return bytes(v for v in line for _ in range(3))
    out = bytearray()
    for i in range(0, len(line), channels):
        alpha = line[i + channels - 1]
        colour = line[i:i + 3] if channels == 4 else line[i:i + 1] * 3
        out += bytes((c * alpha + 255 * (255 - alpha)) // 255 for c in colour)
    return bytes(out)


def png_to_y4m(png_bytes, path, width=640, height=480, fill=0.6, angle=0.0, tilt=0.0):
    """Writes a one-frame y4m camera view of the PNG (see the module's docstring); returns path."""
    if width % 2 or height % 2:
        raise ValueError("4:2:0 needs even width and height")
    pw, ph, rows = decode_png(png_bytes)
    scale = fill * height / max(pw, ph)
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    cx, cy = width / 2, height / 2
    # The phone's screen: a light rectangle a little larger than the picture, square to the frame.
    half = max(pw, ph) * scale / 2 * (abs(cos) + abs(sin)) + 0.08 * height
    rgb = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            # Nearest source pixel under the inverse perspective, rotation and scale.
            dx, dy = x + 0.5 - cx, y + 0.5 - cy
            depth = 1 - tilt * dx / width
            dx, dy = dx / depth, dy / depth
            sx = (cos * dx + sin * dy) / scale + pw / 2
            sy = (-sin * dx + cos * dy) / scale + ph / 2
            ix, iy = int(math.floor(sx)), int(math.floor(sy))
            if 0 <= ix < pw and 0 <= iy < ph:
                row += rows[iy][3 * ix:3 * ix + 3]
            elif abs(dx) <= half and abs(dy) <= half:
                row += b"\xeb\xeb\xeb"
            else:
                row += b"\x6e\x6e\x6e"
        rgb.append(row)
    lum = bytearray()
    for row in rgb:
        lum += bytes(min(255, (77 * row[i] + 150 * row[i + 1] + 29 * row[i + 2] + 128) >> 8)
                     for i in range(0, len(row), 3))
    u, v = bytearray(), bytearray()
    for y in range(0, height, 2):
        top, bottom = rgb[y], rgb[y + 1]
        for x in range(0, 3 * width, 6):
            r = top[x] + top[x + 3] + bottom[x] + bottom[x + 3]
            g = top[x + 1] + top[x + 4] + bottom[x + 1] + bottom[x + 4]
            b = top[x + 2] + top[x + 5] + bottom[x + 2] + bottom[x + 5]
            # JFIF (full-range BT.601) chroma of the 2x2 average
            u.append(max(0, min(255, round(128 + (-0.168736 * r - 0.331264 * g + 0.5 * b) / 4))))
            v.append(max(0, min(255, round(128 + (0.5 * r - 0.418688 * g - 0.081312 * b) / 4))))
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n" % (width, height))
        f.write(b"FRAME\n" + bytes(lum) + bytes(u) + bytes(v))
    return path


@contextlib.contextmanager
def camera_browser(y4m_path, width=390, height=844, lang="en-US"):
    """A Chromium whose camera plays y4m_path (permission granted); quit when the block ends."""
    b = Browser(width, height, lang, extra_args=[
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        "--use-file-for-fake-video-capture=%s" % y4m_path])
    try:
        yield b
    finally:
        b.quit()
