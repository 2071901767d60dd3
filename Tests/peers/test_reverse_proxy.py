"""Tombola behind reverse proxies, with `--trusted-proxy`.

- Without a proxy program: only from trusted peers are X-Forwarded-For / Forwarded /
  X-Forwarded-Proto / X-Forwarded-Host believed (rate limit, access log, links, Origin check).
- deploy/nginx/tombola.conf runs under Debian's nginx-light (HTTPS with a throwaway
  certificate, a free loopback port, a temp directory, a non-daemon child): pages, REST, the
  calculator and a draw over WebSockets (upgrade, permessage-deflate, ticks) go through it,
  tombola's access log shows the phones' own addresses, and one phone's wrong host keys no
  longer lock every phone out.
- deploy/caddy/Caddyfile runs under Debian's caddy (plain HTTP address swapped in).
Phones are told apart by their loopback source address (127.0.0.2, 127.0.0.3, …).
"""
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import zlib

import pytest
from websockets.sync.client import connect

from abuse_support import ROOT, Tombola, eventually, free_port
from test_cluster import Balancer

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CADDY = shutil.which("caddy") or "/usr/bin/caddy"
AUTH_BURST = 5


def bearer(key):
    return {"Authorization": "Bearer " + key, "Content-Type": "application/json"}


def wait_for_port(port, process, what, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "%s exited with %s" % (what, process.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("%s did not listen on %d" % (what, port))


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- --trusted-proxy without a proxy program --------------------------------------------

def test_one_phones_wrong_keys_lock_out_only_that_phone_behind_a_trusted_proxy():
    # The proxy is 127.0.0.1; phones are named by X-Forwarded-For as a proxy would.
    config = "/api/draws/ABUSE1/config"
    trusted = Tombola("--trusted-proxy", "127.0.0.1")
    untrusted = Tombola()
    try:
        for server in (trusted, untrusted):
            for attempt in range(AUTH_BURST + 3):
                headers = dict(bearer("wrong-%d" % attempt), **{"X-Forwarded-For": "198.51.100.1"})
                server.request("PUT", config, "{}", headers)
        phone_a = dict(bearer(trusted.host_key), **{"X-Forwarded-For": "198.51.100.1"})
        phone_b = dict(bearer(trusted.host_key), **{"X-Forwarded-For": "198.51.100.2"})
        # Trusted: the guessing phone is limited, the host's phone is not.
        assert trusted.request("PUT", config, "{}", phone_a)[0] == 429
        assert trusted.request("PUT", config, "{}", phone_b)[0] == 200
        # Untrusted (the old behaviour behind a proxy): everyone shares the proxy's address.
        assert untrusted.request("PUT", config, "{}", phone_b)[0] == 429
    finally:
        trusted.stop()
        untrusted.stop()


def test_forwarded_headers_from_an_untrusted_peer_change_nothing():
    server = Tombola("--trusted-proxy", "127.0.0.1", "--access-log")
    config = "/api/draws/ABUSE1/config"
    try:
        # An attacker at 127.0.0.2 (not trusted) invents a new address for every try.
        statuses = [server.request("PUT", config, "{}", dict(bearer("wrong-%d" % i), **{"X-Forwarded-For": "203.0.113.%d" % i}),
                                   source="127.0.0.2")[0] for i in range(AUTH_BURST + 3)]
        assert statuses[:AUTH_BURST] == [403] * AUTH_BURST and statuses[-1] == 429, statuses
        status, body = server.request("GET", "/api/info", headers={"X-Forwarded-Proto": "https", "Host": "evil.example"},
                                      source="127.0.0.2")
        assert status == 200 and not json.loads(body)["lanUrl"].startswith("https://evil.example")
        assert eventually(lambda: "127.0.0.2 \"GET /api/info" in server.stdout())
        assert "203.0.113." not in server.stdout()
    finally:
        server.stop()


def test_links_and_the_origin_check_follow_the_trusted_proxy():
    server = Tombola("--trusted-proxy", "127.0.0.0/8")
    try:
        forwarded = {"Forwarded": "for=198.51.100.9;proto=https;host=raffle.example.org"}
        status, body = server.request("GET", "/api/info", headers=forwarded)
        assert status == 200 and json.loads(body)["lanUrl"] == "https://raffle.example.org"
        status, body = server.request("POST", "/api/draws", "{}", dict(bearer(server.admin_key), **forwarded))
        assert status == 201, body
        created = json.loads(body)
        assert created["watchUrl"] == "https://raffle.example.org/watch/" + created["code"]
        # The browser's Origin is the public name; the Host tombola sees is its own address.
        url = "ws://127.0.0.1:%d/ws/draw/ABUSE1" % server.port
        with connect(url, origin="https://raffle.example.org", additional_headers={"X-Forwarded-Host": "raffle.example.org",
                                                                                 "X-Forwarded-Proto": "https"},
                     open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
        with pytest.raises(Exception, match="403"):
            connect(url, origin="https://evil.example", additional_headers={"X-Forwarded-Host": "raffle.example.org"},
                    open_timeout=10)
    finally:
        server.stop()


def test_a_malformed_trusted_proxy_is_refused_at_start_up():
    run = subprocess.run([os.environ.get("TOMBOLA_BIN", os.path.join(ROOT, ".build", "debug", "tombola")),
                          "--trusted-proxy", "10.0.0.0/33"], capture_output=True, text=True, timeout=20)
    assert run.returncode == 2
    assert "--trusted-proxy must be an IP address or a network such as 10.0.0.0/8" in run.stderr


# --- nginx ------------------------------------------------------------------------------

class Nginx:
    """deploy/nginx/tombola.conf with ports and a self-signed certificate swapped in."""

    def __init__(self, upstream_port):
        self.dir = tempfile.mkdtemp(prefix="tombola-nginx-")
        self.http_port, self.https_port = free_port(), free_port()
        cert, key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "1", "-subj", "/CN=raffle.test", "-keyout", key, "-out", cert],
                       check=True, capture_output=True, timeout=30)
        with open(os.path.join(ROOT, "deploy", "nginx", "tombola.conf")) as f:
            site = f.read()
        replacements = [
            (r"server 127\.0\.0\.1:8080;", "server 127.0.0.1:%d;" % upstream_port),
            (r"listen 80;", "listen 127.0.0.1:%d;" % self.http_port),
            (r"listen 443 ssl http2;", "listen 127.0.0.1:%d ssl http2;" % self.https_port),
            (r"\n\s*listen \[::\]:\d+[^;]*;", ""),
            (r"ssl_certificate\s+\S+;", "ssl_certificate %s;" % cert),
            (r"ssl_certificate_key\s+\S+;", "ssl_certificate_key %s;" % key),
        ]
        for pattern, replacement in replacements:
            site, count = re.subn(pattern, replacement, site)
            assert count >= 1, "deploy/nginx/tombola.conf no longer has " + pattern
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.makedirs(os.path.join(self.dir, name))
        d = self.dir
        main = f"""
daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include /etc/nginx/mime.types;
{site}
}}
"""
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write(main)
        self.process = subprocess.Popen([NGINX, "-p", d, "-c", conf, "-e", os.path.join(d, "error.log")],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "stderr.txt"), "wb"))
        wait_for_port(self.https_port, self.process, "nginx")

    def print_logs(self):
        for name in ("error.log", "access.log", "stderr.txt"):
            try:
                with open(os.path.join(self.dir, name)) as f:
                    print("nginx %s:" % name, f.read()[-3000:])
            except OSError:
                pass

    def stop(self):
        stop(self.process)
        shutil.rmtree(self.dir, ignore_errors=True)


class Client:
    """A phone at `source` talking to the proxy at `base` (`https://127.0.0.1:P` or http)."""

    def __init__(self, scheme, port, source):
        self.scheme, self.port, self.source = scheme, port, source
        self.context = ssl.create_default_context()
        self.context.check_hostname = False
        self.context.verify_mode = ssl.CERT_NONE

    def request(self, method, path, body=None, headers=None):
        if self.scheme == "https":
            connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=10, context=self.context,
                                                     source_address=(self.source, 0))
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10, source_address=(self.source, 0))
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def websocket(self, path, **options):
        ws_scheme = "wss" if self.scheme == "https" else "ws"
        options.setdefault("open_timeout", 10)
        if self.scheme == "https":
            # TLS 1.2 for this client only. websockets' sync client reads its socket on a thread
            # of its own from the moment it connects, while the caller's thread writes the
            # opening handshake: two threads on one OpenSSL connection, which OpenSSL does not
            # allow. Under TLS 1.3 the server's session tickets arrive just after the TLS
            # handshake, the reader is inside SSL_read for them when the writer sends the
            # request, and about 1 connection in 15 never sends it (a capture shows the tickets,
            # the client's ACK, then nothing; nginx and tombola saw no request). This was the
            # "first WebSocket through nginx times out" flake. TLS 1.2 sends its ticket inside
            # the handshake, so nothing is read after it. The proxy's TLS 1.3 stays covered by
            # the single-threaded upgrade storm below.
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            context.maximum_version = ssl.TLSVersion.TLSv1_2
            options["ssl"] = context
        return connect("%s://127.0.0.1:%d%s" % (ws_scheme, self.port, path), source_address=(self.source, 0),
                       origin="%s://127.0.0.1:%d" % (self.scheme, self.port), **options)


def exercise_through_proxy(server, scheme, port):
    """Pages, REST, the calculator and a live draw through the proxy; returns nothing, asserts."""
    phone = Client(scheme, port, "127.0.0.2")
    host = Client(scheme, port, "127.0.0.3")

    status, body = phone.request("GET", "/")
    assert status == 200 and b"index.html" in body
    status, body = phone.request("POST", "/api/calc", '{"keys":["0",".","1","+","0",".","2","="]}',
                                 {"Content-Type": "application/json"})
    assert status == 200 and json.loads(body)["display"] == "0.3", body
    status, body = phone.request("GET", "/api/info")
    assert json.loads(body)["lanUrl"] == "%s://127.0.0.1:%d" % (scheme, port)

    with phone.websocket("/ws/calc", compression="deflate") as ws:
        assert "permessage-deflate" in ws.response.headers.get("Sec-WebSocket-Extensions", "")
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        json.loads(ws.recv(timeout=10))
        for seq, key in enumerate(["0", ".", "1", "+", "0", ".", "2", "="], start=1):
            ws.send(json.dumps({"type": "key", "key": key, "seq": seq}))
            reply = json.loads(ws.recv(timeout=10))
        assert reply["display"] == "0.3"

    # One phone guesses host keys; the host's phone still gets in.
    config = "/api/draws/%s/config" % server.code
    # (It also claims other addresses itself, which the proxy must not pass on as the truth.)
    spoofed = lambda i: dict(bearer("wrong-%d" % i), **{"Forwarded": "for=203.0.113.%d" % i,
                                                        "X-Forwarded-For": "203.0.113.%d" % i})
    statuses = [phone.request("PUT", config, "{}", spoofed(i))[0] for i in range(AUTH_BURST + 2)]
    assert statuses[-1] == 429, statuses
    assert host.request("PUT", config, json.dumps({"pool": {"kind": "range", "from": 1, "to": 99}}),
                        bearer(server.host_key))[0] == 200

    with phone.websocket("/ws/draw/" + server.code, compression="deflate") as viewer:
        assert "permessage-deflate" in viewer.response.headers.get("Sec-WebSocket-Extensions", "")
        assert json.loads(viewer.recv(timeout=10))["type"] == "state"
        assert host.request("POST", "/api/draws/%s/start" % server.code, "{}", bearer(server.host_key))[0] == 200
        ticks = 0
        while ticks < 5:
            message = json.loads(viewer.recv(timeout=10))
            ticks += message["type"] == "tick"
        status, body = host.request("POST", "/api/draws/%s/stop" % server.code, "{}", bearer(server.host_key))
        assert status == 200, body
        winner = json.loads(body)["result"]["winners"][0]
        while True:
            message = json.loads(viewer.recv(timeout=10))
            if message["type"] == "result":
                assert message["winners"][0] == winner
                break

    # tombola's access log names the phones, never the proxy.
    def logged():
        lines = server.stdout().splitlines()
        return (any(line.startswith('127.0.0.2 "GET / HTTP/1.1" 200') for line in lines)
                and any(line.startswith('127.0.0.2 "GET /ws/calc HTTP/1.1" 101') for line in lines)
                and any(line.startswith('127.0.0.3 "POST /api/draws/%s/start' % server.code) for line in lines))
    assert eventually(logged), server.stdout()[-3000:]
    # (The fixture's own start-up probes of /healthz come straight from 127.0.0.1.)
    direct = [line for line in server.stdout().splitlines() if line.startswith("127.0.0.1 ") and "/healthz" not in line]
    assert direct == []
    assert "203.0.113." not in server.stdout()


def test_deploy_nginx_conf_serves_pages_websockets_calculator_and_rest_with_real_client_addresses():
    assert os.path.exists(NGINX), "nginx-light is missing (scripts/test installs it)"
    server = Tombola("--trusted-proxy", "127.0.0.1", "--access-log")
    nginx = None
    try:
        nginx = Nginx(server.port)
        exercise_through_proxy(server, "https", nginx.https_port)
        # Plain HTTP is redirected to HTTPS.
        status, _ = Client("http", nginx.http_port, "127.0.0.2").request("GET", "/calc")
        assert status == 301
    finally:
        # Shown by pytest only on a failure: what tombola and nginx saw (a rare handshake timeout
        # on the first WebSocket through nginx is not diagnosed yet).
        print("tombola's output:", server.stdout()[-3000:])
        if nginx:
            nginx.print_logs()
            nginx.stop()
        server.stop()


STORM_COUNT = 2000 if os.environ.get("CI") == "true" else 300


def upgrade_storm(scheme, port, count, origin_port=None):
    """`count` times what a phone does when it opens a page: the page and two REST calls on
    one kept-alive connection to the proxy (the proxy reuses its upstream connections), then
    a WebSocket on a new connection, read up to its first message (the calculator's `hello`),
    then dropped. One thread and plain sockets (TLS 1.3 where the proxy offers it), so the
    client itself cannot lose a request. Returns the failures, each as (iteration, what)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE

    def open_socket():
        raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0))
        return context.wrap_socket(raw) if scheme == "https" else raw

    def page_connection():
        if scheme == "https":
            return http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context, source_address=("127.0.0.2", 0))
        return http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))

    def read_exactly(sock, count):
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                raise EOFError("closed after %d of %d bytes" % (len(data), count))
            data += chunk
        return data

    origin = "%s://127.0.0.1:%d" % (scheme, origin_port or port)
    pages = page_connection()
    failures = []
    for iteration in range(count):
        stage = "page"
        try:
            for method, path, body in (("GET", "/calc", None), ("GET", "/api/info", None),
                                       ("POST", "/api/calc", '{"keys":["1","+","2","="]}')):
                pages.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
                response = pages.getresponse()
                response.read()
                assert response.status == 200, (path, response.status)
                if response.getheader("Connection", "").lower() == "close":
                    pages.close()
                    pages = page_connection()
            stage = "upgrade"
            sock = open_socket()
            try:
                key = base64.b64encode(os.urandom(16)).decode()
                sock.sendall(("GET /ws/calc HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n"
                              "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
                              % (port, key, origin)).encode())
                head = b""
                while b"\r\n\r\n" not in head:
                    head += read_exactly(sock, 1)
                assert head.startswith(b"HTTP/1.1 101 "), head[:200]
                stage = "first message"
                first, second = read_exactly(sock, 2)
                length = second & 0x7F
                if length == 126:
                    length = int.from_bytes(read_exactly(sock, 2), "big")
                elif length == 127:
                    length = int.from_bytes(read_exactly(sock, 8), "big")
                payload = read_exactly(sock, length)
                assert first & 0x0F == 1, "opcode %d" % (first & 0x0F)
                if first & 0x40:  # RSV1: permessage-deflate (RFC 7692 §7.2.2)
                    payload = zlib.decompressobj(-zlib.MAX_WBITS).decompress(payload + b"\x00\x00\xff\xff")
                assert json.loads(payload)["type"] == "hello", payload[:200]
                # A masked close frame (RFC 6455 §5.5.1), then drop the connection as a tab does.
                sock.sendall(bytes([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE8]))
            finally:
                sock.close()
        except Exception as error:  # noqa: BLE001 (each failure is reported with its iteration)
            failures.append((iteration, "%s: %r" % (stage, error)))
            pages.close()
            pages = page_connection()
            if len(failures) >= 5:
                break
    pages.close()
    return failures


def test_deploy_nginx_conf_upgrades_after_page_loads_on_reused_upstream_connections():
    server = Tombola("--trusted-proxy", "127.0.0.1")
    nginx = None
    try:
        nginx = Nginx(server.port)
        assert upgrade_storm("https", nginx.https_port, STORM_COUNT) == []
    finally:
        if nginx:
            nginx.stop()
        server.stop()


# --- Caddy ------------------------------------------------------------------------------

class Caddy:
    """deploy/caddy/Caddyfile under Debian's caddy, its site address swapped for plain HTTP
    on a free loopback port."""

    def __init__(self, upstream_port):
        self.dir = tempfile.mkdtemp(prefix="tombola-caddy-")
        self.port = free_port()
        with open(os.path.join(ROOT, "deploy", "caddy", "Caddyfile")) as f:
            site = f.read()
        site, count = re.subn(r"^raffle\.example\.org \{", "http://127.0.0.1:%d {" % self.port, site, flags=re.M)
        assert count == 1
        site, count = re.subn(r"reverse_proxy 127\.0\.0\.1:8080", "reverse_proxy 127.0.0.1:%d" % upstream_port, site)
        assert count == 1
        config = os.path.join(self.dir, "Caddyfile")
        with open(config, "w") as f:
            f.write("{\n\tadmin off\n\tstorage file_system %s\n}\n\n%s" % (self.dir, site))
        env = dict(os.environ, HOME=self.dir, XDG_DATA_HOME=self.dir, XDG_CONFIG_HOME=self.dir)
        self.process = subprocess.Popen([CADDY, "run", "--config", config, "--adapter", "caddyfile"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "stderr.txt"), "wb"))
        try:
            wait_for_port(self.port, self.process, "caddy")
        except BaseException:
            self.stop()
            raise

    def stop(self):
        stop(self.process)
        shutil.rmtree(self.dir, ignore_errors=True)


def test_deploy_caddyfile_serves_pages_websockets_calculator_and_rest_with_real_client_addresses():
    assert os.path.exists(CADDY), "caddy is missing (scripts/test installs it)"
    server = Tombola("--trusted-proxy", "127.0.0.1", "--access-log")
    caddy = None
    try:
        caddy = Caddy(server.port)
        exercise_through_proxy(server, "http", caddy.port)
    finally:
        if caddy:
            caddy.stop()
        server.stop()


def test_deploy_caddyfile_upgrades_after_page_loads_on_reused_upstream_connections():
    server = Tombola("--trusted-proxy", "127.0.0.1")
    caddy = None
    try:
        caddy = Caddy(server.port)
        assert upgrade_storm("http", caddy.port, STORM_COUNT) == []
    finally:
        if caddy:
            caddy.stop()
        server.stop()


def test_deploy_haproxy_cfg_upgrades_after_page_loads_on_reused_upstream_connections(tmp_path):
    # deploy/haproxy/tombola-cluster.cfg balances three instances; here all three are one.
    server = Tombola("--trusted-proxy", "127.0.0.1")
    balancer = None
    try:
        balancer = Balancer("haproxy", [server] * 3, str(tmp_path))
        assert upgrade_storm("http", balancer.port, STORM_COUNT) == []
    finally:
        if balancer:
            balancer.stop()
        server.stop()
