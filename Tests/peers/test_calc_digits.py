"""Digits on demand (`tombola calc --digits 2000`) checked against mpmath at 2,100 and 2,200
digits: random seeded key sequences in basic mode and in scientific mode (precedence) in
radians and degrees, results near a digit boundary (sin and cos near π/2) and huge and tiny
results. Every digit the engine prints must be the reference's truncated expansion.

A case is checked only where the reference is sure of it: the reference's 16-digit display
at 90 digits agrees with the one at 2,100 (so the engine's exactness rules, which snap values
within 2^-360 of a small fraction or of zero, made the same choice), the two high precisions
give the same 2,000 digits, and the value is not within 10^-30 of a digit boundary.

    TOMBOLA_BIN=.build/debug/tombola .venv/bin/python -m pytest -q Tests/peers/test_calc_digits.py

Environment: CALC_SEED, CALC_DIGITS_COUNT (sequences per mode, default 80).
"""

import os
import pathlib
import random
import subprocess
import sys
from fractions import Fraction

import mpmath
from mpmath import mpf

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import calc_reference as ref  # noqa: E402
import test_calc_reference as seq  # noqa: E402

DIGITS = 2000
SEED = int(os.environ.get("CALC_SEED", "20251203"))
COUNT = int(os.environ.get("CALC_DIGITS_COUNT", "80"))


def engine_digits(sequences, mode, degrees=False):
    args = [seq.BIN, "calc", "--batch", "--digits", str(DIGITS), "--mode", mode] + (["--deg"] if degrees else [])
    text = "".join(" ".join(keys) + "\n" for keys in sequences)
    result = subprocess.run(args, input=text, capture_output=True, text=True, timeout=900, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == len(sequences)
    # A value the engine identified as exact (√2² = 2) and could not tell apart from its
    # recomputation says so; the reference then holds the same exact value.
    return [line.removesuffix(" (identified as exact, not proven)") for line in lines]


def expansion(x):
    """`-1.4142…` with DIGITS digits after the point, truncated; None when x is too close to a
    digit boundary for the working precision to tell."""
    if ref.is_exact(x):
        if x == 0:
            return "0." + "0" * DIGITS + " (exactly zero)"
        a = abs(x)
        scaled = a.numerator * 10 ** DIGITS // a.denominator
    else:
        if x == 0:
            return None
        a = abs(x) * mpf(10) ** DIGITS
        scaled = int(mpmath.floor(a))
        rest = a - scaled
        if rest < mpf(10) ** -30 or rest > 1 - mpf(10) ** -30:
            return None
    integer, fraction = divmod(scaled, 10 ** DIGITS)
    return ("-" if x < 0 else "") + str(integer) + "." + str(fraction).zfill(DIGITS)


def reference(compute):
    """The expected line for a case whose value `compute()` gives at the current precision, or
    None when the reference cannot be sure (see the module's doc)."""
    values = []
    with mpmath.workdps(90):
        try:
            first = compute()
        except (ref.Ambiguous, ref.CalcError):
            return None
    # a huge value needs its integer digits on top of the 2,000 after the point
    magnitude = 0 if first == 0 else max(0, int(mpmath.floor(mpmath.log10(abs(ref.to_mpf(first))))))
    for dps in (90, DIGITS + 100 + magnitude, DIGITS + 200 + magnitude):
        with mpmath.workdps(dps):
            try:
                value = compute()
            except (ref.Ambiguous, ref.CalcError):
                return None
            values.append((value, ref.format_value(value) if value is not None else None,
                           expansion(value) if dps > 90 and value is not None else None))
    (_, shown90, _), (v1, shown1, digits1), (_, _, digits2) = values
    if v1 is None or shown90 != shown1 or digits1 is None or digits1 != digits2:
        return None
    return digits1


def scientific_value(tokens, degrees):
    outcome = seq.evaluate(tokens, degrees)
    if outcome[0] != "value":
        raise ref.CalcError(outcome[1])
    return outcome[1]


def basic_value(keys):
    model = seq.BasicModel()
    for key in keys:
        model.press(key)
    if model.error is not None:
        raise ref.CalcError(model.error)
    return model.commit()


def check(cases, mode, degrees=False):
    """cases: (keys, compute) pairs. Returns (checked, skipped, mismatches)."""
    sequences, expected = [], []
    skipped = 0
    for keys, compute in cases:
        line = reference(compute)
        if line is None:
            skipped += 1
            continue
        sequences.append(keys)
        expected.append(line)
    got = engine_digits(sequences, mode, degrees) if sequences else []
    mismatches = []
    for keys, e, g in zip(sequences, expected, got):
        if e != g:
            at = next((i for i, (a, b) in enumerate(zip(e, g)) if a != b), min(len(e), len(g)))
            mismatches.append((" ".join(keys), at, e[max(0, at - 10):at + 10], g[max(0, at - 10):at + 10]))
    print(f"{mode} degrees={degrees}: {len(sequences)} checked, {skipped} skipped, {len(mismatches)} mismatches")
    return len(sequences), skipped, mismatches


def scientific_cases(rng, degrees):
    cases = []
    for tokens in seq.scientific_cases(rng, COUNT):
        keys = [key for token in tokens for key in seq.keys_of(token)]
        cases.append((keys, lambda tokens=tokens: scientific_value(tokens, degrees)))
    return cases


def test_scientific_radians_digits_match_mpmath():
    checked, _, mismatches = check(scientific_cases(random.Random(SEED), False), "scientific")
    assert checked >= COUNT * 0.5
    assert not mismatches, f"seed {SEED}: {mismatches[:3]}"


def test_scientific_degrees_digits_match_mpmath():
    checked, _, mismatches = check(scientific_cases(random.Random(SEED + 1), True), "scientific", degrees=True)
    assert checked >= COUNT * 0.5
    assert not mismatches, f"seed {SEED + 1}: {mismatches[:3]}"


def test_basic_digits_match_mpmath():
    rng = random.Random(SEED + 2)
    keys_list = [[rng.choice(seq.BASIC_KEYS) for _ in range(rng.randint(3, 30))] for _ in range(COUNT)]
    cases = [(keys, lambda keys=keys: basic_value(keys)) for keys in keys_list]
    checked, _, mismatches = check(cases, "basic")
    assert checked >= COUNT * 0.5
    assert not mismatches, f"seed {SEED + 2}: {mismatches[:3]}"


def typed(text):
    return list(text)


# Results a digit boundary away (0.99999…) and huge or tiny ones, each with its value in mpmath.
BOUNDARY_RADIANS = [
    (typed("1.570796326794897") + ["sin"], lambda: mpmath.sin(mpf("1.570796326794897"))),
    (typed("1.570796326794897") + ["cos"], lambda: mpmath.cos(mpf("1.570796326794897"))),
    (["pi", "/", "2", "+", "1", "EE", "2", "0", "neg", "=", "sin"], lambda: mpmath.sin(mpmath.pi / 2 + mpf(10) ** -20)),
    (["pi", "/", "2", "-", "1", "EE", "3", "0", "neg", "=", "cos"], lambda: mpmath.cos(mpmath.pi / 2 - mpf(10) ** -30)),
    (["1", "EE", "2", "5", "neg", "cos"], lambda: mpmath.cos(mpf(10) ** -25)),
    (["pi", "*", "1", "0", "^", "1", "5", "0", "0", "="], lambda: mpmath.pi * mpf(10) ** 1500),
    (["e", "/", "1", "0", "^", "1", "5", "0", "0", "="], lambda: mpmath.e / mpf(10) ** 1500),
    (["3", "exp", "^", "1", "0", "0", "0", "="], lambda: mpmath.exp(3) ** 1000),
    (["1", "/", "7", "/", "1", "0", "^", "1", "9", "9", "0", "="], lambda: Fraction(1, 7 * 10 ** 1990)),
    (["2", "sqrt", "-", "1", ".", "4", "1", "4", "2", "1", "3", "5", "6", "2", "3", "7", "3", "0", "9", "5", "="],
     lambda: mpmath.sqrt(2) - mpf("1.414213562373095")),
]
BOUNDARY_DEGREES = [
    (typed("89.99999999") + ["sin"], lambda: mpmath.sin(mpmath.radians(mpf("89.99999999")))),
    (typed("89.99999999") + ["cos"], lambda: mpmath.cos(mpmath.radians(mpf("89.99999999")))),
    (typed("0.0000001") + ["tan"], lambda: mpmath.tan(mpmath.radians(mpf("0.0000001")))),
]


def test_digits_near_boundaries_and_at_extreme_scales_match_mpmath():
    checked, skipped, mismatches = check(BOUNDARY_RADIANS, "scientific")
    assert not mismatches, mismatches[:3]
    checked_deg, skipped_deg, mismatches_deg = check(BOUNDARY_DEGREES, "scientific", degrees=True)
    assert not mismatches_deg, mismatches_deg[:3]
    # every hand-made case is one the reference is sure of
    assert skipped == 0 and skipped_deg == 0
