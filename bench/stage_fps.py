"""Frame rate of the stage's display modes (issue #26) in Chromium: a draw of 5,000 names per
mode (number, reels, wheel, names), the projector page at 1920x1080 rolling at the server's
20 ticks a second, frames counted with requestAnimationFrame and long animation frames from the
performance timeline (PerformanceObserver "long-animation-frame") over `--seconds` of rolling.

    TOMBOLA_BIN=.build/release/tombola .venv/bin/python bench/stage_fps.py [--seconds 10] [--names 5000] [--gpu] [--modes number,wheel]

Headless Chromium with the tests' flags (--disable-gpu) rasterizes and composites in software
on the CPU; with --gpu it takes the GPU path (GPU raster, a composited layer turned by the
compositor) through ANGLE's SwiftShader, which is still the CPU here. The figures are for the
machine it runs on, with the server on the same cores; the script also reports the page's own
work per frame (the stage's draw() in JavaScript), which is what a faster machine does not hide.
"""

import argparse
import json
import os
import shutil
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "browser"))

from conftest import Browser, Server  # noqa: E402

MEASURE = """
  const done = arguments[arguments.length - 1];
  const seconds = arguments[0];
  const frames = [];
  const long = [];
  let observer = null;
  try {
    observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) long.push(e.duration); });
    observer.observe({ type: 'long-animation-frame', buffered: false });
  } catch (e) { /* older Chromium: rAF figures only */ }
  // The page's own work per frame: the mode's draw(), timed where it runs.
  const work = [];
  const renderer = window.tombola.stage && window.tombola.stage.renderer;
  const original = renderer && renderer.draw;
  if (renderer) renderer.draw = function (now) { const t = performance.now(); const r = original.call(this, now); work.push(performance.now() - t); return r; };
  let last = performance.now();
  const end = last + seconds * 1000;
  const step = (now) => {
    frames.push(now - last);
    last = now;
    if (now < end) requestAnimationFrame(step);
    else { observer && observer.disconnect(); if (renderer) renderer.draw = original; done({ frames, long, work }); }
  };
  requestAnimationFrame(step);
"""


def api(server, path, key, body=None):
    req = urllib.request.Request(server.url(path), data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--names", type=int, default=5000)
    parser.add_argument("--gpu", action="store_true", help="GPU raster and compositing through SwiftShader")
    parser.add_argument("--modes", default="number,reels,wheel,names", help="comma-separated modes to measure")
    args = parser.parse_args()
    if args.gpu:
        os.environ["TOMBOLA_CHROMIUM_GPU"] = "swiftshader"
    names = ["%s %s %04d" % (f, l, i) for i, (f, l) in enumerate(
        ((f, l) for l in ("Lima", "Okafor", "Dubois", "Nguyễn", "Tanaka", "王", "Mensah", "Roy") for f in
         ("Ana", "Bao", "Chen", "Dara", "Émile", "Farah", "Hiro", "Ingrid", "José", "Kofi", "Li", "Mai", "娜")))]
    names = [("%s %d" % (names[i % len(names)], i)) for i in range(args.names)]
    server = Server()
    rows = []
    try:
        for mode in args.modes.split(","):
            made = json.loads(urllib.request.urlopen(urllib.request.Request(
                server.url("/api/draws"), data=json.dumps({"config": {"pool": {"kind": "list", "entrants": names}, "mode": mode}}).encode(),
                method="POST", headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"}), timeout=30).read())
            code, key = made["code"], made["hostKey"]
            b = Browser(1920, 1080)
            try:
                b.get(server.url("/screen/%s" % code))
                b.wait_js("window.tombola && window.tombola.state.snapshotReceived", 20)
                api(server, "/api/draws/%s/start" % code, key)
                b.wait_js("window.tombola.state.phase === 'rolling'", 20)
                if mode != "number":
                    b.wait_js("document.querySelector('[data-stage]').classList.contains('mode-on')", 20)
                time.sleep(2)  # the pool is loaded and the first frames painted
                b.driver.set_script_timeout(args.seconds + 30)
                out = b.driver.execute_async_script(MEASURE, args.seconds)
                api(server, "/api/draws/%s/stop" % code, key)
            finally:
                b.quit()
            frames = sorted(out["frames"][1:])
            total = sum(out["frames"][1:]) / 1000
            fps = len(frames) / total if total else 0
            p95 = frames[int(len(frames) * 0.95) - 1] if frames else 0
            over = sum(1 for f in frames if f > 20)
            work = sorted(out["work"])
            median_work = work[len(work) // 2] if work else 0
            p95_work = work[int(len(work) * 0.95) - 1] if work else 0
            rows.append((mode, fps, p95, max(frames or [0]), over, len(frames), len(out["long"]), median_work, p95_work))
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
    print("| mode | fps (mean) | p95 frame (ms) | worst frame (ms) | frames > 20 ms | frames | long animation frames | draw() median / p95 (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, fps, p95, worst, over, n, long, work, work95 in rows:
        cost = "%.2f / %.2f" % (work, work95) if mode != "number" else "–"
        print("| %s | %.1f | %.1f | %.1f | %d | %d | %d | %s |" % (mode, fps, p95, worst, over, n, long, cost))


if __name__ == "__main__":
    main()
