"""A stand-in for the Tombola server, for developing and testing the pages
before (or apart from) the Swift server: serves Public/ with the page routes
and CSP, /api/info, /api/qr, /api/draws, /healthz, export.json, and speaks
the docs/PROTOCOL.md WebSocket protocol on /ws/calc and /ws/draw/<code>.

The keypad understands only digits, . + - * / = C CE back neg (immediate
execution, exact fractions): enough to exercise the page. Draw results are
real: winners are derived with the FAIRNESS.md reference (fairness_ref.py),
so the pages' recheck runs against genuine records.

    python3 Tests/browser/mock_server.py --port 8766 --host-key hostkey --admin-key adminkey
"""

import argparse
import asyncio
import hashlib
import json
import mimetypes
import os
import random
import re
import secrets
import sys
import time
from fractions import Fraction
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fairness_ref as fr  # noqa: E402

PUBLIC = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Public"))
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self' ws: wss:")
ROUTES = [(re.compile(r"^/$"), "index.html"), (re.compile(r"^/calc/?$"), "calc.html"),
          (re.compile(r"^/draw/[^/]+/?$"), "draw.html"), (re.compile(r"^/screen/[^/]+/?$"), "screen.html"),
          (re.compile(r"^/watch/[^/]+/?$"), "watch.html")]


def response(status, body, content_type="application/json", extra=()):
    if isinstance(body, str):
        body = body.encode()
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Content-Security-Policy", CSP), ("Cache-Control", "no-store"), *extra])
    return Response(status, HTTPStatus(status).phrase, headers, body)


def json_response(status, obj):
    return response(status, json.dumps(obj, ensure_ascii=False))


# ---------------------------------------------------------------- calculator

def fmt(x):
    if x.denominator == 1:
        return str(x.numerator)
    s = "%.15g" % float(x)
    return s


class Calc:
    def __init__(self):
        self.acc = None
        self.op = None
        self.entry = "0"
        self.typing = False
        self.error = None
        self.mode = "basic"
        self.angle = "rad"
        self.history = []
        self.expr = ""
        self.last_seq = 0
        self.memory = None

    def value(self):
        return Fraction(self.entry.rstrip(".") or "0")

    def apply(self, a, op, b):
        if op == "+": return a + b
        if op == "-": return a - b
        if op == "*": return a * b
        if op == "/":
            if b == 0:
                raise ZeroDivisionError("undefined" if a == 0 else "divide_by_zero")
            return a / b
        return b

    def press(self, key):
        if key == "C":
            self.__init__.__func__  # keep mode/angle/history
            mode, angle, history, last = self.mode, self.angle, self.history, self.last_seq
            self.__init__()
            self.mode, self.angle, self.history, self.last_seq = mode, angle, history, last
            return
        if self.error and not (key.isdigit() or key == "."):
            return
        if self.error:
            self.error = None
            self.entry, self.typing = "0", False
        if key.isdigit():
            if not self.typing or self.entry == "0":
                self.entry = key
            elif len(self.entry.replace(".", "").replace("-", "")) < 16:
                self.entry += key
            self.typing = True
        elif key == ".":
            if not self.typing:
                self.entry, self.typing = "0.", True
            elif "." not in self.entry:
                self.entry += "."
        elif key == "back":
            if self.typing:
                self.entry = self.entry[:-1] or "0"
        elif key == "CE":
            self.entry, self.typing = "0", False
        elif key == "neg":
            if self.entry not in ("0",):
                self.entry = self.entry[1:] if self.entry.startswith("-") else "-" + self.entry
        elif key in "+-*/":
            if self.op and self.typing:
                try:
                    self.acc = self.apply(self.acc, self.op, self.value())
                except ZeroDivisionError as e:
                    self.fail(str(e)); return
                self.entry = fmt(self.acc)
            elif self.op is None:
                self.acc = self.value()
            self.op, self.typing = key, False
            self.expr = "%s %s" % (fmt(self.acc), key)
        elif key == "=":
            if self.op is None:
                return
            b = self.value()
            expression = "%s %s %s =" % (fmt(self.acc), self.op, fmt(b))
            try:
                result = self.apply(self.acc, self.op, b)
            except ZeroDivisionError as e:
                self.fail(str(e)); return
            self.entry, self.typing, self.acc, self.op, self.expr = fmt(result), False, None, None, ""
            self.history.append({"expression": expression, "result": self.entry})
            self.history = self.history[-50:]
        elif key.startswith("recall:"):
            i = int(key.split(":")[1])
            if 0 <= i < len(self.history):
                self.entry, self.typing = self.history[i]["result"], False
        elif key in ("MS", "MC", "MR", "M+", "M-"):
            if key == "MS": self.memory = self.value()
            elif key == "MC": self.memory = None
            elif key == "MR" and self.memory is not None: self.entry, self.typing = fmt(self.memory), False
            elif key == "M+": self.memory = (self.memory or 0) + self.value()
            elif key == "M-": self.memory = (self.memory or 0) - self.value()
        else:
            raise KeyError(key)

    def fail(self, code):
        self.error, self.acc, self.op, self.expr, self.typing = code, None, None, "", False

    def display(self, seq=None):
        messages = {"divide_by_zero": "Cannot divide by zero", "undefined": "Result is undefined"}
        return {"type": "display", "seq": seq, "display": "0" if self.error else self.entry,
                "expression": self.expr, "error": self.error, "message": messages.get(self.error),
                "memory": self.memory is not None, "mode": self.mode, "angle": self.angle,
                "history": self.history}


SESSIONS = {}


async def calc_channel(ws):
    sid = secrets.token_hex(8)
    SESSIONS[sid] = Calc()
    await ws.send(json.dumps({"type": "hello", "session": sid}))
    await ws.send(json.dumps(SESSIONS[sid].display()))
    async for raw in ws:
        try:
            msg = json.loads(raw)
        except ValueError:
            await ws.send(json.dumps({"type": "error", "code": "bad_message", "message": "Malformed JSON"}))
            continue
        calc = SESSIONS[sid]
        kind = msg.get("type")
        if kind == "resume":
            old = msg.get("session")
            if old in SESSIONS:
                sid = old
                await ws.send(json.dumps(SESSIONS[sid].display()))
            else:
                await ws.send(json.dumps({"type": "error", "code": "unknown_session", "message": "Unknown session"}))
        elif kind == "mode":
            calc.mode = msg.get("mode", "basic")
            await ws.send(json.dumps(calc.display()))
        elif kind == "angle":
            calc.angle = msg.get("unit", "rad")
            await ws.send(json.dumps(calc.display()))
        elif kind == "key":
            seq = msg.get("seq")
            if isinstance(seq, int) and seq <= calc.last_seq:
                await ws.send(json.dumps(calc.display(seq)))
                continue
            try:
                calc.press(str(msg.get("key")))
            except KeyError:
                await ws.send(json.dumps({"type": "error", "code": "unknown_key", "message": "Unknown key", "seq": seq}))
                continue
            if isinstance(seq, int):
                calc.last_seq = seq
            await ws.send(json.dumps(calc.display(seq)))


# ---------------------------------------------------------------- draw

def canon(x):
    return fr.canon(x)


class Room:
    def __init__(self, code, host_key, tick_hz=20):
        self.code, self.host_key, self.tick_hz = code, host_key, tick_hz
        self.records, self.clients, self.phase = [], {}, "idle"
        self.config = {"pool": {"kind": "range", "from": 1, "to": 500}, "exclude": [], "perStop": 1,
                       "repeats": False, "prizes": [], "prize": 0}
        self.round, self.session_rounds, self.winners_ever, self.voided = 1, [], set(), set()
        self.seed, self.applied, self.frozen, self.audience = None, set(), [], None
        self.tick_seq, self.tick_task = 0, None
        self.commit("open")

    def append(self, record):
        record.update(v=1, index=len(self.records), at=int(time.time() * 1000),
                      prev=self.records[-1]["hash"] if self.records else "0" * 64)
        record["hash"] = fr.sha(canon(record))
        self.records.append(record)
        return record

    def commit(self, reason):
        self.seed = secrets.token_bytes(32)
        self.append({"kind": "commit", "commitment": fr.sha(self.seed), "reason": reason})

    def pool(self, extra=()):
        cfg = self.config["pool"]
        removed = set(extra) | set(self.voided)
        if not self.config["repeats"]:
            removed |= self.winners_ever
        if cfg["kind"] == "range":
            removed |= {x for x in self.config["exclude"] if cfg["from"] <= x <= cfg["to"]}
            return {"from": cfg["from"], "kind": "range", "removed": sorted(removed), "to": cfg["to"]}
        names = cfg["entrants"]
        idx = {names.index(w) for w in removed if w in names}
        idx |= {names.index(x) for x in self.config["exclude"] if x in names}
        return {"count": len(names), "entrants": fr.sha(canon(names)), "kind": "list", "removed": sorted(idx)}

    def commitment(self):
        return fr.sha(self.seed)

    def size(self, pool):
        base = pool["to"] - pool["from"] + 1 if pool["kind"] == "range" else pool["count"]
        return base - len(pool["removed"])

    def snapshot(self, role, ws):
        pool = self.pool()
        board = {}
        for r in self.session_rounds:
            entry = board.setdefault(r["round"], {"round": r["round"], "prize": r["prize"], "winners": [], "voided": []})
            if r["replaces"]:
                entry["winners"].remove(r["replaces"]["winner"])
                reason = next(v["reason"] for v in self.records if v["hash"] == r["replaces"]["void"])
                entry["voided"].append({"winner": r["replaces"]["winner"], "reason": reason})
            entry["winners"] += r["winners"]
        rounds = list(board.values())
        last = self.session_rounds[-1] if self.session_rounds else None
        result = dict(last, type="result", contributors=len(last["contributions"])) if last else None
        mine = self.clients.get(ws, {}).get("entropy") if ws else None
        return {"type": "state", "code": self.code, "role": role, "phase": self.phase, "config": self.config,
                "remaining": self.size(pool), "round": self.round,
                "commit": {"round": self.round, "commitment": self.commitment(), "poolHash": fr.sha(canon(pool))},
                "rounds": rounds, "result": result, "viewers": len(self.clients), "tick": None,
                "exhausted": self.size(pool) == 0, "currentPrize": self.config["prize"] if self.config["prizes"] else None,
                "prizesDone": False, "algorithm": fr.ALG,
                "contributed": (mine in self.frozen) if (mine and last) else None}

    async def broadcast(self, msg):
        data = json.dumps(msg, ensure_ascii=False)
        for ws in list(self.clients):
            try:
                await ws.send(data)
            except Exception:
                pass

    async def send_commit(self):
        await self.broadcast({"type": "commit", "round": self.round, "commitment": self.commitment(),
                              "poolHash": fr.sha(canon(self.pool()))})

    async def ticker(self):
        pool = self.pool()
        n, element = fr.eligible(pool, {pool.get("entrants"): self.config["pool"].get("entrants")})
        rng = random.Random()
        while self.phase in ("rolling", "stopping"):
            self.tick_seq += 1
            await self.broadcast({"type": "tick", "seq": self.tick_seq, "at": time.time() * 1000,
                                  "value": element(rng.randrange(n))})
            await asyncio.sleep(1 / self.tick_hz)

    def derive(self, k, extra=(), replaces=None, round_no=None):
        pool = self.pool(extra)
        names = self.config["pool"].get("entrants")
        n, element = fr.eligible(pool, {pool.get("entrants"): names})
        contributions = sorted(set(self.frozen))
        entropy = fr.entropy_digest(contributions, self.audience)
        ph = fr.sha(canon(pool))
        rnd = round_no or self.round
        winners = [element(p) for p in fr.positions(self.seed, rnd, ph, entropy, n, min(k, n))]
        prizes = self.config["prizes"]
        prize = prizes[self.config["prize"]]["name"] if prizes else None
        return self.append({"kind": "round", "round": rnd, "prize": prize,
                            "prizeIndex": self.config["prize"] if prizes else None, "algorithm": fr.ALG,
                            "pool": pool, "poolHash": ph, "eligible": n, "repeats": self.config["repeats"],
                            "contributions": contributions, "audience": self.audience, "entropy": entropy,
                            "commitment": self.commitment(), "seed": self.seed.hex(), "winners": winners,
                            "replaces": replaces})

    async def handle(self, ws, msg):
        kind = msg.get("type")
        if kind == "hello":
            self.clients[ws]["entropy"] = msg.get("entropy")
            return
        if kind == "auth":
            if msg.get("key") == self.host_key:
                self.clients[ws]["role"] = "host"
                await ws.send(json.dumps({"type": "role", "role": "host"}))
            else:
                await ws.send(json.dumps({"type": "error", "code": "bad_key", "message": "Wrong host key"}))
            return
        if kind not in ("start", "stop", "clear", "configure", "void"):
            await ws.send(json.dumps({"type": "error", "code": "bad_message", "message": "Unknown type"}))
            return
        if self.clients[ws]["role"] != "host":
            await ws.send(json.dumps({"type": "error", "code": "not_host", "message": "Only the host"}))
            return
        seq = msg.get("seq")
        if seq in self.applied:
            await ws.send(json.dumps({"type": "ack", "seq": seq}))
            return
        error = await getattr(self, "do_" + kind)(msg)
        if error:
            await ws.send(json.dumps({"type": "error", "code": error, "message": error, "seq": seq}))
            return
        self.applied.add(seq)
        await ws.send(json.dumps({"type": "ack", "seq": seq}))

    async def do_start(self, msg):
        if self.phase not in ("idle", "revealed"):
            return "wrong_phase"
        if self.size(self.pool()) == 0:
            return "pool_exhausted"
        self.frozen = [c["entropy"] for c in self.clients.values() if c.get("entropy")]
        self.audience = msg.get("audience")
        self.phase = "rolling"
        await self.broadcast({"type": "phase", "phase": "rolling"})
        self.tick_task = asyncio.ensure_future(self.ticker())

    async def do_stop(self, msg):
        if self.phase != "rolling":
            return "wrong_phase"
        self.phase = "stopping"
        await self.broadcast({"type": "phase", "phase": "stopping"})
        await asyncio.sleep(0.6)
        record = self.derive(self.config["perStop"])
        self.session_rounds.append(record)
        self.winners_ever |= set(record["winners"])
        self.phase = "revealed"
        await self.broadcast(dict(record, type="result", contributors=len(record["contributions"])))
        await self.broadcast({"type": "phase", "phase": "revealed"})
        self.round += 1
        self.commit("next")
        await self.send_commit()

    async def do_clear(self, msg):
        if self.phase in ("rolling", "stopping"):
            return "wrong_phase"
        self.append({"kind": "clear"})
        self.session_rounds, self.winners_ever, self.voided, self.phase = [], set(), set(), "idle"
        await self.broadcast({"type": "cleared"})
        await self.broadcast({"type": "phase", "phase": "idle"})
        await self.send_commit()

    async def do_configure(self, msg):
        if self.phase in ("rolling", "stopping"):
            return "wrong_phase"
        cfg = msg.get("config") or {}
        pool = cfg.get("pool") or {}
        if pool.get("kind") == "range" and not (pool.get("to", 0) - pool.get("from", 0) >= 1):
            return "invalid_range"
        self.config = {"pool": pool, "exclude": cfg.get("exclude", []), "perStop": cfg.get("perStop", 1),
                       "repeats": bool(cfg.get("repeats")), "prizes": cfg.get("prizes", []), "prize": cfg.get("prize", 0)}
        if pool.get("kind") == "list":
            self.append({"kind": "entrants", "entrantsHash": fr.sha(canon(pool["entrants"])), "entrants": pool["entrants"]})
        state = self.snapshot("viewer", None)
        await self.broadcast({"type": "config", "config": self.config, "remaining": state["remaining"]})
        await self.send_commit()

    async def do_void(self, msg):
        rnd, winner = msg.get("round"), msg.get("winner")
        current = [w for r in self.session_rounds if r["round"] == rnd for w in r["winners"]]
        replaced = {r["replaces"]["winner"] for r in self.session_rounds if r["round"] == rnd and r["replaces"]}
        if winner not in current or winner in replaced:
            return "unknown_winner"
        void = self.append({"kind": "void", "round": rnd, "winner": winner, "reason": msg.get("reason", "")})
        self.voided.add(winner)
        record = self.derive(1, extra=[w for w in current if w not in replaced],
                             replaces={"round": rnd, "winner": winner, "void": void["hash"]}, round_no=rnd)
        self.session_rounds.append(record)
        self.winners_ever |= set(record["winners"])
        await self.broadcast(dict(record, type="result", contributors=len(record["contributions"])))
        self.commit("next")
        await self.send_commit()


ROOMS = {}


async def draw_channel(ws, code):
    room = ROOMS.get(code)
    if room is None:
        await ws.close(4404, "unknown draw")
        return
    room.clients[ws] = {"role": "viewer"}
    await ws.send(json.dumps(room.snapshot("viewer", ws), ensure_ascii=False))
    await room.broadcast({"type": "viewers", "count": len(room.clients)})
    try:
        async for raw in ws:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            await room.handle(ws, msg)
    finally:
        room.clients.pop(ws, None)
        await room.broadcast({"type": "viewers", "count": len(room.clients)})


# ---------------------------------------------------------------- HTTP

def make_process_request(args):
    def process_request(connection, request):
        path = request.path.split("?", 1)[0]
        query = request.path.split("?", 1)[1] if "?" in request.path else ""
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        if path == "/healthz":
            return response(200, "ok\n", "text/plain")
        if path == "/api/info":
            return json_response(200, {"defaultDraw": args.default_draw, "lanUrl": "http://%s:%d" % (args.host, args.port)})
        if path == "/api/qr":
            svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21"><rect width="21" height="21" fill="#fff"/>'
                   '<path d="M1 1h7v7H1zM13 1h7v7h-7zM1 13h7v7H1z" fill="none" stroke="#000"/>'
                   '<rect x="10" y="10" width="3" height="3"/></svg>')
            return response(200, svg, "image/svg+xml")
        m = re.match(r"^/api/draws/([^/]+)/export\.(json|csv)$", path)
        if m and m.group(1) in ROOMS:
            room = ROOMS[m.group(1)]
            if m.group(2) == "json":
                return json_response(200, {"format": "tombola-export-v1", "code": room.code,
                                           "algorithm": fr.ALG, "records": room.records})
            rows = ["round,winner"] + ["%d,%s" % (r["round"], w) for r in room.records if r["kind"] == "round" for w in r["winners"]]
            return response(200, "\n".join(rows) + "\n", "text/csv")
        for pattern, target in ROUTES:
            if pattern.match(path):
                path = "/" + target
                break
        full = os.path.abspath(os.path.join(PUBLIC, path.lstrip("/")))
        if full.startswith(PUBLIC) and os.path.isfile(full):
            with open(full, "rb") as f:
                body = f.read()
            ctype = mimetypes.guess_type(full)[0] or "application/octet-stream"
            if full.endswith(".js"):
                ctype = "text/javascript"
            return response(200, body, ctype)
        return json_response(404, {"error": {"code": "not_found", "message": "Not found"}})
    return process_request


async def main(args):
    ROOMS[args.default_draw] = Room(args.default_draw, args.host_key, args.tick_hz)

    async def handler(ws):
        path = ws.request.path.split("?", 1)[0]
        if path == "/ws/calc":
            await calc_channel(ws)
        elif path.startswith("/ws/draw/"):
            await draw_channel(ws, path[len("/ws/draw/"):])
        else:
            await ws.close(4404, "not found")

    async def create_draw(request_headers):
        pass

    async with serve(handler, args.host, args.port, process_request=make_process_request(args)):
        print("mock tombola on http://%s:%d  host link: /draw/%s#key=%s" % (args.host, args.port, args.default_draw, args.host_key), flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8766)
    p.add_argument("--host-key", default="hostkey")
    p.add_argument("--admin-key", default="adminkey")
    p.add_argument("--default-draw", default="K7QX2M")
    p.add_argument("--tick-hz", type=int, default=20)
    p.add_argument("--data", default=None)
    asyncio.run(main(p.parse_args()))
