"""`--access-log-format combined`: every request is one line of the Apache/nginx Combined Log
Format, parsed here with the usual regex (the one GoAccess's COMBINED and fail2ban's web
filters read), with the time, the referer and the user agent; no line holds a query string or
fragment (the referer's are dropped too), and no key appears in the log.
"""
import datetime
import re

from abuse_support import Tombola
from websockets.sync.client import connect

# host ident authuser [time] "request" status bytes "referer" "user-agent"
COMBINED = re.compile(r'^(\S+) (\S+) (\S+) \[([\w:/]+\s[+\-]\d{4})\] "(\S+) (\S+) (\S+)" (\d{3}) (\d+|-) "([^"]*)" "([^"]*)"$')


def test_combined_log_lines_parse_and_never_hold_a_query_string():
    server = Tombola("--access-log-format", "combined")
    code, host_key = server.code, server.host_key
    try:
        sent = [
            ("/draw/%s?key=%s" % (code, host_key), {"Referer": "https://example.org/list?key=%s#frag" % host_key,
                                                    "User-Agent": 'Mozilla/5.0 (X11; Linux x86_64) "quoted"\\'}),
            ("/api/draws/%s?since=3" % code, {"User-Agent": "curl/7.88.1"}),
            ("/nope#key=%s" % host_key, {"Referer": "https://example.org/page"}),
            ("/api/info", {"Authorization": "Bearer " + host_key}),
        ]
        statuses = [server.request("GET", path, headers=headers)[0] for path, headers in sent]
        with connect("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, code), open_timeout=10,
                     additional_headers={"Referer": "https://example.org/x?y=z"}) as ws:
            ws.recv(timeout=10)
    finally:
        server.stop()

    after_banner = server.stdout()[server.stdout().index("Press Ctrl-C to stop."):].splitlines()[1:]
    lines = [line for line in after_banner if line.strip() and not line.startswith("tombola:")]
    parsed = []
    for line in lines:
        match = COMBINED.match(line)
        assert match, "not Combined Log Format: " + line
        parsed.append(match.groups())
        assert "?" not in line and "#" not in line, line
        assert host_key not in line
        # The time is today's, in UTC, in the format's own layout.
        when = datetime.datetime.strptime(match.group(4), "%d/%b/%Y:%H:%M:%S %z")
        assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600
    # The helper's own start-up probes of /healthz come first.
    parsed = [fields for fields in parsed if fields[5] != "/healthz"]
    assert len(parsed) == len(sent) + 1, lines
    host, ident, user, _, method, path, version, status, size, referer, agent = parsed[0]
    assert (host, ident, user, method, path, version) == ("127.0.0.1", "-", "-", "GET", "/draw/" + code, "HTTP/1.1")
    assert int(status) == statuses[0] and int(size) > 0
    assert referer == "https://example.org/list"
    assert agent == "Mozilla/5.0 (X11; Linux x86_64) _quoted__"
    assert parsed[1][5] == "/api/draws/" + code and parsed[1][9] == "-" and parsed[1][10] == "curl/7.88.1"
    assert parsed[2][9] == "https://example.org/page"
    assert parsed[4][4:8] == ("GET", "/ws/draw/" + code, "HTTP/1.1", "101") and parsed[4][9] == "https://example.org/x"
    assert host_key not in server.stderr()
