"""Beacon-sealed rounds (docs/FAIRNESS.md §13) in the page's recheck: every round of the engine's
beacon sample (sealed by quicknet round 1000) verifies in the page, and a tampered drand value
or a round that left its lock fails with the rule the script names."""
import json
import os

from test_page_lib import page, result_of, run_module

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "fixtures")
FIXTURE = os.path.join(FIXTURES, "sample-export-beacon.json")
# The same draw as exported before locks were stored at Start (Stop stored lock, then beacon).
STOPLOCK = os.path.join(FIXTURES, "sample-export-beacon-stoplock.json")

CHECK = """
    return m.verifyExport(args[0]).map((o) => [o.index, o.ok, o.reason ?? null]);
"""


def test_the_page_rechecks_sealed_rounds_and_refuses_tampering(browser, static_site):
    with open(FIXTURE, encoding="utf-8") as f:
        export = json.load(f)
    b = page(browser, static_site)
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, export)) == [[3, True, None], [10, True, None]]

    value = json.loads(json.dumps(export))
    value["records"][9]["randomness"] = "00" * 32
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, value)) == [
        [3, True, None], [9, False, "randomness is not SHA-256(signature)"], [10, False, "beacon round without its value"]]

    moved = json.loads(json.dumps(export))
    moved["records"][10]["audience"] = "2024"
    outcome = result_of(run_module(b, "/js/lib/verify.js", CHECK, moved))
    assert outcome[1] == [10, False, "round differs from its beacon lock"]

    # A lock naming a later drand round than the first due 1 s after it (issue #40) is refused.
    later = json.loads(json.dumps(export))
    later["records"][8]["at"] -= 3000
    assert [8, False, "drand round later than the first due after the lock"] in result_of(run_module(b, "/js/lib/verify.js", CHECK, later))

    # The normal lock, stored at Start, sits before the beacon records (lock, beacon, beaconValue,
    # round); a beaconVoid keeps it, so the next Stop's beacon follows it under the same lock.
    kinds = [r["kind"] for r in export["records"]]
    assert kinds[5:11] == ["lock", "beacon", "beaconVoid", "beacon", "beaconValue", "round"]

    # A lock followed by anything but its round's records (here the next commitment, its round gone) is refused.
    dropped = {"records": [r for i, r in enumerate(export["records"]) if not 6 <= i <= 10]}
    assert [6, False, "lock without its round"] in result_of(run_module(b, "/js/lib/verify.js", CHECK, dropped))

    # Without its beacon records the sealed round's winners do not come from the seed: the page says so.
    alone = {"records": [r for r in export["records"] if r["kind"] not in ("beacon", "beaconValue", "beaconVoid")]}
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, alone))[-1][2].startswith("winners differ")

    # The export written before locks were stored at Start still verifies (a lock after the void: no abandoned roll).
    with open(STOPLOCK, encoding="utf-8") as f:
        assert result_of(run_module(b, "/js/lib/verify.js", CHECK, json.load(f))) == [[3, True, None], [11, True, None]]


def test_the_relays_errors_are_said_in_the_pages_language(browser, static_site):
    """Issue #43: a sealed round's 'no value yet' reason (BeaconClient's fixed English grammar) is
    translated on the page: the framing and every known problem, relays' URLs and HTTP statuses kept."""
    b = page(browser, static_site)
    reasons = [
        "no relay answered round 12 in time (https://a.example: HTTP 503; https://b.example: Timeout was reached)",
        "no relay served a valid round 12 (https://a.example: signature does not verify under the chain's public key; "
        "https://b.example: answered round 11)",
        "relays disagree on round 12",
        "no relay answered round 12 in time (https://a.example: no answer; https://b.example: Couldn't connect to server)",
        "something new",
    ]
    said = {}
    for lang in ("en", "zh"):
        result_of(run_module(b, "/js/lib/i18n.js", "m.setLang(args[0]); return true;", lang))
        said[lang] = result_of(run_module(b, "/js/lib/beacon-reason.js", "return args[0].map(m.beaconReasonText);", reasons))
    assert said["zh"] == [
        "未按时应答：https://a.example: HTTP 503；https://b.example: 超时",
        "所有中继提供的值均无效：https://a.example: 签名无法用该链的公钥验证；https://b.example: 应答的是第 11 轮",
        "各中继对第 12 轮的值不一致",
        "未按时应答：https://a.example: 无应答；https://b.example: 连接被拒绝",
        "something new",  # what no table knows is shown as it came
    ]
    assert said["en"][0] == "no answer in time: https://a.example: HTTP 503; https://b.example: timed out"
