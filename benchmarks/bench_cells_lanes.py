"""The cell kernels in NumPy across resamples ("lanes") against numba's: same bits, the time.

A first ``compare`` in a new process pays numba's set-up when it loads its
first kernel from the cache (~0.3 s of CPU). Drawing the cells of small work
without numba would skip it, if a NumPy path gave the kernels' bits in less
time. This script holds such a path, :func:`permutation_sums_cells` and
:func:`bootstrap_sums_cells`: cell by cell, one NumPy operation over all
resamples at a time, each resample keeping its own counter, the samplers of
:mod:`sigtest._engine.kernels` operation by operation (the popcount of
Binomial(n, 1/2) for ``n <= 512``, inversion for ``n p < 10``, BTRS beyond,
Hormann 1993; ``exp`` from the C library; BTRS's ``log`` test decided with
``np.log`` away from the boundary and with the C library's ``log`` in a band
around it), and sums added cell by cell in the kernels' order.

It checks the bits against the jitted kernels on random cell sets that take
every branch, then prints the CPU seconds of both (best of 5) on the cells
of a first ``compare`` of 3 systems (N = 10^4, accuracy and f1_macro,
``B = 9999``), with the load. Measured on the project's 2-core machine under
load 5-8: the lanes are 4-9x slower than the kernels (27 cells of f1_macro's
bootstrap: 0.11-0.17 s against 0.02-0.03 s), so over the three pairs of that
call they cost more than numba's set-up; ``compare`` keeps the kernels.

Run ``python benchmarks/bench_cells_lanes.py``.
"""

import math
import os
import sys
import time

import numpy as np

from sigtest._engine import kernels as K
from sigtest._engine.kernels_numpy import HALF_POPCOUNT_MAX
from sigtest._engine.rng import GOLDEN, splitmix64


_INV_2_53 = 1.0 / 9007199254740992.0
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_U56 = np.uint64(56)
_C1 = np.uint64(0x5555555555555555)
_C2 = np.uint64(0x3333333333333333)
_C4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_C8 = np.uint64(0x0101010101010101)
_STIRLING_TAIL = np.array([
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
])
#: ``log1p(-0.5)``: the last constant of Binomial(n, 1/2) beyond the popcount.
_HALF = (0.5, 0.5, 0.5, 1.0, math.log1p(-0.5))


def _uniforms(z):
    """Uniform doubles of the words at counters ``z``: ``(splitmix64(z) >> 11) * 2**-53``."""
    return (splitmix64(z) >> _U11).astype(np.float64) * _INV_2_53


def _libm(fn, x):
    """``fn`` (:func:`math.exp` or :func:`math.log`, the C library's) element by element."""
    return np.fromiter(map(fn, x.tolist()), dtype=np.float64, count=x.shape[0])


def _popcount(x):
    """Ones in each uint64 of ``x`` (SWAR, the kernels' ``_popcount``)."""
    x = x - ((x >> _U1) & _C1)
    x = (x & _C2) + ((x >> np.uint64(2)) & _C2)
    x = (x + (x >> np.uint64(4))) & _C4
    return ((x * _C8) >> _U56).astype(np.int64)


def _stirling_tail(k):
    """``log(k!)`` less Stirling's approximation, for integer-valued float64 ``k >= 0``."""
    kp1sq = (k + 1.0) * (k + 1.0)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)
    small = k <= 9
    if small.any():
        series[small] = _STIRLING_TAIL[k[small].astype(np.intp)]
    return series


def _inversion(n, consts, z):
    """Inversion by sequential search, for lanes with ``n p < 10``; ``z`` is advanced in place.

    ``pk = exp(n * log1p(-p))`` is computed once per distinct ``n``.
    """
    _, _, r, lg = consts
    z += GOLDEN
    u = _uniforms(z)
    values, which = np.unique(n, return_inverse=True)
    pk = _libm(math.exp, values * lg)[which.ravel()]
    F = pk.copy()
    k = np.zeros(n.shape[0], dtype=np.int64)
    go = np.flatnonzero((u > F) & (k < n))
    while go.shape[0]:
        kg, ng = k[go], n[go]
        pk[go] = pk[go] * r * (ng - kg) / (kg + 1)
        k[go] = kg + 1
        F[go] += pk[go]
        go = go[(u[go] > F[go]) & (k[go] < ng)]
    return k


def _btrs_setup(n, p, q):
    """BTRS's per-lane constants ``(a, b, c, v_r, alpha, m)`` for ``n`` trials."""
    stddev = np.sqrt(n * p * q)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((n + 1) * p)
    return a, b, c, v_r, alpha, m


def _btrs_terms(log, n, m, k, r, vt):
    """``(log(vt), bound, size)`` of BTRS's log test ``log(vt) <= bound``, with ``log``.

    ``size`` bounds the magnitudes the test adds up (:func:`_btrs_accept`).
    """
    t = n.shape[0]
    logs = log(np.concatenate([(m + 1) / (r * (n - m + 1)), (n - m + 1) / (n - k + 1),
                               r * (n - k + 1) / (k + 1), vt]))
    log_m, log_n, log_k, log_v = (logs[i * t:(i + 1) * t] for i in range(4))
    tails = _stirling_tail(np.concatenate([m, n - m, k, n - k]))
    tail_m, tail_nm, tail_k, tail_nk = (tails[i * t:(i + 1) * t] for i in range(4))
    t_m, t_n, t_k = (m + 0.5) * log_m, (n + 1) * log_n, (k + 0.5) * log_k
    bound = t_m + t_n + t_k + tail_m + tail_nm - tail_k - tail_nk
    size = np.abs(t_m) + np.abs(t_n) + np.abs(t_k) + 1.0
    return log_v, bound, size


def _libm_log(x):
    return _libm(math.log, x)


def _btrs_accept(n, m, k, r, vt):
    """BTRS's log test per lane, decided as with the C library's ``log``.

    ``np.log`` is within a few ulp of the C library's ``log`` (which numba's
    ``math.log`` calls), so the two decide alike wherever ``log(vt)`` and the
    bound differ by more than what a few ulp of every term can move them:
    the band is ``2**-30`` of the terms' magnitudes, ~10**5 times that. The
    lanes in the band (almost never any) are decided again with
    :func:`math.log`, element by element.
    """
    with np.errstate(divide="ignore"):  # vt = 0.0: log = -inf, as in the kernel
        lv, bound, size = _btrs_terms(np.log, n, m, k, r, vt)
    accept = lv <= bound
    finite = np.isfinite(lv)
    close = finite & (np.abs(lv - bound) <= (size + np.abs(np.where(finite, lv, 0.0))) * 2.0**-30)
    if close.any():
        lv, bound, _ = _btrs_terms(_libm_log, n[close], m[close], k[close], r, vt[close])
        accept[close] = lv <= bound
    return accept


#: Rounds of BTRS's loop drawn at once for the lanes the first round left in it
#: (each round is a pair of words; fewer NumPy passes, a few rounds drawn in vain).
_SPECULATIVE_ROUNDS = 4


def _btrs_rounds(lanes, R, r):
    """``R`` rounds of BTRS for every lane of ``lanes``: ``(done, k)`` of shape (L, R).

    Round ``j`` of a lane uses the words at counters ``zz + (2j+1) G`` (``u``)
    and ``zz + (2j+2) G`` (``v``): the words the kernel's loop takes.
    """
    _, zz, nl, a, b, c, v_r, alpha, m = lanes
    steps = np.arange(1, 2 * R + 1, dtype=np.uint64) * GOLDEN
    w = _uniforms(zz[:, None] + steps[None, :])
    u, v = w[:, 0::2] - 0.5, w[:, 1::2]
    us = 0.5 - np.abs(u)
    kg = np.floor((2.0 * a[:, None] / us + b[:, None]) * u + c[:, None])
    done = (us >= 0.07) & (v <= v_r[:, None])
    test = ~done & (kg >= 0) & (kg <= nl[:, None])
    if test.any():
        rows, cols = np.nonzero(test)
        ut = us[rows, cols]
        vt = v[rows, cols] * alpha[rows] / (a[rows] / (ut * ut) + b[rows])
        done[rows, cols] = _btrs_accept(nl[rows], m[rows], kg[rows, cols], r, vt)
    return done, kg


def _btrs(n, consts, z):
    """BTRS for lanes with ``n p >= 10``; ``z`` is advanced in place.

    A lane leaves the loop on the squeeze (``us >= 0.07 and v <= v_r``) or
    when its ``log`` test accepts, with the ``k`` and the counter of that
    round. The first pass draws one round for every lane; later passes draw
    :data:`_SPECULATIVE_ROUNDS` rounds for the lanes still in the loop (their
    constants kept side by side, compacted as lanes leave) and keep each
    lane's first accepted round.
    """
    p, q, r, _ = consts
    nf = n.astype(np.float64)
    k = np.zeros(n.shape[0])
    lanes = (np.arange(n.shape[0]), z.copy(), nf, *_btrs_setup(nf, p, q))
    R = 1
    while lanes[0].shape[0]:
        done, kg = _btrs_rounds(lanes, R, r)
        left = ~done.any(axis=1)
        fin = np.flatnonzero(~left)
        first = done[fin].argmax(axis=1)
        idx, zz = lanes[0], lanes[1]
        k[idx[fin]] = kg[fin, first]
        z[idx[fin]] = zz[fin] + (2 * first + 2).astype(np.uint64) * GOLDEN
        lanes = tuple(x[left] for x in lanes)
        lanes[1][:] += np.uint64((2 * R * int(GOLDEN)) % 2**64)
        R = _SPECULATIVE_ROUNDS
    return k.astype(np.int64)


def binomial_lanes(n, consts, z):
    """Binomial(n_b, p0) of every lane ``b`` from counter ``z_b``: the kernels' ``_binomial_pre``.

    Parameters
    ----------
    n : ndarray of shape (B,), int64
        Trials per lane.
    consts : sequence of 5 floats
        ``(p0, p, q, r, lg)``: ``p = min(p0, 1 - p0)``, ``q = 1 - p``,
        ``r = p / q`` and ``lg = log1p(-p)`` (a row of
        :func:`sigtest._engine.kernels._cell_probabilities`).
    z : ndarray of shape (B,), uint64
        Counters, advanced in place past each lane's draws.

    Returns
    -------
    k : ndarray of shape (B,), int64
    """
    p0, p, q, r, lg = (float(v) for v in consts)
    k = np.zeros(n.shape[0], dtype=np.int64)
    if p0 <= 0.0:
        return k
    if p0 >= 1.0:
        return np.maximum(n, 0)
    small = (n * p) < 10.0
    for lanes, draw in ((np.flatnonzero((n > 0) & small), _inversion),
                        (np.flatnonzero((n > 0) & ~small), _btrs)):
        if lanes.shape[0]:
            zl = z[lanes]
            k[lanes] = draw(n[lanes], (p, q, r, lg), zl)
            z[lanes] = zl
    if p0 > 0.5:
        k = np.where(n > 0, n - k, k)
    return k


def _binomial_half_lanes(n, z):
    """Binomial(n, 1/2) of every lane for the same ``n``; ``z`` is advanced in place."""
    B = z.shape[0]
    if n <= 0:
        return np.zeros(B, dtype=np.int64)
    if n > HALF_POPCOUNT_MAX:
        return binomial_lanes(np.full(B, n, dtype=np.int64), _HALF, z)
    k = np.zeros(B, dtype=np.int64)
    for rem in range(n, 0, -64):
        z += GOLDEN
        x = splitmix64(z)
        if rem < 64:
            x &= (_U1 << np.uint64(rem)) - _U1
        k += _popcount(x)
    return k


#: Lanes drawn together: their arrays stay at most 32 KiB (NumPy's temporaries
#: beyond ~64 KiB come from fresh pages on every allocation here, several times
#: slower per lane). Lanes are independent: the block does not change the bits.
LANE_BLOCK = 1 << 15


def _sums_by_block(rows, keys, draws):
    """``out[b] = sum_c float(x[b, c]) * rows[c]`` in cell order, ``x`` drawn block by block.

    ``draws(z)`` yields each cell's ``x`` for the lanes of counters ``z``, in
    cell order (advancing ``z``); the products go through one buffer.
    """
    B, s = keys.shape[0], rows.shape[1]
    out = np.zeros((B, s))
    tmp = np.empty((min(B, LANE_BLOCK), s))
    for start in range(0, B, LANE_BLOCK):
        z = np.array(keys[start:start + LANE_BLOCK], dtype=np.uint64)
        block, buf = out[start:start + z.shape[0]], tmp[:z.shape[0]]
        for c, x in enumerate(draws(z)):
            np.multiply(x.astype(np.float64)[:, None], rows[c][None, :], out=buf)
            np.add(block, buf, out=block)
    return out


def permutation_sums_cells(diff, counts, keys):
    """``kernels._permutation_sums_cells``, lanes in NumPy (same bits).

    Parameters
    ----------
    diff : ndarray of shape (G, s), float64
    counts : ndarray of shape (G,), int64
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    swapped : ndarray of shape (B, s)
    """
    cells = [int(c) for c in counts]

    def draws(z):
        for n in cells:
            yield _binomial_half_lanes(n, z)

    return _sums_by_block(diff, keys, draws)


def bootstrap_sums_cells(cell_stats, m, keys, consts):
    """``kernels._bootstrap_sums_cells``, lanes in NumPy (same bits).

    Parameters
    ----------
    cell_stats : ndarray of shape (C, s), float64
    m : int
        Draws per resample.
    keys : ndarray of shape (B,), uint64
    consts : ndarray of shape (C, 5)
        :func:`sigtest._engine.kernels._cell_probabilities` of the counts.

    Returns
    -------
    sums : ndarray of shape (B, s)
    """
    C = cell_stats.shape[0]

    def draws(z):
        remaining = np.full(z.shape[0], int(m), dtype=np.int64)
        for c in range(C):
            x = binomial_lanes(remaining, consts[c], z) if c < C - 1 else remaining.copy()
            remaining -= x
            yield x

    return _sums_by_block(cell_stats, keys, draws)


def _check_bits(n_sets=200, seed=1):
    """Random cell sets through both paths; the number of sets whose bits differ."""
    rng = np.random.default_rng(seed)
    bad = 0
    for _ in range(n_sets):
        G, s, B = int(rng.integers(1, 30)), int(rng.integers(1, 5)), int(rng.integers(1, 3000))
        counts = rng.integers(1, rng.choice([5, 50, 600, 5000, 100000]), G).astype(np.int64)
        rows = rng.normal(size=(G, s))
        keys = rng.integers(0, 2**64, B, dtype=np.uint64)
        bad += K._permutation_sums_cells(rows, counts, keys).tobytes() != \
            permutation_sums_cells(rows, counts, keys).tobytes()
        m = int(rng.choice([counts.sum(), rng.integers(1, 3 * counts.sum())]))
        consts = K._cell_probabilities(counts)
        bad += K._bootstrap_sums_cells(rows, counts, np.int64(m), keys, consts).tobytes() != \
            bootstrap_sums_cells(rows, m, keys, consts).tobytes()
    return bad


def _best(call, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        call()
        times.append(time.process_time() - t0)
    return min(times)


# the cells of one pair of a first compare (3 classes, N = 10^4): f1_macro's
# 27 occupied cells (18 discordant), accuracy's 4 (2 discordant)
F1_CELLS = [2220, 211, 227, 257, 41, 26, 277, 29, 42, 23, 236, 23, 211, 2303, 207, 23, 275, 26,
            36, 27, 268, 31, 45, 289, 217, 211, 2219]
ACCURACY_CELLS = [6742, 1284, 1602, 372]


def main():
    bad = _check_bits()
    print(f"random cell sets whose bits differ: {bad} of 400 (load {os.getloadavg()[0]:.2f})")
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**64, 9999, dtype=np.uint64)
    print(f"\n{'cells (B = 9999)':32s} {'numba':>8s} {'lanes':>8s}  ratio  (CPU s, best of 5)")
    for label, counts, kind in [("bootstrap, f1_macro (27)", F1_CELLS, "boot"),
                                ("bootstrap, accuracy (4)", ACCURACY_CELLS, "boot"),
                                ("permutation, f1_macro (18)", F1_CELLS[1:19], "perm"),
                                ("permutation, accuracy (2)", ACCURACY_CELLS[1:3], "perm")]:
        counts = np.asarray(counts, dtype=np.int64)
        rows = rng.normal(size=(counts.shape[0], 15))
        if kind == "boot":
            consts = K._cell_probabilities(counts)
            m = np.int64(counts.sum())
            jit = lambda: K._bootstrap_sums_cells(rows, counts, m, keys, consts)  # noqa: E731
            lanes = lambda: bootstrap_sums_cells(rows, int(m), keys, consts)  # noqa: E731
        else:
            jit = lambda: K._permutation_sums_cells(rows, counts, keys)  # noqa: E731
            lanes = lambda: permutation_sums_cells(rows, counts, keys)  # noqa: E731
        jit()  # loaded or compiled: not timed
        t_jit, t_lanes = _best(jit), _best(lanes)
        print(f"{label:32s} {t_jit:8.4f} {t_lanes:8.4f}  {t_lanes / t_jit:5.1f}  "
              f"load {os.getloadavg()[0]:.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
