"""A local RFC 3161 time-stamping authority for tests (issue #47): a test CA and a TSA
certificate made with the openssl CLI, and a tiny HTTP server on loopback that answers each
POSTed TimeStampReq with `openssl ts -reply`."""
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONFIG = """[ tsa ]
default_tsa = tsa_config1
[ tsa_config1 ]
serial = {dir}/serial
signer_cert = {dir}/tsa.pem
certs = {dir}/ca.pem
signer_key = {dir}/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ess_cert_id_alg = sha256
ess_cert_id_chain = no
tsa_name = no
crypto_device = builtin
"""


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


class LocalTSA:
    """`url` answers time-stamp requests; `ca` is the PEM file their signatures chain to."""

    def __init__(self, directory):
        self.dir = str(directory)
        os.makedirs(self.dir, exist_ok=True)
        self.ca = os.path.join(self.dir, "ca.pem")
        self.requests = 0
        ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes")
        openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Tombola test TSA CA", "-days", "2",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign", cwd=self.dir)
        openssl("req", "-new", *ec, "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN=Tombola test TSA", cwd=self.dir)
        with open(os.path.join(self.dir, "ext.cnf"), "w") as f:
            f.write("extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature\n")
        openssl("x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "tsa.pem",
                "-days", "2", "-extfile", "ext.cnf", cwd=self.dir)
        with open(os.path.join(self.dir, "serial"), "w") as f:
            f.write("01\n")
        with open(os.path.join(self.dir, "tsa.cnf"), "w") as f:
            f.write(CONFIG.format(dir=self.dir))
        tsa, lock = self, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                query = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:  # one `openssl ts -reply` at a time: they share the serial file
                    tsa.requests += 1
                    done = subprocess.run(["openssl", "ts", "-reply", "-config", "tsa.cnf", "-queryfile", "/dev/stdin",
                                           "-out", "/dev/stdout"], input=query, cwd=tsa.dir, capture_output=True, timeout=30)
                ok = done.returncode == 0 and self.headers.get("Content-Type") == "application/timestamp-query"
                self.send_response(200 if ok else 400)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(done.stdout) if ok else 0))
                self.end_headers()
                if ok:
                    self.wfile.write(done.stdout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
