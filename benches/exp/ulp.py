# The kernel of runtime/src/ops/unary/exp.rs, step for step in Python floats (IEEE
# doubles, round to nearest, no FMA), against mpmath's exp at 40 digits: the true error
# in ulps of the correctly rounded result's binade.
# Usage: python3 ulp.py SEED COUNT (needs mpmath); 4·10⁵ inputs take a few minutes.
import struct, random, math, sys
import mpmath as mp
mp.mp.dps = 40
def fb(b): return struct.unpack('<d', struct.pack('<Q', b))[0]
def tb(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
SHIFT = 6755399441055744.0
LN2_HI = fb(0x3FE62E42FEE00000); LN2_LO = fb(0x3DEA39EF35793C76)
C = [fb(b) for b in [0x3FC5555555555556,0x3FA5555555555556,0x3F811111111109B3,0x3F56C16C16C15DC7,0x3F2A01A01A7C3EF3,0x3EFA01A01A935F37,0x3EC71DE0DAF2531F,0x3E927E4D4D4ACAC4,0x3E5AF38A7CB3D695,0x3E21F7F264E8D299]]
LOG2E = 1.4426950408889634
def pow2(k): return fb((tb(k + (SHIFT + 1023.0)) << 52) & 0xFFFFFFFFFFFFFFFF)
def exp_k(x):
    x = 710.0 if x > 710.0 else (-746.0 if x < -746.0 else x)
    k = (x * LOG2E + SHIFT) - SHIFT
    hi = x - k * LN2_HI; lo = k * LN2_LO; r = hi - lo
    t = r * r
    p = C[9]
    for c in reversed(C[:9]): p = c + r * p
    w = 0.5 * t + t * (r * p)
    s = 1.0 + hi; e = (1.0 - s) + hi
    y = s + ((e - lo) + w)
    k1 = (k * 0.5 + SHIFT) - SHIFT; k2 = k - k1
    return y * pow2(k1) * pow2(k2)
def ulp_of(v):  # ulp of the binade of the exact value v (subnormal grid below 2^-1022)
    if v < 2.0**-1022: return mp.mpf(2)**-1074
    e = mp.floor(mp.log(v, 2)); return mp.mpf(2)**(e - 52)
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
worst = (0, None)
for i in range(n):
    m = i % 4
    if m == 0: x = random.uniform(-745.1, 709.78)
    elif m == 1: x = random.uniform(-745.1, -708.3)
    elif m == 2: x = random.uniform(-0.35, 0.35)
    else: x = random.uniform(-1, 1) * 2.0**random.uniform(-30, 9.47)
    y = exp_k(x)
    v = mp.exp(mp.mpf(x))
    if v > mp.mpf(fb(0x7FEFFFFFFFFFFFFF)): continue
    err = abs(mp.mpf(y) - v) / ulp_of(v)
    if err > worst[0]: worst = (err, x)
print('max error %s ulp at x = %r over %d inputs' % (mp.nstr(worst[0], 6), worst[1], n))
