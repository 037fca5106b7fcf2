#!/usr/bin/env python3
"""Records glibc's results for cmath's tests: python3's math module calls
the C library's functions (on the machine this ran on: Debian 12,
glibc 2.36, the libm of redis-server 7.0.15's Lua).

    python3 testdata/gen_glibc.py > testdata/glibc.txt

Line: function, x, y (or -), result, as big-endian hex of the doubles;
"dom" for a domain error (NaN), "ovf" for an overflow (an infinity).
Functions named with a trailing ! are special arguments that must match
exactly; the others are seeded random arguments, where cmath may differ
from glibc in the few cases glibc is not correctly rounded. Left out of the
special ones: log and log10 of zero (python raises where C returns -inf),
and two arguments where glibc is not correctly rounded and cmath is
(checked with mpmath): exp(2**-26) and cos, tan of 6381956970095103 * 2**797.
cmath's pow is glibc's algorithm, so every pow line must match exactly,
exact half-way cases (which glibc rounds by the sign of its own error, not
to even) among them: the last section records a few thousand of the hard
kinds (x86-64 with FMA: glibc's ifunc picks __pow_fma; without FMA a few
of these differ). TestPowAgainstLibc compares a million more when gcc is
installed.
"""
import math
import random
import struct

random.seed(20261125)
N = 500


def h(x):
    return struct.pack('>d', x).hex()


def wide():
    return math.copysign(math.ldexp(random.random() + 0.5, random.randint(-1074, 1023)), random.choice([1, -1]))


def u(lo, hi):
    return random.uniform(lo, hi)


def call(f, *a):
    try:
        return h(f(*a))
    except ValueError:
        return 'dom'
    except OverflowError:
        return 'ovf'


def emit(name, f, args):
    for a in args:
        if not isinstance(a, tuple):
            a = (a,)
        r = call(f, *a)
        print(name, h(a[0]), h(a[1]) if len(a) > 1 else '-', r)


tiny = [5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, -1e-310, 1e-300, 2**-30, 2**-28, 2**-27, 2**-26, 2**-55, 2**-60, 1e-17]
edge = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, math.inf, -math.inf, math.nan, 1.7976931348623157e308, -1.7976931348623157e308] + tiny
ONE = {
    'exp': (math.exp, [a for a in edge if a != 2**-26] + [709.78, 709.7827128933840, 709.79, -708.39, -745.13, -745.14, -744.44, -740, -730, -720.5, 1e-10, 100, -100]),
    'log': (math.log, edge[2:] + [1 + 2**-52, 1 - 2**-53, 0.9999999999999, 1.0000000001, 2**1023, 2**-1074, 3e-320, 10, 1e300]),
    'sin': (math.sin, edge + [math.pi, math.pi / 2, 1e22, 1e300, 2**28, 2**30, 6381956970095103 * 2**797, 1e6, 100, 355]),
    'cos': (math.cos, edge + [math.pi, math.pi / 2, 1e22, 1e300, 2**28, 2**30, 1e6, 100, 355]),
    'tan': (math.tan, edge + [math.pi, math.pi / 2, 1e22, 1e300, 2**28, 2**30, 1e6, 100, 355]),
    'atan': (math.atan, edge + [1e17, -1e17, 1e300, 2**60, 3, 0.1]),
    'asin': (math.asin, edge + [1 + 2**-52, 1 - 2**-53, -1 + 2**-53, 0.99999, 0.7, 2]),
    'acos': (math.acos, edge + [1 + 2**-52, 1 - 2**-53, -1 + 2**-53, 0.99999, 0.7, 2]),
    'log10': (math.log10, edge[2:] + [10, 100, 1000, 1e22, 1e-5, 1e300, 2**-1074, 3e-320, 0.1]),
    'sinh': (math.sinh, edge + [22, -22, 21.99, 709.78, 710.47, 710.48, -710.47, 0.3, 1e-9]),
    'cosh': (math.cosh, edge + [22, -22, 21.99, 709.78, 710.47, 710.48, -710.47, 0.3465, 0.35, 1e-9]),
    'tanh': (math.tanh, edge + [22, -22, 21.99, 0.99, 1, 1e-9, 19.06]),
}
pw = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 10, 1e308, -1e308, 5e-324, -5e-324, math.inf, -math.inf, math.nan, 0.1, 1e-5, 1 + 2**-52, 1.5, 53, -53, 1075, -1075, 1e30, 2**53 + 1]
POW = [(x, y) for x in pw for y in pw if not (x == 0 and y < 0)]
POW += [(94906267.0, 2.0), (94906269.0, 2.0), (134217727.0, 2.0), (3.0, 33.0), (5.0, 23.0), (7.0, 19.0), (10.0, 22.0), (10.0, -3.0), (2.0, -1074.0), (2.0, -1075.0), (3.0, -678.0), (0.5, 1074.0), (1.5, -1800.0), (-2.0, 1023.0), (-2.0, 1024.0), (-3.0, 3.0), (-1.5, -1800.0), (9.0, 0.5), (2.0, 0.5), (10, 308.0), (10, 309.0), (10, -323.0), (10, -324.0)]

for name, (f, args) in ONE.items():
    emit(name + '!', f, args)
emit('pow!', math.pow, POW)
emit('atan2!', math.atan2, [(y, x) for y in edge[:11] for x in edge[:11]] + [(1e-300, 1e300), (-1e-300, -1e300), (1e300, -1e-300), (1, -1e20), (-1, -1e20)])

for i in range(N):
    emit('exp', math.exp, [u(-745.2, 709.8) if i % 4 else u(-2, 2)])
    emit('log', math.log, [abs(wide()) if i % 2 else u(0.5, 2)])
    x = abs(wide()) if i % 3 == 0 else u(0, 20)
    y = u(-30, 30) if i % 3 else u(-1, 1)
    if i % 5 == 0:
        x, y = u(-10, 10), float(random.randint(-40, 40))
    if x != 0:
        emit('pow', math.pow, [(x, y)])
    for name in ('sin', 'cos', 'tan'):
        emit(name, getattr(math, name), [u(-10, 10) if i % 3 == 0 else (u(-1e6, 1e6) if i % 3 == 1 else wide())])
    emit('atan', math.atan, [wide() if i % 2 else u(-5, 5)])
    emit('asin', math.asin, [u(-1, 1) if i % 2 else math.ldexp(random.random(), -random.randint(0, 60))])
    emit('acos', math.acos, [u(-1, 1) if i % 2 else -math.ldexp(random.random(), -random.randint(0, 60))])
    emit('atan2', math.atan2, [(wide() if i % 2 else u(-5, 5), wide() if i % 3 else u(-5, 5))])
    emit('log10', math.log10, [abs(wide()) if i % 2 else u(0, 100)])
    for name in ('sinh', 'cosh', 'tanh'):
        x = u(-30, 30) if i % 3 else u(-1, 1)
        if i % 7 == 0:
            x = u(-710, 710)
        emit(name, getattr(math, name), [x])

# pow's hard cases, from their own generator so that the lines above stay.
rp = random.Random(20261127)
HARD = [(123456789.0, 2.0), (3.0, 34.0), (10.0, 23.0), (1 - 2**-53, -1.0), (1 - 2**-53, 0.5)]
for i in range(400):  # odd x in (9.49e7, 1.34e8): x*x is half-way
    HARD.append((float(94906267 + 2 * rp.randrange(19500000)), 2.0))
for i in range(500):  # integers of 26.5 to 53 bits to integer powers
    b = rp.randint(27, 53)
    x = float(rp.randrange(1 << (b - 1), 1 << b))
    HARD.append((x, float(rp.randint(2, max(2, 1100 // b)))))
for i in range(300):  # small integers and halves to integer powers
    HARD.append((rp.randint(1, 4096) / 2.0**rp.randint(0, 7), float(rp.randint(2, 64))))
for i in range(300):  # negative bases to integer powers
    x = -float(rp.randrange(1, 1 << rp.randint(1, 53))) * 2.0**rp.randint(-20, 20)
    HARD.append((x, float(rp.randint(-65, 65))))
for i in range(500):  # near overflow, underflow and subnormal results
    x = math.exp((rp.random() - 0.5) * 200)
    if x == 1:
        continue
    y = (rp.choice([1024, -1022, -1074, -1075, -1000]) + (rp.random() - 0.5) * 8) / math.log2(x)
    if i % 3 == 0:
        y = float(round(y))
        x = rp.choice([x, -x])
    HARD.append((x, y))
for i in range(300):  # x near 1, huge y
    HARD.append((1 + rp.randint(-1000, 1000) * 2.0**-52, rp.choice([1, -1]) * math.ldexp(rp.random() + 0.5, rp.randint(30, 64))))
for i in range(300):  # huge and tiny y
    HARD.append((rp.random() * 4, rp.choice([1, -1]) * math.ldexp(rp.random() + 0.5, rp.randint(-70, 70))))
for i in range(200):  # subnormal x
    HARD.append((struct.unpack('>d', rp.getrandbits(52).to_bytes(8, 'big'))[0], (rp.random() - 0.3) * 2))
for i in range(300):  # random doubles
    x, y = (struct.unpack('>d', rp.getrandbits(64).to_bytes(8, 'big'))[0] for _ in range(2))
    HARD.append((x, y))
emit('pow!', math.pow, [(x, y) for x, y in HARD if x == x and y == y and not (x == 0 and y < 0)])
