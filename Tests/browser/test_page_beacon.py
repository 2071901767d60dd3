"""Beacon-sealed rounds (docs/FAIRNESS.md §13) in the page's recheck: every round of the engine's
beacon sample (sealed by quicknet round 1000) verifies in the page, and a tampered drand value
or a round that left its lock fails with the rule the script names."""
import json
import os

from test_page_lib import page, result_of, run_module

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "fixtures", "sample-export-beacon.json")

CHECK = """
    return m.verifyExport(args[0]).map((o) => [o.index, o.ok, o.reason ?? null]);
"""


def test_the_page_rechecks_sealed_rounds_and_refuses_tampering(browser, static_site):
    with open(FIXTURE, encoding="utf-8") as f:
        export = json.load(f)
    b = page(browser, static_site)
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, export)) == [[2, True, None], [8, True, None]]

    value = json.loads(json.dumps(export))
    value["records"][7]["randomness"] = "00" * 32
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, value)) == [
        [2, True, None], [7, False, "randomness is not SHA-256(signature)"], [8, False, "beacon round without its value"]]

    moved = json.loads(json.dumps(export))
    moved["records"][8]["audience"] = "2024"
    outcome = result_of(run_module(b, "/js/lib/verify.js", CHECK, moved))
    assert outcome[1] == [8, False, "round differs from its beacon lock"]

    # Without its lock the sealed round's winners do not come from the seed: the page says so.
    alone = {"records": [r for r in export["records"] if r["kind"] not in ("beacon", "beaconValue", "beaconVoid")]}
    assert result_of(run_module(b, "/js/lib/verify.js", CHECK, alone))[1][2].startswith("winners differ")
