"""Forged exports (issue 33): a real export changed and re-hashed so the chain still links,
commitments and seeds untouched, winners recomputed with the published derivation, so that
only the rules about `removed` and `k` (docs/FAIRNESS.md §3, §6, §7) can catch them. Used by
the peers tests (the script and `tombola verify`) and the browser tests (the pages' recheck)."""
import copy
import os
import re
import types

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "FAIRNESS.md")


def load_script():
    """The independent verifier of docs/FAIRNESS.md §12 as a module, read from the document."""
    with open(DOC, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 1, "docs/FAIRNESS.md must carry exactly one python block"
    module = types.ModuleType("fairness_script")
    exec(compile(blocks[0], DOC, "exec"), module.__dict__)
    return module


ref = load_script()


def rehash(record):
    record["hash"] = ref.sha(ref.canon({k: v for k, v in record.items() if k != "hash"}))


def relink(records, sync_locks=True):
    """Chains the records again from the first (prev, hash, and a replacement's void hash); each
    `lock` record (export format v2) takes its round's `poolHash` unless sync_locks is False."""
    prev, renamed = "0" * 64, {}
    for i, r in enumerate(records):
        if sync_locks and r["kind"] == "lock" and i + 1 < len(records) and records[i + 1]["kind"] == "round":
            r["poolHash"] = records[i + 1]["poolHash"]
        r["prev"] = prev
        if r.get("replaces"):
            r["replaces"]["void"] = renamed.get(r["replaces"]["void"], r["replaces"]["void"])
        old = r["hash"]
        rehash(r)
        renamed[old] = r["hash"]
        prev = r["hash"]


def redraw(r, lists, k=None):
    """Recomputes `eligible`, `poolHash` and the winners of round record `r` from its pool."""
    r["poolHash"] = ref.sha(ref.canon(r["pool"]))
    n, element, lst = ref.eligible(r["pool"], lists)
    k = len(r["winners"]) if k is None else k
    seed = bytes.fromhex(r["seed"])
    if lst is not None and "tickets" in lst:
        w = [lst["tickets"][i] for i in ref.left_in(r["pool"])]
        ps = ref.weighted_positions(seed, r["round"], r["poolHash"], r["entropy"], w, k)
    else:
        ps = ref.positions(seed, r["round"], r["poolHash"], r["entropy"], n, k)
    r["eligible"], r["winners"] = n, [element(p) for p in ps]


def _forge(export, upto, change, sync_locks=True):
    data = copy.deepcopy(export)
    data["records"] = data["records"][:upto]
    lists = {r["entrantsHash"]: r for r in data["records"] if r["kind"] == "entrants"}
    index = change(data["records"], lists)
    relink(data["records"], sync_locks)
    return data, index


def _position(r, lists, value):
    if r["pool"]["kind"] == "range":
        return value
    return lists[r["pool"]["entrants"]]["entrants"].index(value)


def earlier_winner_left_in(export):
    """(a) The last round of a session with repeats off keeps an earlier winner in its pool."""
    def change(records, lists):
        i = max(j for j, r in enumerate(records) if r["kind"] == "round" and not r["repeats"] and not r["replaces"]
                and any(x["kind"] == "round" for x in records[:j] if x["kind"] != "clear")
                and _earlier(records, j))
        r = records[i]
        r["pool"]["removed"].remove(_position(r, lists, _earlier(records, i)[0]))
        redraw(r, lists)
        return i
    return _forge(export, len(export["records"]), change)


def _earlier(records, i):
    """Winners of the session before record i that are elements of its pool's base."""
    start = max([j for j in range(i) if records[j]["kind"] == "clear"], default=-1) + 1
    r, out = records[i], []
    for x in records[start:i]:
        if x["kind"] == "round":
            out += [w for w in x["winners"] if _in_base(r, w, records)]
    return out


def _in_base(r, w, records):
    if r["pool"]["kind"] == "range":
        return type(w) is int and r["pool"]["from"] <= w <= r["pool"]["to"]
    names = next(x for x in records if x["kind"] == "entrants" and x["entrantsHash"] == r["pool"]["entrants"])["entrants"]
    return w in names


def _replacement(export):
    """Index of the first replacement round; the export is cut after its next commit."""
    i = next(j for j, r in enumerate(export["records"]) if r["kind"] == "round" and r.get("replaces"))
    return i, i + 2


def voided_winner_left_in(export):
    """(b) A replacement round whose pool keeps the winner it replaces."""
    i, upto = _replacement(export)

    def change(records, lists):
        r = records[i]
        r["pool"]["removed"].remove(_position(r, lists, r["replaces"]["winner"]))
        redraw(r, lists)
        return i
    return _forge(export, upto, change)


def replacement_draws_two(export):
    """(c) A replacement round that draws two winners."""
    i, upto = _replacement(export)

    def change(records, lists):
        redraw(records[i], lists, k=2)
        return i
    return _forge(export, upto, change)


def _second_round(records):
    """The second round of the sample (prize "3rd prize": 4 winners, 3 per stop, so it draws 1);
    the forgeries below cut the export after its commit, so later rounds do not fail in turn."""
    return [j for j, r in enumerate(records) if r["kind"] == "round"][1]


def forged_lock_pool_hash(export):
    """Issue 33 §2: the lock names another pool than the one its round drew from."""
    def change(records, lists):
        i = _second_round(records)
        records[i - 1]["poolHash"] = ref.sha(b"another pool")
        return i
    return _forge(export, _second_round(export["records"]) + 2, change, sync_locks=False)


def unexplained_exclusion(export):
    """Issue 33 §2: a position in `removed` that no rule and no recorded host exclusion explains."""
    def change(records, lists):
        i = _second_round(records)
        r = records[i]
        extra = next(v for v in range(r["pool"]["from"], r["pool"]["to"] + 1) if v not in r["pool"]["removed"]
                     and v not in r["winners"])
        r["pool"]["removed"] = sorted(r["pool"]["removed"] + [extra])
        redraw(r, lists)
        return i
    return _forge(export, _second_round(export["records"]) + 2, change)


def wrong_k(export):
    """Issue 33 §2: a round that draws 2 winners (its lock's plan says 2) where min(perStop 3, left
    in the prize 1, n) is 1. The export is cut after the round's commit."""
    def change(records, lists):
        i = _second_round(records)
        redraw(records[i], lists, k=2)
        records[i - 1]["plan"]["count"] = 2
        return i
    return _forge(export, _second_round(export["records"]) + 2, change)


def wrong_prize_left(export):
    """Issue 33 §2: the lock claims 2 winners were left in the prize (and draws 2) where the chain
    shows 4 − 3 = 1."""
    def change(records, lists):
        i = _second_round(records)
        redraw(records[i], lists, k=2)
        records[i - 1]["plan"].update(count=2, prizeLeft=2)
        return i
    return _forge(export, _second_round(export["records"]) + 2, change)


def hidden_host_exclusion(export):
    """Issue 33 §2: a host exclusion dropped from the lock (the position stays removed, unexplained)."""
    def change(records, lists):
        i = _second_round(records)
        records[i - 1]["excluded"][0]["removed"].pop()
        return i
    return _forge(export, _second_round(export["records"]) + 2, change)


FORGERIES = {
    earlier_winner_left_in: "removed misses an earlier winner, repeats off (rule 3)",
    voided_winner_left_in: "removed misses a voided winner (rule 2)",
    replacement_draws_two: "a replacement draws k = 1",
    forged_lock_pool_hash: "lock does not match its round",
    unexplained_exclusion: "removed holds a position no rule explains",
    hidden_host_exclusion: "removed holds a position no rule explains",
    wrong_k: "k differs from min(perStop, left in prize, n)",
    wrong_prize_left: "prizeLeft differs from the prize's count less its winners",
}


def _last_round_with(export, key, change):
    """The last round whose pool has `key` changed by `change(pool)`, winners recomputed."""
    def forge(records, lists):
        i = max(j for j, r in enumerate(records) if r["kind"] == "round" and key in r["pool"])
        change(records[i]["pool"])
        redraw(records[i], lists)
        return i
    return _forge(export, len(export["records"]), forge)


def pool_with_another_key(export):
    """A pool object with a key section 3 does not list (the schema is closed)."""
    return _last_round_with(export, "kind", lambda pool: pool.update(note="checked"))


def empty_group_name(export):
    """A prize filter naming the group "" (group names are 1-100 bytes)."""
    return _last_round_with(export, "onlyGroups", lambda pool: pool["onlyGroups"].insert(0, ""))


SCHEMA_FORGERIES = [pool_with_another_key, empty_group_name]
