"""`/metrics` as Prometheus reads it (prometheus_client's own text parser): with
`--metrics-listen` it is served only there (the public port answers 404, the metrics port serves
no pages or API); the `process_*` metrics hold plausible values; the draw histograms count a
join, a Stop → reveal and the stored writes, with cumulative buckets.
"""
import json
import re
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from test_draw_export import CODE, Tombola, data_dir  # noqa: F401 (fixture)


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def families(text):
    return {family.name: family for family in text_string_to_metric_families(text)}


def sample(family, suffix="", **labels):
    return next(s.value for s in family.samples if s.name == family.name + suffix and s.labels == labels)


def test_metrics_listen_serves_process_metrics_and_draw_histograms_off_the_public_port(data_dir):
    server = Tombola(data_dir, extra=("--metrics-listen", "127.0.0.1:0"))
    try:
        # The line after the banner names the metrics listener.
        port = int(re.search(r"/metrics only on http://127\.0\.0\.1:(\d+)/metrics", server.proc.stdout.readline()).group(1))
        metrics_url = "http://127.0.0.1:%d" % port
        assert get(server.base + "/metrics")[0] == 404
        for path in ("/", "/api/draws/" + CODE, "/draw/" + CODE):
            assert get(metrics_url + path)[0] == 404, path

        with connect("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, CODE), open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
        assert server.command("start")[0] == 200
        stopped = time.monotonic()
        status, reply = server.command("stop")
        assert status == 200, reply
        waited = time.monotonic() - stopped

        status, text = get(metrics_url + "/metrics")
        assert status == 200
        found = families(text)
        process = {name: sample(found[name], "_total" if found[name].type == "counter" else "") for name in (
            "process_cpu_seconds", "process_resident_memory_bytes", "process_virtual_memory_bytes",
            "process_open_fds", "process_max_fds", "process_start_time_seconds")}
        assert 0 < process["process_cpu_seconds"] < 600
        assert 1 << 20 < process["process_resident_memory_bytes"] < process["process_virtual_memory_bytes"]
        assert 3 <= process["process_open_fds"] <= process["process_max_fds"]
        assert abs(process["process_start_time_seconds"] - time.time()) < 300

        reveal = found["tombola_draw_reveal_delay_seconds"]
        assert reveal.type == "histogram"
        assert sample(reveal, "_count") == 1
        # The slow-down (1.5 s) is in it, and no more than the REST stop waited for.
        assert 1.0 <= sample(reveal, "_sum") <= waited + 0.5
        assert sample(found["tombola_draw_join_seconds"], "_count") >= 1
        store = found["tombola_draw_store_seconds"]
        assert sample(store, "_count") >= 1
        buckets = [s for s in store.samples if s.name.endswith("_bucket")]
        assert [s.value for s in buckets] == sorted(s.value for s in buckets)
        assert buckets[-1].labels == {"le": "+Inf"} and buckets[-1].value == sample(store, "_count")
    finally:
        server.stop()
