"""The independent verifier in docs/FAIRNESS.md agrees with the Swift engine.

Runs the Python script exactly as printed in the doc against an export the engine produced
(`tombola verify --sample-export`, committed as fixtures/sample-export.json and regenerated
when a built `tombola` is at hand) and against tampered copies of it.
"""
import copy
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import forgeries

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = pathlib.Path(__file__).with_name("fixtures") / "sample-export.json"


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    text = (ROOT / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "FAIRNESS.md must carry exactly one python block"
    path = tmp_path_factory.mktemp("verifier") / "verify_tombola.py"
    path.write_text(blocks[0], encoding="utf-8")
    return path


def tombola_binary():
    for candidate in (os.environ.get("TOMBOLA_BIN"), ROOT / ".build" / "debug" / "tombola", ROOT / ".build" / "release" / "tombola"):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    return None


@pytest.fixture(scope="module")
def export():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def run(script, data, tmp_path, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=60)


def verify_with_binary(data, tmp_path, name="tampered.json"):
    """`tombola verify` of `data`, written to `tmp_path/name` first."""
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60)


def rehash(record):
    body = {k: v for k, v in record.items() if k != "hash"}
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    record["hash"] = hashlib.sha256(canon).hexdigest()


def test_script_verifies_the_engine_export(script, export, tmp_path):
    result = run(script, export, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert sum(1 for line in lines if re.match(r"#\d+ round \d+: OK$", line)) == 6
    assert not any("FAIL" in line for line in lines)
    assert any("abandoned" in line for line in lines)  # the simulated restart


def test_every_record_kind_is_covered(export):
    kinds = {r["kind"] for r in export["records"]}
    assert kinds == {"commit", "entrants", "lock", "round", "void", "clear"}
    assert any(r.get("replaces") for r in export["records"])
    assert any(r.get("audience") for r in export["records"])


def tampers(export):
    rounds = [i for i, r in enumerate(export["records"]) if r["kind"] == "round"]
    first, list_round = rounds[0], rounds[-1]

    def changed_winner(d):
        w = d["records"][first]["winners"]
        w[0] = w[0] + 1 if w[0] < 500 else w[0] - 1

    def changed_winner_rehashed(d):
        changed_winner(d)
        rehash(d["records"][first])

    def other_seed_rehashed(d):
        d["records"][first]["seed"] = "ab" * 32
        rehash(d["records"][first])

    def dropped_contribution_rehashed(d):
        d["records"][first]["contributions"].pop()
        rehash(d["records"][first])

    def renamed_entrant(d):
        entrants = next(r for r in d["records"] if r["kind"] == "entrants")
        entrants["entrants"][0] = "Mallory"
        rehash(entrants)

    def removed_record(d):
        del d["records"][first + 1]

    def swapped_winners_rehashed(d):
        w = d["records"][list_round]["winners"]
        w.reverse()
        rehash(d["records"][list_round])

    return [changed_winner, changed_winner_rehashed, other_seed_rehashed, dropped_contribution_rehashed,
            renamed_entrant, removed_record, swapped_winners_rehashed]


@pytest.mark.parametrize("index", range(7))
def test_script_rejects_a_tampered_export(script, export, tmp_path, index):
    tamper = tampers(export)[index]
    data = copy.deepcopy(export)
    tamper(data)
    result = run(script, data, tmp_path)
    assert result.returncode == 1, tamper.__name__ + "\n" + result.stdout
    assert "FAIL" in result.stdout


@pytest.mark.parametrize("index", range(7))
def test_tombola_verify_agrees_on_tampered_exports(export, tmp_path, index):
    binary = tombola_binary()
    data = copy.deepcopy(export)
    tamper = tampers(export)[index]
    tamper(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    result = subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, tamper.__name__ + "\n" + result.stdout
    clean = subprocess.run([binary, "verify", str(FIXTURE)], capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stdout


POOLS = pathlib.Path(__file__).with_name("fixtures") / "sample-export-pools.json"


def pools_tampers():
    def entrants_of(d):
        return next(r for r in d["records"] if r["kind"] == "entrants")

    def more_tickets_rehashed(d):
        # Ann gets more tickets; the list hash and the record hash are fixed up, the pool is not.
        e = entrants_of(d)
        e["tickets"][0] += 10
        extra = {k: e[k] for k in ("tickets", "groups")}
        e["entrantsHash"] = hashlib.sha256(json.dumps(dict(names=e["entrants"], **extra), sort_keys=True,
                                                      separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
        rehash(e)

    def regrouped_rehashed(d):
        e = entrants_of(d)
        e["groups"][0] = "IT"  # Ann would now be eligible for the IT prize
        rehash(e)

    def unweighted_label_rehashed(d):
        r = next(r for r in d["records"] if r["kind"] == "round")
        r["algorithm"] = "tombola-hmac-sha256-v1"
        rehash(r)

    def ineligible_left_in_rehashed(d):
        r = next(r for r in d["records"] if r["kind"] == "round")
        r["pool"]["removed"].remove(0)  # Ann (Sales) left in the IT prize's pool
        r["eligible"] += 1
        r["poolHash"] = hashlib.sha256(json.dumps(r["pool"], sort_keys=True, separators=(",", ":"),
                                                  ensure_ascii=False).encode()).hexdigest()
        rehash(r)

    return [more_tickets_rehashed, regrouped_rehashed, unweighted_label_rehashed, ineligible_left_in_rehashed]


def test_script_and_tombola_verify_check_weighted_and_group_rounds(script, tmp_path):
    data = json.loads(POOLS.read_text(encoding="utf-8"))
    rounds = [r for r in data["records"] if r["kind"] == "round"]
    assert all(r["algorithm"] == "tombola-hmac-sha256-weighted-v1" for r in rounds)
    assert any("onlyGroups" in r["pool"] for r in rounds) and any("exceptGroups" in r["pool"] for r in rounds)
    result = run(script, data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sum(1 for line in result.stdout.splitlines() if re.match(r"#\d+ round \d+: OK$", line)) == len(rounds)
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    clean = subprocess.run([binary, "verify", str(POOLS)], capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stdout


@pytest.mark.parametrize("index", range(4))
def test_script_and_tombola_verify_reject_tampered_pools(script, tmp_path, index):
    tamper = pools_tampers()[index]
    data = json.loads(POOLS.read_text(encoding="utf-8"))
    tamper(data)
    result = run(script, data, tmp_path)
    assert result.returncode == 1 and "FAIL" in result.stdout, tamper.__name__ + "\n" + result.stdout
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    swift = verify_with_binary(data, tmp_path)
    assert swift.returncode == 1, tamper.__name__ + "\n" + swift.stdout
    failed = lambda text: sorted(line.split(":")[0] for line in text.splitlines() if ": FAIL" in line)
    assert failed(result.stdout) == failed(swift.stdout), tamper.__name__


BOOKS = pathlib.Path(__file__).with_name("fixtures") / "sample-export-books.json"


def books_tampers():
    def entrants_of(d):
        return next(r for r in d["records"] if r["kind"] == "entrants")

    def entrants_hash(e):
        body = {k: e[k] for k in ("books",)}
        return hashlib.sha256(json.dumps(dict(names=e["entrants"], **body), sort_keys=True, separators=(",", ":"),
                                         ensure_ascii=False).encode()).hexdigest()

    def recoloured_rehashed(d):
        # Blue tickets shown red: the list hash and the record are fixed up, the rounds' pools are not.
        e = entrants_of(d)
        e["books"][1]["color"] = "#c62828"
        e["entrantsHash"] = entrants_hash(e)
        rehash(e)

    def renumbered_rehashed(d):
        # Books that no longer number the tickets the rounds drew from.
        e = entrants_of(d)
        e["books"][0]["from"], e["books"][0]["to"] = 2, 51
        e["entrantsHash"] = entrants_hash(e)
        rehash(e)

    return [recoloured_rehashed, renumbered_rehashed]


def test_script_and_tombola_verify_check_ticket_books(script, tmp_path):
    data = json.loads(BOOKS.read_text(encoding="utf-8"))
    rounds = [r for r in data["records"] if r["kind"] == "round"]
    entrants = next(r for r in data["records"] if r["kind"] == "entrants")
    assert [b["name"] for b in entrants["books"]] == ["red", "blue", "绿"] and entrants["entrants"][100] == "绿 101"
    assert all(w.rsplit(" ", 1)[0] in ("red", "blue", "绿") for r in rounds for w in r["winners"])
    result = run(script, data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sum(1 for line in result.stdout.splitlines() if re.match(r"#\d+ round \d+: OK$", line)) == len(rounds)
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    clean = subprocess.run([binary, "verify", str(BOOKS)], capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stdout
    for tamper in books_tampers():
        forged = json.loads(BOOKS.read_text(encoding="utf-8"))
        tamper(forged)
        result = run(script, forged, tmp_path)
        assert result.returncode == 1 and "FAIL" in result.stdout, tamper.__name__ + "\n" + result.stdout
        swift = verify_with_binary(forged, tmp_path)
        assert swift.returncode == 1, tamper.__name__ + "\n" + swift.stdout
        failed = lambda text: sorted(line.split(":")[0] for line in text.splitlines() if ": FAIL" in line)
        assert failed(result.stdout) == failed(swift.stdout), tamper.__name__


REHEARSAL = pathlib.Path(__file__).with_name("fixtures") / "sample-export-rehearsal.json"


def rechain(records):
    """Every record's prev and hash recomputed in order: a tamper that only the rules can catch."""
    prev = "0" * 64
    for record in records:
        record["prev"] = prev
        rehash(record)
        prev = record["hash"]


def rehearsal_tampers():
    def real_round_in_rehearsal(d):
        # The rehearsal's second round unmarked: a real round in a rehearsal session (rule R1).
        r = [r for r in d["records"] if r["kind"] == "round" and r.get("rehearsal")][1]
        del r["rehearsal"]
        rechain(d["records"])

    def wipe_of_real_rounds(d):
        # The real event's Clear turned into a wipe: it would discard a real round (rule R2).
        c = [r for r in d["records"] if r["kind"] == "clear"][1]
        c["rehearsal"] = True
        rechain(d["records"])

    return [real_round_in_rehearsal, wipe_of_real_rounds]


def test_script_and_tombola_verify_check_rehearsal_rounds_and_their_wipe(script, tmp_path):
    data = json.loads(REHEARSAL.read_text(encoding="utf-8"))
    rounds = [r for r in data["records"] if r["kind"] == "round"]
    assert [r.get("rehearsal", False) for r in rounds] == [True, True, True, False, False]
    assert [c.get("rehearsal", False) for c in data["records"] if c["kind"] == "clear"] == [True, False]
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    result = run(script, data, tmp_path)
    swift = subprocess.run([binary, "verify", str(REHEARSAL)], capture_output=True, text=True, timeout=60)
    for out, code in ((result.stdout, result.returncode), (swift.stdout, swift.returncode)):
        assert code == 0, out
        # Each rehearsal round is called out, the real ones are not.
        assert sorted(re.findall(r"#(\d+) note: REHEARSAL", out)) == sorted(str(i) for i, r in enumerate(data["records"])
                                                                            if r["kind"] == "round" and r.get("rehearsal"))
    for tamper in rehearsal_tampers():
        forged = json.loads(REHEARSAL.read_text(encoding="utf-8"))
        tamper(forged)
        result = run(script, forged, tmp_path)
        swift = verify_with_binary(forged, tmp_path)
        failed = lambda text: [line for line in text.splitlines() if ": FAIL" in line]
        assert result.returncode == 1 and swift.returncode == 1, tamper.__name__ + "\n" + result.stdout + swift.stdout
        assert sorted(failed(result.stdout)) == sorted(failed(swift.stdout)), tamper.__name__ + "\n" + result.stdout + swift.stdout
        # The first failure names the rule (later ones follow from the session the verifiers rebuilt).
        rule = "(rule R1)" if tamper.__name__ == "real_round_in_rehearsal" else "(rule R2)"
        assert rule in failed(swift.stdout)[0] and rule in failed(result.stdout)[0], tamper.__name__ + "\n" + swift.stdout


PAST = pathlib.Path(__file__).with_name("fixtures") / "sample-export-past.json"


def test_script_and_tombola_verify_check_exclusions_of_past_winners(script, tmp_path):
    data = json.loads(PAST.read_text(encoding="utf-8"))
    rounds = [r for r in data["records"] if r["kind"] == "round"]
    assert len(rounds) == 2 and all(r["pool"]["pastWinners"][0]["code"] == "LUNCH" for r in rounds)
    past = rounds[0]["pool"]["pastWinners"][0]
    assert len(past["removed"]) == 2 and set(past["removed"]) <= set(rounds[0]["pool"]["removed"])
    entrants = next(r for r in data["records"] if r["kind"] == "entrants")["entrants"]
    assert not {entrants[i] for i in past["removed"]} & {w for r in rounds for w in r["winners"]}
    result = run(script, data, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr

    # An exclusion claimed for an entrant still in the pool: pool and record rehashed, so only
    # the pastWinners rule can catch it.
    tampered = copy.deepcopy(data)
    r = next(r for r in tampered["records"] if r["kind"] == "round")
    outsider = next(i for i in range(r["pool"]["count"]) if i not in r["pool"]["removed"])
    r["pool"]["pastWinners"][0]["removed"] = sorted(r["pool"]["pastWinners"][0]["removed"] + [outsider])
    r["poolHash"] = hashlib.sha256(json.dumps(r["pool"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    rehash(r)
    result = run(script, tampered, tmp_path, "tampered.json")
    assert result.returncode == 1 and "pastWinners" in result.stdout, result.stdout
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    path = tmp_path / "tampered-past.json"
    path.write_text(json.dumps(tampered, ensure_ascii=False), encoding="utf-8")
    checked = subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 1 and "pastWinners" in checked.stdout, checked.stdout
    clean = subprocess.run([binary, "verify", str(PAST)], capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stdout


def lunch_export(tmp_path):
    """(tombola binary, the `past` sample's linked lunch draw export as text, saved as lunch.json)."""
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    lunch = subprocess.run([binary, "verify", "--sample-export", "past", "lunch"], capture_output=True, text=True,
                           timeout=60, check=True).stdout
    (tmp_path / "lunch.json").write_text(lunch, encoding="utf-8")
    return binary, lunch


def test_tombola_verify_checks_the_exclusion_against_the_linked_draws_export(tmp_path):
    binary, lunch = lunch_export(tmp_path)
    ok = subprocess.run([binary, "verify", str(PAST), "--past", str(tmp_path / "lunch.json")], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.count("past winners of LUNCH: OK") == 2, ok.stdout
    assert "matched by id" in ok.stdout  # the lunch winner listed under another spelling

    # A lunch export whose winners were changed afterwards (rehashed, so its own chain checks
    # from there on): the main draw's lock names another head.
    data = json.loads(lunch)
    r = next(r for r in data["records"] if r["kind"] == "round")
    r["winners"].reverse()
    rehash(r)
    (tmp_path / "lunch-changed.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    bad = subprocess.run([binary, "verify", str(PAST), "--past", str(tmp_path / "lunch-changed.json")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "past winners of LUNCH: FAIL" in bad.stdout, bad.stdout


def test_script_checks_the_exclusion_against_the_linked_draws_export_as_tombola_verify_does(script, tmp_path):
    binary, lunch = lunch_export(tmp_path)

    def both(lunch_path):
        py = subprocess.run([sys.executable, str(script), str(PAST), "--past", str(lunch_path)],
                            capture_output=True, text=True, timeout=60)
        swift = subprocess.run([binary, "verify", str(PAST), "--past", str(lunch_path)],
                               capture_output=True, text=True, timeout=60)
        past_lines = lambda out: [line for line in out.splitlines() if "past winners of" in line or "matched by id" in line]
        return py, swift, past_lines(py.stdout), past_lines(swift.stdout)

    py, swift, py_lines, swift_lines = both(tmp_path / "lunch.json")
    assert py.returncode == 0 and swift.returncode == 0, py.stdout + swift.stdout
    assert py.stdout.count("past winners of LUNCH: OK") == 2, py.stdout
    assert "matched by id" in py.stdout
    # The same findings, line for line (the script writes "..." where tombola writes "…").
    assert [line.replace("...", "…") for line in py_lines] == swift_lines

    # The lunch draw's winners changed after the main draw locked: both refuse the exclusion.
    data = json.loads(lunch)
    r = next(r for r in data["records"] if r["kind"] == "round")
    r["winners"].reverse()
    rehash(r)
    (tmp_path / "lunch-changed.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    py, swift, py_lines, swift_lines = both(tmp_path / "lunch-changed.json")
    assert py.returncode == 1 and swift.returncode == 1, py.stdout + swift.stdout
    assert "past winners of LUNCH: FAIL" in py.stdout
    assert [line.replace("...", "…") for line in py_lines] == swift_lines

    # A lunch winner left in the main pool: the lunch export claims a main entrant won there.
    main = json.loads(PAST.read_text(encoding="utf-8"))
    entrants = next(x for x in main["records"] if x["kind"] == "entrants")["entrants"]
    first_round = next(x for x in main["records"] if x["kind"] == "round")
    stayed = next(entrants[i] for i in range(len(entrants)) if i not in first_round["pool"]["removed"])
    data = json.loads(lunch)
    lunch_round = next(x for x in data["records"] if x["kind"] == "round")
    lunch_round["winners"][0] = stayed
    rehash(lunch_round)
    # Re-chain everything after it and point the main draw's locks at the new head (the main
    # export rehashed as a whole; its winners no longer recompute, since poolHash moved, but the
    # finding checked here is the exclusion's, reported by name).
    for j in range(data["records"].index(lunch_round) + 1, len(data["records"])):
        data["records"][j]["prev"] = data["records"][j - 1]["hash"]
        rehash(data["records"][j])
    (tmp_path / "lunch-left.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for x in main["records"]:
        for p in x.get("pool", {}).get("pastWinners", []):
            p["head"] = data["records"][p["records"] - 1]["hash"]
        if x["kind"] == "round":
            x["poolHash"] = hashlib.sha256(json.dumps(x["pool"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    prev = "0" * 64
    for x in main["records"]:
        x["prev"] = prev
        rehash(x)
        prev = x["hash"]
    main_path = tmp_path / "main-relinked.json"
    main_path.write_text(json.dumps(main, ensure_ascii=False), encoding="utf-8")
    py = subprocess.run([sys.executable, str(script), str(main_path), "--past", str(tmp_path / "lunch-left.json")],
                        capture_output=True, text=True, timeout=60)
    swift = subprocess.run([binary, "verify", str(main_path), "--past", str(tmp_path / "lunch-left.json")],
                           capture_output=True, text=True, timeout=60)
    assert py.returncode == 1 and ('"%s" won LUNCH but was not left out' % stayed) in py.stdout, py.stdout
    assert swift.returncode == 1 and ('"%s" won LUNCH but was not left out' % stayed) in swift.stdout, swift.stdout


@pytest.mark.parametrize("forge", list(forgeries.FORGERIES), ids=lambda f: f.__name__)
def test_script_and_tombola_verify_refuse_the_forgeries_naming_the_rule(script, export, tmp_path, forge):
    """Issue 33: a real export changed, winners recomputed and the chain re-hashed, so only the
    rules on `removed` (§3 rules 2–4) and on a replacement's `k` can catch it."""
    data, index = forge(export)
    reason = forgeries.FORGERIES[forge]
    label = "#%d round %d" % (index, data["records"][index]["round"])
    py = run(script, data, tmp_path, "forged.json")
    assert py.returncode == 1 and "%s: FAIL: %s" % (label, reason) in py.stdout, py.stdout
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    swift = subprocess.run([binary, "verify", str(tmp_path / "forged.json")], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 1 and "%s: FAIL: %s" % (label, reason) in swift.stdout, swift.stdout
    failed = lambda text: [line for line in text.splitlines() if "FAIL" in line]
    assert failed(py.stdout) == failed(swift.stdout)


def test_script_counts_linked_wins_per_win_and_matches_names_as_unicode_text(capsys):
    """FAIRNESS.md §3, "Details a verifier relies on": the same rules PastWinnersTests checks in
    the engine (a person who won twice, one win voided, is still a winner of the linked draw; a
    canonically equivalent spelling matches by name, not as an id match)."""
    ref = forgeries.ref
    nfd = "Rene\u0301"  # the list spells it decomposed, the linked draw precomposed
    other = [{"kind": "round", "winners": ["Ann", "Bob"]}, {"kind": "round", "winners": ["Ann", "Ren\u00e9"]},
             {"kind": "void", "winner": "Ann"}]
    for i, r in enumerate(other):
        r.update(v=1, index=i, at=1, hash="")
    for r in other:
        r["prev"] = other[r["index"] - 1]["hash"] if r["index"] else "0" * 64
        forgeries.rehash(r)
    names = ["Ann", "Bob", nfd, "Eve"]
    past = {"code": "L", "head": other[-1]["hash"], "records": 3, "removed": [0, 1, 2]}
    assert ref.past_problem(past, names, other, 1) is None
    assert "matched by id" not in capsys.readouterr().out
    assert ref.past_problem(dict(past, removed=[1, 2]), names, other, 1) == '"Ann" won L but was not left out'


@pytest.mark.parametrize("forge", list(forgeries.SCHEMA_FORGERIES), ids=lambda f: f.__name__)
def test_script_and_tombola_verify_refuse_a_pool_outside_the_closed_schema(script, tmp_path, forge):
    data, index = forge(json.loads(POOLS.read_text(encoding="utf-8")))
    label = "#%d round %d: FAIL: pool schema" % (index, data["records"][index]["round"])
    py = run(script, data, tmp_path, "forged.json")
    assert py.returncode == 1 and label in py.stdout, py.stdout
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    swift = subprocess.run([binary, "verify", str(tmp_path / "forged.json")], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 1 and label in swift.stdout, swift.stdout


REVERSE = pathlib.Path(__file__).with_name("fixtures") / "sample-export-reverse.json"


def reverse_tampers():
    """Forgeries of a reverse raffle (FAIRNESS.md §21), re-chained so only the rules can catch them."""
    def finals(d):
        return [r for r in d["records"] if r["kind"] == "round" and "lastIn" in r]

    def other_last_one_in(d):
        # The winner named is someone already drawn out (rule V2).
        final = finals(d)[0]
        final["lastIn"] = final["winners"][0]
        rechain(d["records"])

    def last_one_in_left_out(d):
        # The round that leaves one does not say who (rule V2).
        del finals(d)[1]["lastIn"]
        rechain(d["records"])

    def repeats_in_reverse(d):
        # A round that lets the ones drawn out back in: not a reverse raffle (rule V1).
        finals(d)[0]["repeats"] = True
        rechain(d["records"])

    return [(other_last_one_in, "(rule V2)"), (last_one_in_left_out, "(rule V2)"), (repeats_in_reverse, "(rule V1)")]


def test_script_and_tombola_verify_check_a_reverse_raffle(script, tmp_path):
    data = json.loads(REVERSE.read_text(encoding="utf-8"))
    rounds = [r for r in data["records"] if r["kind"] == "round"]
    assert all(r["reverse"] is True for r in rounds) and [len(r["winners"]) for r in rounds] == [4, 4, 2, 10, 10, 9]
    binary = tombola_binary()
    if binary is None:
        pytest.fail("build tombola first (swift build --product tombola) or set TOMBOLA_BIN")
    result = run(script, data, tmp_path)
    swift = subprocess.run([binary, "verify", str(REVERSE)], capture_output=True, text=True, timeout=60)
    for out, code in ((result.stdout, result.returncode), (swift.stdout, swift.returncode)):
        assert code == 0, out
        # Each round is called out with who is still in; the last of each session names its winner.
        notes = re.findall(r"#\d+ note: REVERSE: .*", out)
        assert len(notes) == 6 and [n.endswith("wins") for n in notes] == [False, False, True, False, False, True], out
    assert re.findall(r"#\d+ note: REVERSE: .*", result.stdout) == re.findall(r"#\d+ note: REVERSE: .*", swift.stdout)
    for tamper, rule in reverse_tampers():
        forged = json.loads(REVERSE.read_text(encoding="utf-8"))
        tamper(forged)
        result = run(script, forged, tmp_path)
        swift = verify_with_binary(forged, tmp_path)
        failed = lambda text: [line for line in text.splitlines() if ": FAIL" in line]
        assert result.returncode == 1 and swift.returncode == 1, tamper.__name__ + "\n" + result.stdout + swift.stdout
        assert rule in failed(swift.stdout)[0] and rule in failed(result.stdout)[0], tamper.__name__ + "\n" + swift.stdout + result.stdout


# Each committed fixture is what `tombola verify --sample-export [name]` prints today, so the script is tested
# against the engine's present output, not an old one.
@pytest.mark.parametrize("fixture,sample", [(FIXTURE, None), (POOLS, "pools"), (BOOKS, "books"),
                                            (REHEARSAL, "rehearsal"), (PAST, "past"), (REVERSE, "reverse")],
                         ids=["plain", "pools", "books", "rehearsal", "past", "reverse"])
def test_fixture_is_what_the_engine_produces_now(fixture, sample):
    binary = tombola_binary()
    expected = fixture.read_text(encoding="utf-8").strip()
    if binary is None:
        # No build at hand: the fixture must at least be a canonical engine export.
        data = json.loads(expected)
        assert json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == expected
        return
    produced = subprocess.run([binary, "verify", "--sample-export", *([sample] if sample else [])],
                              capture_output=True, text=True, timeout=60, check=True)
    assert produced.stdout.strip() == expected
