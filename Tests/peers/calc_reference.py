"""An independent reference for the calculator engine: exact rationals (fractions)
where the mathematics is rational, mpmath otherwise, and the display rules of
docs/PROTOCOL.md. Used by test_calc_reference.py.

Numbers are Fraction (exact) or mpf (approximate). Each approximate evaluation is run
at two working precisions (60 and 90 digits); a case whose 16-digit display differs
between them is ill-conditioned (a tie or a cancellation the 16 digits cannot settle)
and is reported as such rather than checked.
"""

from fractions import Fraction
import math
import sys

sys.set_int_max_str_digits(0)

import mpmath
from mpmath import mp, mpf

LIMIT_HIGH = Fraction(10) ** 10000
LIMIT_LOW = Fraction(1, 10 ** 9999)
FACTORIAL_LIMIT = 3248


class CalcError(Exception):
    """One of the protocol's error codes."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Ambiguous(Exception):
    """The reference cannot decide this case independently (exactness decides it)."""


def eps():
    """Below this relative size an inexact result is indistinguishable from zero."""
    return mpf(10) ** -(mp.dps - 12)


def is_exact(x):
    return isinstance(x, Fraction)


def to_mpf(x):
    if is_exact(x):
        return mpf(x.numerator) / x.denominator
    return x


def mpf_to_fraction(x):
    sign, man, exp, _ = x._mpf_
    value = Fraction(man) * (Fraction(2) ** exp)
    return -value if sign else value


def check(x):
    """Range check (|x| ≥ 1e10000 or 0 < |x| < 1e-9999 is overflow)."""
    if is_exact(x):
        if x == 0:
            return x
        a = abs(x)
        if a >= LIMIT_HIGH or a < LIMIT_LOW:
            raise CalcError("overflow")
        return x
    if mpmath.isnan(x):
        raise CalcError("invalid_input")
    if mpmath.isinf(x):
        raise CalcError("overflow")
    if x == 0:
        return Fraction(0)
    a = abs(x)
    if a >= mpf(10) ** 10000 or a < mpf(10) ** -9999:
        raise CalcError("overflow")
    return x


def snap(r, scale, at_least_one=False):
    """Zero when |r| is below working precision relative to `scale` (or to max(1, scale))."""
    size = abs(to_mpf(scale))
    if at_least_one:
        size = max(mpf(1), size)
    if not is_exact(r) and abs(r) < eps() * size:
        return Fraction(0)
    return r


def integer_root(n, k):
    """The exact k-th root of a non-negative integer, or None."""
    if n < 2:
        return n
    with mpmath.workdps(len(str(n)) // k + 30):
        r = int(mpmath.nint(mpmath.root(mpf(n), k)))
    for c in (r - 1, r, r + 1):
        if c >= 0 and c ** k == n:
            return c
    return None


# ---------------------------------------------------------------- arithmetic

def add(a, b):
    if is_exact(a) and is_exact(b):
        return check(a + b)
    return check(snap(to_mpf(a) + to_mpf(b), max(abs(to_mpf(a)), abs(to_mpf(b)))))


def sub(a, b):
    if is_exact(a) and is_exact(b):
        return check(a - b)
    return check(snap(to_mpf(a) - to_mpf(b), max(abs(to_mpf(a)), abs(to_mpf(b)))))


def mul(a, b):
    if a == 0 or b == 0:
        return Fraction(0)
    if is_exact(a) and is_exact(b):
        return check(a * b)
    return check(to_mpf(a) * to_mpf(b))


def div(a, b):
    if b == 0:
        raise CalcError("undefined" if a == 0 else "divide_by_zero")
    if is_exact(a) and is_exact(b):
        return check(a / b)
    return check(to_mpf(a) / to_mpf(b))


def mod(a, b):
    if b == 0:
        raise CalcError("undefined")
    if is_exact(a) and is_exact(b):
        q = a / b
        t = math.trunc(q)
        return check(a - b * t)
    # C fmod: the remainder of a truncating division (mpmath.fmod floors instead).
    x, y = to_mpf(a), to_mpf(b)
    if x == 0:
        return Fraction(0)
    q = x / y
    if abs(q) > mpf(10) ** (mp.dps - 30):
        raise Ambiguous("remainder of a huge quotient of inexact values")
    nearest = mpmath.nint(q)
    if nearest != 0 and abs(q - nearest) < eps() * abs(q):
        return Fraction(0)  # an exact multiple, within working precision
    with mpmath.workdps(mp.dps + max(0, int(mpmath.log10(abs(q)))) + 10):
        q = x / y
        t = mpmath.floor(q) if q >= 0 else mpmath.ceil(q)
        r = x - y * t
    return check(snap(+r, a))


def power(x, y):
    if y == 0:
        return Fraction(1)
    if x == 0:
        if y < 0:
            raise CalcError("divide_by_zero")
        return Fraction(0)
    if not is_exact(y):
        if x < 0:
            raise Ambiguous("negative base, inexact exponent")
        return check(mpmath.power(to_mpf(x), y))
    if y.denominator == 1:
        return integer_power(x, y.numerator)
    p, q = y.numerator, y.denominator
    if x < 0 and q % 2 == 0:
        raise CalcError("invalid_input")
    negative = x < 0 and p % 2 == 1
    base = abs(x)
    root = None
    if q > 10 ** 6:
        with mpmath.workdps(mp.dps + 10):
            result = check(+mpmath.power(to_mpf(base), mpf(p) / q))
        return -result if negative else result
    if is_exact(base):
        rn, rd = integer_root(base.numerator, q), integer_root(base.denominator, q)
        if rn is not None and rd is not None:
            root = Fraction(rn, rd)
    if root is None:
        root = check(mpmath.root(to_mpf(base), q))
    result = integer_power(root, p)
    return -result if negative else result


def integer_power(x, n):
    if x == 1:
        return Fraction(1)
    if x == -1:
        return Fraction(-1 if n % 2 else 1)
    estimate = n * mpmath.log10(abs(to_mpf(x)))
    if estimate > 10005 or estimate < -10005:
        raise CalcError("overflow")
    if is_exact(x) and abs(n) * (x.numerator.bit_length() + x.denominator.bit_length()) <= 200_000:
        return check(x ** n)
    with mpmath.workdps(mp.dps + len(str(abs(n)))):
        return check(+(to_mpf(x) ** n))


def root(x, y):
    if y == 0:
        raise CalcError("invalid_input")
    return power(x, div(Fraction(1), y))


# ---------------------------------------------------------------- functions

DEG_SIN = {0: 0, 30: Fraction(1, 2), 90: 1, 150: Fraction(1, 2), 180: 0, 210: Fraction(-1, 2), 270: -1, 330: Fraction(-1, 2)}
DEG_COS = {0: 1, 60: Fraction(1, 2), 90: 0, 120: Fraction(-1, 2), 180: -1, 240: Fraction(-1, 2), 270: 0, 300: Fraction(1, 2)}
DEG_TAN = {0: 0, 45: 1, 135: -1, 180: 0, 225: 1, 315: -1}


def trig(name, x, degrees):
    if degrees and is_exact(x):
        r = x - 360 * math.floor(x / 360)
        if r.denominator == 1:
            table = {"sin": DEG_SIN, "cos": DEG_COS, "tan": DEG_TAN}[name]
            if name == "tan" and r in (90, 270):
                raise CalcError("undefined")
            if int(r) in table:
                return Fraction(table[int(r)])
        x = r
    if is_exact(x) and x == 0:
        return Fraction(1) if name == "cos" else Fraction(0)
    if not is_exact(x) and abs(x) > mpf(10) ** (mp.dps - 30):
        # an inexact argument this large leaves the reference too few digits after reduction
        raise Ambiguous("large inexact trigonometric argument")
    arg = to_mpf(x) * mpmath.pi / 180 if degrees else to_mpf(x)
    c = mpmath.cos(arg)
    if name == "tan":
        if not is_exact(x) and abs(c) < eps() * max(mpf(1), abs(to_mpf(x))):
            raise CalcError("undefined")
        r = mpmath.tan(arg)
    elif name == "sin":
        r = mpmath.sin(arg)
    else:
        r = c
    if not is_exact(x):
        r = snap(r, x, at_least_one=True)
    return check(r)


def inverse_trig(name, x, degrees):
    if name != "atan" and (x > 1 or x < -1):
        raise CalcError("invalid_input")
    if x == 0 and name != "acos":
        return Fraction(0)
    if name == "acos" and is_exact(x) and x == 1:
        return Fraction(0)
    f = {"asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan}[name]
    r = f(to_mpf(x))
    if degrees:
        r = r * 180 / mpmath.pi
    return check(r)


def factorial(x):
    if not is_exact(x):
        raise Ambiguous("factorial of an inexact value")
    if x.denominator != 1 or x < 0:
        raise CalcError("invalid_input")
    if x > FACTORIAL_LIMIT:
        raise CalcError("overflow")
    return Fraction(math.factorial(int(x)))


def ln(x):
    if x <= 0:
        raise CalcError("invalid_input")
    if is_exact(x) and x == 1:
        return Fraction(0)
    r = mpmath.log(to_mpf(x))
    return check(r if is_exact(x) else snap(r, 1, at_least_one=True))


def log10(x):
    if x <= 0:
        raise CalcError("invalid_input")
    if is_exact(x):
        k = 0
        if x.denominator == 1 and x.numerator > 0:
            s = str(x.numerator)
            if s == "1" + "0" * (len(s) - 1):
                return Fraction(len(s) - 1)
        if x.numerator == 1:
            s = str(x.denominator)
            if s == "1" + "0" * (len(s) - 1):
                return Fraction(-(len(s) - 1))
        del k
    r = mpmath.log10(to_mpf(x))
    return check(r if is_exact(x) else snap(r, 1, at_least_one=True))


def exp(x):
    if x == 0:
        return Fraction(1)
    if x > 23100 or x < -23100:
        raise CalcError("overflow")
    return check(mpmath.exp(to_mpf(x)))


def pow10(x):
    if x > 10001 or x < -10001:
        raise CalcError("overflow")
    return power(Fraction(10), x)


def sqrt(x):
    if x < 0:
        raise CalcError("invalid_input")
    return power(x, Fraction(1, 2))


def apply_function(name, x, degrees):
    if name in ("sin", "cos", "tan"):
        return trig(name, x, degrees)
    if name in ("asin", "acos", "atan"):
        return inverse_trig(name, x, degrees)
    if name == "sqrt":
        return sqrt(x)
    if name == "sq":
        return mul(x, x)
    if name == "cube":
        return power(x, Fraction(3))
    if name == "cbrt":
        return power(x, Fraction(1, 3))
    if name == "inv":
        return div(Fraction(1), x)
    if name == "fact":
        return factorial(x)
    if name == "abs":
        return abs(x)
    if name == "neg":
        return -x
    if name == "ln":
        return ln(x)
    if name == "log":
        return log10(x)
    if name == "exp":
        return exp(x)
    if name == "pow10":
        return pow10(x)
    raise ValueError(name)


BINARY = {"+": (1, False, add), "-": (1, False, sub), "*": (2, False, mul), "/": (2, False, div),
          "mod": (2, False, mod), "^": (3, True, power), "root": (3, True, root)}


# ---------------------------------------------------------------- display

def decimal_exponent(a):
    """floor(log10(a)) of a positive Fraction."""
    e = len(str(a.numerator)) - len(str(a.denominator))
    while a < Fraction(10) ** e:
        e -= 1
    while a >= Fraction(10) ** (e + 1):
        e += 1
    return e


def is_tie(x):
    """Whether x lies exactly halfway between two 16-significant-digit values."""
    if not is_exact(x):
        x = mpf_to_fraction(x)
    if x == 0 or (x.denominator == 1 and len(str(abs(x.numerator))) <= 20):
        return False  # shown in full
    a = abs(x)
    scaled = a * Fraction(10) ** (15 - decimal_exponent(a))
    return scaled - scaled.numerator // scaled.denominator == Fraction(1, 2)


def format_value(x):
    """An exact integer of at most 20 digits in full; else 16 significant digits, a tie
    rounds half away from zero, plain for 1e-9 ≤ |x| < 1e16."""
    if is_exact(x) and x.denominator == 1 and len(str(abs(x.numerator))) <= 20:
        return str(x.numerator)
    if not is_exact(x):
        x = mpf_to_fraction(x)
    if x == 0:
        return "0"
    negative = x < 0
    a = abs(x)
    e = decimal_exponent(a)
    scaled = a * Fraction(10) ** (15 - e)
    n = scaled.numerator // scaled.denominator
    rest = scaled - n
    if rest >= Fraction(1, 2):  # on the magnitude: half away from zero
        n += 1
    if n == 10 ** 16:
        n //= 10
        e += 1
    digits = str(n).rstrip("0") or "0"
    if -9 <= e <= 15:
        if e >= 0:
            integer = digits[: e + 1].ljust(e + 1, "0")
            fraction = digits[e + 1:]
            text = integer + ("." + fraction if fraction else "")
        else:
            text = "0." + "0" * (-e - 1) + digits
    else:
        text = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + ("e-" if e < 0 else "e+") + str(abs(e))
    return ("-" if negative else "") + text
