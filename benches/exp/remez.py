# The minimax fit of the exp kernel (runtime/src/ops/unary/exp.rs, step 4): a Remez
# exchange for P(r) ~ (e^r - 1 - r - r^2/2) / r^3 on |r| <= 0.3466, degrees 8 and 9, in
# 60-digit arithmetic, then the error of the fit with its coefficients rounded to f64.
# Needs mpmath (python3 -m pip install mpmath); runs in ~30 s.
import mpmath as mp
mp.mp.dps = 60
a = mp.mpf('0.3466')
def g(r):
    # (e^r - 1 - r - r^2/2) / r^3, by its series near 0
    if abs(r) < mp.mpf('1e-8'):
        return mp.mpf(1)/6 + r/24 + r*r/120
    return (mp.exp(r) - 1 - r - r*r/2) / r**3
def remez(deg, iters=20):
    n = deg + 2
    xs = [a*mp.cos(mp.pi*(n-1-i)/(n-1)) for i in range(n)]
    for it in range(iters):
        A = mp.matrix(n, n); b = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            for j in range(deg+1): A[i, j] = x**j
            A[i, deg+1] = (-1)**i
            b[i] = g(x)
        sol = mp.lu_solve(A, b)
        c = [sol[j] for j in range(deg+1)]; E = sol[deg+1]
        err = lambda x: g(x) - sum(c[j]*x**j for j in range(deg+1))
        # locate extrema between sign changes on a dense grid
        N = 4000
        grid = [-a + 2*a*i/N for i in range(N+1)]
        vals = [err(x) for x in grid]
        # split into runs of equal sign, take max |err| in each
        ext = []; cur = [0]
        for i in range(1, len(grid)):
            if mp.sign(vals[i]) == mp.sign(vals[cur[0]]) or vals[i] == 0: cur.append(i)
            else: ext.append(max(cur, key=lambda k: abs(vals[k]))); cur = [i]
        ext.append(max(cur, key=lambda k: abs(vals[k])))
        if len(ext) != n: print('runs', len(ext)); 
        if len(ext) >= n:
            # keep n with largest contiguous... take the n consecutive with max min
            best = max(range(len(ext)-n+1), key=lambda s: min(abs(vals[k]) for k in ext[s:s+n]))
            xs = [grid[k] for k in ext[best:best+n]]
        mx = max(abs(v) for v in vals)
    return c, E, mx
for deg in (8, 9):
    c, E, mx = remez(deg)
    cf = [float(x) for x in c]
    # error of the double coefficients, in w = r^3 * P(r), on a fine grid
    N = 20000
    worst = 0; worstrel = 0
    for i in range(N+1):
        r = -a + 2*a*i/N
        p = sum(mp.mpf(cf[j])*r**j for j in range(deg+1))
        e = abs(r**3*(p - g(r)))
        worst = max(worst, e)
    print('deg', deg, 'E', mp.nstr(E, 5), 'log2(a^3 E)', mp.nstr(mp.log(abs(E)*a**3, 2), 5), 'rounded coeffs: max |w err|', mp.nstr(worst, 5), 'log2', mp.nstr(mp.log(worst, 2), 5))
    for x in cf: print('   ', repr(x), x.hex())
