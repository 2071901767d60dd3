"""`GET /readyz` against the real binary: 200 while the instance should get traffic; 503 with a
JSON reason while it drains after SIGTERM (`--drain-seconds`: everything else still served, a
second signal stops it at once), and in cluster mode while its redis-server is killed (ready
again once Redis is back) or no longer durable. `/healthz` stays 200 throughout.
"""
import json
import signal
import time

from test_cluster import cluster  # noqa: F401 (fixture)
from test_draw_export import CODE, Tombola, data_dir  # noqa: F401 (fixture)


def readyz(server):
    status, body = server.request("GET", "/readyz")
    return status, json.loads(body)


def wait_for(server, expected, timeout=20):
    deadline = time.time() + timeout
    while True:
        answer = readyz(server)
        if answer == expected:
            return
        assert time.time() < deadline, "readyz stayed %r, expected %r" % (answer, expected)
        time.sleep(0.1)


def test_readyz_answers_503_draining_after_sigterm_while_requests_are_still_served(data_dir):
    server = Tombola(data_dir, extra=("--drain-seconds", "120"))
    try:
        assert readyz(server) == (200, {"ready": True})
        server.proc.send_signal(signal.SIGTERM)
        wait_for(server, (503, {"ready": False, "reason": "draining"}))
        assert server.request("GET", "/healthz")[0] == 200
        assert server.json("GET", "/api/draws/" + CODE)[0] == 200
        assert server.proc.poll() is None
        started = time.time()
        server.proc.send_signal(signal.SIGINT)
        assert server.proc.wait(timeout=30) == 0
        assert time.time() - started < 30
    finally:
        server.stop()


def test_readyz_in_cluster_mode_follows_redis(cluster):  # noqa: F811 (fixture)
    instance = cluster.start()
    wait_for(instance, (200, {"ready": True}))
    cluster.redis.kill()
    wait_for(instance, (503, {"ready": False, "reason": "redis_unreachable"}))
    assert instance.request("GET", "/healthz")[0] == 200
    cluster.redis.start()
    wait_for(instance, (200, {"ready": True}), timeout=30)
    # A Redis that would lose acknowledged writes is not a safe place to send traffic.
    assert cluster.redis.cli("CONFIG", "SET", "appendfsync", "everysec") == "OK"
    wait_for(instance, (503, {"ready": False, "reason": "redis_not_durable"}))
