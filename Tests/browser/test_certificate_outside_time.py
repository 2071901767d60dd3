"""Outside time on the certificate (issue #47 item 2, docs/FAIRNESS.md §18): a server with `--tsa`
has each round's chain head time-stamped (RFC 3161) by a local TSA (a test CA and `openssl ts
-reply` on 127.0.0.1), and a beacon-sealed round could not be drawn before its drand round was
published. The certificate shows both, as the export says: the TSA's time and address, and
"Not drawn before: drand round R was published, <time>"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from conftest import ROOT, banner_port, server_command

sys.path.insert(0, os.path.join(ROOT, "Tests", "peers"))
from drand_relay import DrandChain, Relay  # noqa: E402
from local_tsa import LocalTSA  # noqa: E402

CODE = "STAMP1"
HOST_KEY = "outside-time-host-key-0123"


def call(base, method, path, body=None):
    req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), method=method,
                                 headers={"Authorization": "Bearer " + HOST_KEY, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=40) as resp:
        return resp.status, json.loads(resp.read())


def test_the_certificate_shows_the_time_stamp_and_the_drand_round_it_waited_for(browser):
    data_dir = tempfile.mkdtemp(prefix="tombola-outside-time-")
    tsa = LocalTSA(os.path.join(data_dir, "tsa"))
    chain = DrandChain(secret=0x57A3B)
    relay = Relay(chain)
    command = server_command(0, data_dir)
    command[command.index("--default-draw") + 1] = CODE
    command[command.index("--host-key") + 1] = HOST_KEY
    command += chain.flags() + ["--beacon-relay", relay.url, "--tsa", tsa.url]
    log_path = os.path.join(data_dir, "server.log")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        deadline, port = time.time() + 30, 0
        while not port:
            assert proc.poll() is None and time.time() < deadline, open(log_path).read()
            port = banner_port(log_path, 0)
            time.sleep(0.1)
        base = "http://127.0.0.1:%d" % port
        assert call(base, "PUT", "/api/draws/%s/config" % CODE, {"pool": {"kind": "range", "from": 1, "to": 90}, "beacon": True})[0] == 200
        assert call(base, "POST", "/api/draws/%s/start" % CODE, {})[0] == 200
        assert call(base, "POST", "/api/draws/%s/stop" % CODE, {})[0] == 200
        deadline = time.time() + 20
        while True:
            export = call(base, "GET", "/api/draws/%s/export.json" % CODE)[1]
            if export.get("timestamps"):
                break
            assert time.time() < deadline, open(log_path).read()
            time.sleep(0.1)
        records = export["records"]
        value = [r for r in records if r["kind"] == "beaconValue"][-1]
        published_ms = (chain.genesis + (value["beaconRound"] - 1) * chain.period) * 1000
        stamp = next(iter(export["timestamps"].values()))
        page = browser(794, 1123)
        page.get(base + "/draw/%s/round/1" % CODE)
        page.wait_js("window.tombolaCertificate && window.tombolaCertificate.status === 'ready'", 15)
        fmt = "return new Date(arguments[0]).toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'medium' })"
        g = stamp["genTime"]
        stamped_ms = page.js("return Date.UTC(%s, %d, %s, %s, %s, %s)" % (g[0:4], int(g[4:6]) - 1, int(g[6:8]), int(g[8:10]),
                                                                          int(g[10:12]), int(g[12:14])))
        shown = page.find_element("css selector", "[data-timestamp]")
        assert shown.is_displayed() and shown.text == "%s · %s" % (page.js(fmt, stamped_ms), tsa.url)
        assert page.find_element("css selector", "[data-timestamp-label]").text == "Outside time-stamp (RFC 3161)"
        before = page.find_element("css selector", "[data-not-before]")
        assert before.is_displayed()
        assert before.text == "drand round %d was published, %s" % (value["beaconRound"], page.js(fmt, published_ms))
        assert page.find_element("css selector", "[data-not-before-label]").text == "Not drawn before"
        # The page rechecks the sealed round itself, from its beacon lock and drand value (it said
        # "winners differ" while it rechecked from the seed alone).
        page.wait_js("document.querySelector('[data-verify]').dataset.state !== 'pending'", 15)
        verdict = page.find_element("css selector", "[data-verify]")
        assert page.js("return document.querySelector('[data-verify]').dataset.state") == "ok", verdict.text
        shots = os.environ.get("TOMBOLA_SHOTS", data_dir)  # set it to keep the screenshot
        page.save_screenshot(os.path.join(shots, "certificate-outside-time.png"))
        assert page.errors() == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        tsa.close()
        relay.close()
        shutil.rmtree(data_dir, ignore_errors=True)
