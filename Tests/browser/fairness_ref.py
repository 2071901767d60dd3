#!/usr/bin/env python3
"""Copy of the independent verifier in docs/FAIRNESS.md §11 (tombola-hmac-sha256-v1),
used by the browser tests as the reference for the pages' recheck (verify.js)
and by the mock server to derive winners."""
import hashlib, hmac, json, sys
from bisect import bisect_right

ALG = "tombola-hmac-sha256-v1"

def canon(x):
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

def sha(b):
    return hashlib.sha256(b).hexdigest()

def entropy_digest(contributions, audience):
    msg = b"tombola-entropy-v1\x00" + len(contributions).to_bytes(8, "big")
    msg += b"".join(bytes.fromhex(c) for c in contributions)
    if audience is None:
        return sha(msg + b"\x00")
    a = audience.encode("ascii")
    return sha(msg + b"\x01" + len(a).to_bytes(8, "big") + a)

def words(seed, rnd, pool_hash, entropy):
    prefix = ALG.encode() + b"\x00" + rnd.to_bytes(8, "big") + bytes.fromhex(pool_hash) + bytes.fromhex(entropy)
    c = 0
    while True:
        block = hmac.new(seed, prefix + c.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i:i + 8], "big")
        c += 1

def uniform(stream, m):
    limit = 2**64 - 2**64 % m
    while True:
        w = next(stream)
        if w < limit:
            return w % m

def positions(seed, rnd, pool_hash, entropy, n, k):
    stream, swaps, out = words(seed, rnd, pool_hash, entropy), {}, []
    for i in range(k):
        j = i + uniform(stream, n - i)
        a_i, a_j = swaps.get(i, i), swaps.get(j, j)
        swaps[j] = a_i
        out.append(a_j)
    return out

def eligible(pool, lists):
    """Returns (n, E) where E(p) is the element at eligible position p."""
    removed = pool["removed"]
    if pool["kind"] == "range":
        size, first = pool["to"] - pool["from"] + 1, pool["from"]
        idx, base = [r - first for r in removed], lambda i: first + i
    else:
        names = lists[pool["entrants"]]
        assert pool["count"] == len(names), "entrant count"
        size, idx, base = len(names), removed, names.__getitem__
    assert idx == sorted(set(idx)) and all(0 <= d < size for d in idx), "removed set"
    gaps = [d - j for j, d in enumerate(idx)]
    return size - len(idx), lambda p: base(p + bisect_right(gaps, p))

def check_round(r, lists, st):
    assert r["algorithm"] == ALG, "unknown algorithm"
    assert st["pending"] is not None and r["commitment"] == st["pending"], "commitment not published before"
    seed = bytes.fromhex(r["seed"])
    assert len(seed) == 32 and sha(seed) == r["commitment"], "seed does not match commitment"
    assert sha(canon(r["pool"])) == r["poolHash"], "poolHash"
    c = r["contributions"]
    assert c == sorted(set(c)) and all(len(bytes.fromhex(x)) == 16 and x == x.lower() for x in c), "contributions"
    assert entropy_digest(c, r["audience"]) == r["entropy"], "entropy digest"
    n, element = eligible(r["pool"], lists)
    assert n == r["eligible"] and 1 <= len(r["winners"]) <= n, "eligible count"
    got = [element(p) for p in positions(seed, r["round"], r["poolHash"], r["entropy"], n, len(r["winners"]))]
    assert got == r["winners"], "winners differ: recomputed %s" % got
    v = st["void"]
    if v is None:
        assert r["replaces"] is None and r["round"] == st["last"] + 1, "round number"
        st["last"], st["session"][r["round"]] = r["round"], []
    else:
        assert r["replaces"] == {"round": v["round"], "winner": v["winner"], "void": v["hash"]} and r["round"] == v["round"], "replacement"
        assert not set(r["winners"]) & set(st["session"][r["round"]]), "replacement repeats its round"
    assert r["repeats"] or not set(r["winners"]) & st["ever"], "repeat winner"
    assert not set(r["winners"]) & st["voided"], "voided winner drawn again"
    st["session"][r["round"]] += r["winners"]
    st["ever"] |= set(r["winners"])
    st["pending"], st["void"] = None, None

def verify(export):
    prev, lists, ok = "0" * 64, {}, True
    st = {"pending": None, "void": None, "last": 0, "session": {}, "ever": set(), "voided": set()}
    for i, r in enumerate(export["records"]):
        label = "#%d %s" % (i, r.get("kind")) + (" %s" % r["round"] if "round" in r else "")
        try:
            body = {k: v for k, v in r.items() if k != "hash"}
            assert r.get("v") == 1 and r.get("index") == i and r.get("prev") == prev, "chain broken"
            assert sha(canon(body)) == r.get("hash"), "record hash"
            assert st["void"] is None or r["kind"] in ("round", "entrants"), "void without replacement"
            prev, kind = r["hash"], r["kind"]
            if kind == "commit":
                if st["pending"] is not None:
                    print("#%d note: commitment %s… abandoned" % (i, st["pending"][:8]))
                st["pending"] = r["commitment"]
            elif kind == "entrants":
                assert sha(canon(r["entrants"])) == r["entrantsHash"], "entrantsHash"
                lists[r["entrantsHash"]] = r["entrants"]
            elif kind == "round":
                check_round(r, lists, st)
            elif kind == "void":
                w, won = r["winner"], st["session"].get(r["round"], [])
                assert w in won and w not in st["voided"], "voided winner not a current winner"
                won.remove(w)
                st["voided"].add(w)
                st["void"] = r
            elif kind == "clear":
                st.update(session={}, ever=set(), voided=set())
            else:
                raise AssertionError("unknown kind")
            print(label + ": OK")
        except (AssertionError, KeyError, TypeError, ValueError, AttributeError) as e:
            ok = False
            prev = r.get("hash") if isinstance(r, dict) else prev
            print(label + ": FAIL: %s" % (e or type(e).__name__))
    if st["void"] is not None:
        ok = False
        print("FAIL: void without replacement")
    return ok

if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.exit(0 if verify(json.load(f)) else 1)
