r"""Shared resamples: one bootstrap draw of the units applied to every system at once.

Leaderboard questions (which ranks are real, which systems are tied with the
best) need the *joint* distribution of all systems' scores, so every system's
resampled score must come from the same resample of the test items (Hall &
Miller 2009; Mogstad, Romano, Shaikh & Wilhelm 2024). This module draws the
units once per resample and returns, for every system, its resampled column
sums of additive statistics: a ``(B, k, s)`` array computed with ``O(B N k)``
work, not once per pair of systems.

Units are the items, or the clusters of ``groups=`` (rows of summed
statistics, never merged, so that every system keeps the same rows), drawn
within the strata of ``strata=`` (each stratum keeps its size, R
``boot(strata=)``). Random numbers follow :mod:`sigtest._engine.rng`:
resample ``b`` of stratum ``h`` owns the key ``resample_keys(seed, B,
stream=h)[b]``, and its ``t``-th draw is the ``t``-th index in ``[0, n_h)``
of that key's stream (Lemire's multiply-shift with rejection on 32-bit
halves, as in the generic bootstrap kernel: ``kernels_numpy._indices``).
Streams belong to resamples, and each system's sums depend only on the
shared draws and its own statistics, so the output is bit-identical for any thread count and any order of the systems
(permuting the systems permutes the output).

Two kernels, each with a NumPy twin of identical output:

* counts: when every system's unit rows take few distinct values (hard
  labels: at most ``K^2`` cells ``(true, pred)``), the kernel counts how
  often each distinct row of each system is drawn (integers, exact), and the
  sums are ``sum_c count_c * row_c`` added in a fixed order. With at most
  16 distinct rows per system (0/1 and small-integer per-item scores) the
  counts are a matrix product instead (:func:`_product_sums`: each block of
  resamples' multiplicities of the units times every system's code
  indicators, exact in float32), the same integers, so the same sums bit
  for bit, without ``U k`` scattered additions per resample;
* generic: otherwise every system's sums are ``sum_u float(count_u) * row_u``
  over the units ``u`` in order (the count path of the generic bootstrap
  kernel, :func:`sigtest._engine.kernels_counts.count_sums_range`: draws are
  counted, then the rows streamed once, no random gather) when the
  ``(U, k s)`` rows take the count path of that kernel
  (:func:`sigtest._engine.kernels_numpy.count_path`: larger than L2, at most
  ``2**23`` units, all finite); otherwise the drawn rows are added in draw
  order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sigtest._engine.jit import cached_jit
from sigtest._engine.kernels import (  # _numba_enabled is read per call: tests switch by env
    _GOLDEN, _draw_units, _numba_enabled, _pair, _threshold)
from sigtest._engine.kernels_counts import count_sums_range
from sigtest._engine.kernels_numpy import _indices, count_path
from sigtest._engine.rng import check_seed, resample_keys
from sigtest._engine.threads import part_bounds, run_parts, thread_count

__all__ = ["SHARED_SCHEMES", "SharedDeltas", "kernel_sums", "shared_bootstrap_sums",
           "shared_draw_blocks", "shared_draws", "shared_unit_rows"]

#: The count kernel is used when every system has at most this many distinct
#: unit rows (hard labels with up to 64 classes have at most 4,096 cells).
_MAX_CODES = 4096


# ----------------------------------------------------------------- units
def shared_unit_rows(item_stats, design=None):
    """Rows of the resampling units of several systems, aligned across systems.

    Parameters
    ----------
    item_stats : list of ndarray of shape (N, s)
        Per-item additive statistics of each system (already multiplied by
        any ``sample_weight``), the same ``N`` and ``s`` for all.
    design : Design or None
        From :func:`sigtest._engine.design.check_design`; clusters sum their
        items' rows (``G`` rows, in the order of the cluster codes, never
        merged), strata are carried as the stratum of each row.

    Returns
    -------
    stats : list of ndarray of shape (U, s)
        Unit rows of each system (one array per system: the ``(U, k, s)``
        stack is only built when the generic kernel needs it).
    unit_strata : ndarray of shape (U,) or None
        Stratum code of each unit.
    """
    systems = [np.ascontiguousarray(st, dtype=np.float64) for st in item_stats]
    if design is None or design.empty:
        return systems, None
    if design.item_groups is None:
        return systems, design.item_strata
    G = int(design.n_groups)
    out = []
    for st in systems:
        sums = np.empty((G, st.shape[1]))
        for c in range(st.shape[1]):
            sums[:, c] = np.bincount(design.item_groups, weights=st[:, c], minlength=G)
        out.append(sums)
    return out, design.group_strata


def _strata_layout(n_units, unit_strata):
    """Units sorted by stratum (stable) and the offsets of each stratum."""
    if unit_strata is None:
        return np.arange(n_units, dtype=np.int64), np.array([0, n_units], dtype=np.int64)
    codes = np.asarray(unit_strata, dtype=np.int64)
    H = int(codes.max()) + 1 if codes.size else 0
    members = np.argsort(codes, kind="stable").astype(np.int64)
    offsets = np.zeros(H + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=H), out=offsets[1:])
    return members, offsets


def _keys(seed, B, n_strata):
    return np.ascontiguousarray(np.stack([resample_keys(seed, B, stream=h)
                                          for h in range(n_strata)]))


def shared_draws(n_units, n_resamples, seed, unit_strata=None):
    """The unit drawn by every draw of every resample (NumPy; for tests and slow paths).

    Returns
    -------
    draws : ndarray of shape (B, U) int64
        Row ``b`` lists, stratum by stratum (in code order) and in draw order,
        the units of resample ``b``: what the kernels add.
    """
    blocks = [d for _, d in shared_draw_blocks(n_units, n_resamples, seed, unit_strata,
                                               max(int(n_resamples), 1))]
    return blocks[0] if len(blocks) == 1 else np.empty((0, n_units), dtype=np.int64)


def shared_draw_blocks(n_units, n_resamples, seed, unit_strata=None, block=256):
    """:func:`shared_draws` by blocks of rows: yields ``(start, draws[start:start + block])``.

    Each resample's draws depend on its own key only, so a block is drawn
    alone (``block x U`` integers held, not ``B x U``).
    """
    seed = check_seed(seed)
    members, offsets = _strata_layout(n_units, unit_strata)
    H = offsets.shape[0] - 1
    keys = _keys(seed, n_resamples, H)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        out = np.empty((stop - start, n_units), dtype=np.int64)
        for h in range(H):
            lo, hi = int(offsets[h]), int(offsets[h + 1])
            n_h = hi - lo
            if n_h == 0:
                continue
            out[:, lo:hi] = members[lo + _indices(keys[h, start:stop], n_h, n_h)]
        yield start, out


# ----------------------------------------------------------- NumPy twins
def _shared_counts_py(keys, members, offsets, codes, n_codes, out):
    """Count kernel twin: ``out[b, j, c]`` += 1 per draw of a unit with code ``c``."""
    k = codes.shape[1]
    cols = np.arange(k) * n_codes
    for b in range(keys.shape[1]):
        for units in _resample_units(keys, members, offsets, b):
            flat = (codes[units] + cols[None, :]).ravel()
            out[b] += np.bincount(flat, minlength=k * n_codes).reshape(k, n_codes)
    return out


def _resample_units(keys, members, offsets, b):
    """The units drawn by resample ``b``, one array per non-empty stratum, in draw order."""
    for h in range(offsets.shape[0] - 1):
        lo, hi = offsets[h], offsets[h + 1]
        n_h = hi - lo
        if n_h:
            yield members[lo + _indices(keys[h, b:b + 1], n_h, n_h)[0]]


def _shared_sums_py(keys, members, offsets, stats, out, counted):
    """Generic kernel twin: ``sum_u float(count_u) * row_u`` in unit order when
    ``counted``, else the unit rows added in draw order (sequential sums)."""
    U = stats.shape[0]
    for b in range(keys.shape[1]):
        if counted:
            counts = np.zeros(U)
            for units in _resample_units(keys, members, offsets, b):
                counts += np.bincount(units, minlength=U)
            rows = np.concatenate([out[b][None], counts[:, None, None] * stats], axis=0)
            out[b] = np.cumsum(rows, axis=0)[-1]
            continue
        for units in _resample_units(keys, members, offsets, b):
            rows = np.concatenate([out[b][None], stats[units]], axis=0)
            out[b] = np.cumsum(rows, axis=0)[-1]
    return out


# --------------------------------------------------------------- kernels
_jit = cached_jit(nogil=True)


#: Resamples counted together by the count kernel: the draws of a block are
#: first tallied per unit (``w[unit, lane]``), then every system's codes are
#: visited once per block with a contiguous (SIMD) loop over the lanes.
_BLOCK = 64


@_jit
def _counts_block(keys, members, offsets, codes, table, out, b0):
    B = keys.shape[1]
    U, k = codes.shape
    C, s = table.shape[1], table.shape[2]
    nb = min(_BLOCK, B - b0)
    # tally each resample in its own contiguous row (cache-resident), then
    # transpose so that the lanes of one unit are contiguous
    rows = np.zeros((_BLOCK, U), dtype=np.int32)
    units = np.empty(U, dtype=np.int64)
    for bb in range(nb):
        row = rows[bb]
        for h in range(offsets.shape[0] - 1):
            lo = offsets[h]
            n_h = offsets[h + 1] - lo
            _draw_units(keys[h, b0 + bb], n_h, n_h, members, lo, units)
            for t in range(n_h):
                row[units[t]] += 1
    w = np.empty((U, _BLOCK), dtype=np.int32)
    for i0 in range(0, U, 64):
        i1 = min(U, i0 + 64)
        for bb in range(_BLOCK):
            for i in range(i0, i1):
                w[i, bb] = rows[bb, i]
    acc = np.zeros((k, C, _BLOCK), dtype=np.int32)
    for i in range(U):
        wi = w[i]
        for j in range(k):
            lane = acc[j, codes[i, j]]
            for bb in range(_BLOCK):  # contiguous: vectorised
                lane[bb] += wi[bb]
    for bb in range(nb):  # sums in a fixed order (the twin's): sum_c count_c * row_c
        for j in range(k):
            for c in range(C):
                n_c = np.float64(acc[j, c, bb])
                for q in range(s):
                    out[b0 + bb, j, q] += n_c * table[j, c, q]


@_jit
def _sums_one(keys, members, offsets, stats, out, b, units):
    """Draw-order sums of resample ``b`` (the fallback of the count path)."""
    k, s = stats.shape[1], stats.shape[2]
    for h in range(offsets.shape[0] - 1):
        lo = offsets[h]
        n_h = offsets[h + 1] - lo
        _draw_units(keys[h, b], n_h, n_h, members, lo, units)
        for t in range(n_h):
            i = units[t]
            for j in range(k):
                for c in range(s):
                    out[b, j, c] += stats[i, j, c]


@_jit
def _shared_counts(keys, members, offsets, codes, table, out, start, stop):
    """Sums of resamples ``start <= b < stop`` (``start`` a multiple of the block)."""
    for b0 in range(start, stop, _BLOCK):
        _counts_block(keys[:, :stop], members, offsets, codes, table, out, b0)
    return out


@_jit
def _shared_sums(keys, members, offsets, stats, out, start, stop):
    units = np.empty(stats.shape[0], dtype=np.int64)
    for b in range(start, stop):
        _sums_one(keys, members, offsets, stats, out, b, units)
    return out


@_jit
def _shared_count_sums(keys, members, offsets, stats, out, start, stop):
    """Count-path sums (``sum_u float(count_u) * row_u``) of resamples ``start .. stop - 1``."""
    U = stats.shape[0]
    sizes = offsets[1:] - offsets[:-1]
    count_sums_range(stats.reshape(U, -1), keys, members, offsets, sizes,
                     out.reshape(out.shape[0], -1), start, stop)
    return out


def _run_blocks(kernel, B, n_threads, *args):
    """Run ``kernel(*args, start, stop)`` on ranges of resamples, in threads (nogil).

    Every resample owns its stream and its output row, so the output does not
    depend on how the ranges are split or on the number of threads.
    """
    run_parts(lambda s, e: kernel(*args, s, e), part_bounds(B, n_threads, align=_BLOCK),
              n_threads)


# ---------------------------------------------------------------- driver
def _codes(systems):
    """Per-system codes of the distinct unit rows, or None when too many.

    Returns ``(codes (U, k) int32, tables (k, C, s), C)`` with rows of unused
    codes zero, ``C`` the largest number of distinct rows of a system.
    """
    k = len(systems)
    U, s = systems[0].shape
    codes = np.empty((U, k), dtype=np.int32)
    tables = []
    row_bytes = np.dtype((np.void, 8 * s))
    probe = np.random.default_rng(0x5EED).random(s) + 0.5  # fixed: deterministic codes
    for j in range(k):
        col = np.ascontiguousarray(systems[j])
        # distinct rows through a random projection (a sort of N floats), checked
        # exactly; if two rows collide, by their bytes (-0.0 and 0.0 differ in
        # bytes but sum the same)
        with np.errstate(all="ignore"):
            _, first, inverse = np.unique(col @ probe, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        # exact check on the bits (NaN-safe; -0.0 vs 0.0 falls back to the bytes)
        if first.shape[0] <= _MAX_CODES and not np.array_equal(
                col[first][inverse].view(np.uint64), col.view(np.uint64)):
            _, first, inverse = np.unique(col.view(row_bytes).ravel(), return_index=True,
                                          return_inverse=True)
            inverse = inverse.ravel()
        if first.shape[0] > _MAX_CODES:
            return None
        # codes in order of first occurrence: independent of how rows were sorted
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.shape[0])
        codes[:, j] = rank[inverse]
        tables.append(col[first[order]])
    C = max(t.shape[0] for t in tables)
    table = np.zeros((k, C, s))
    for j, rows in enumerate(tables):
        table[j, : rows.shape[0]] = rows
    return codes, table, C


def shared_bootstrap_sums(stats, n_resamples, seed, *, unit_strata=None, parallel=True,
                          method="auto"):
    r"""Bootstrap column sums of every system on the same resamples of the units.

    Parameters
    ----------
    stats : ndarray of shape (U, k, s), or list of k arrays of shape (U, s)
        Unit rows of the ``k`` systems (:func:`shared_unit_rows`).
    n_resamples : int
        ``B``.
    seed : int
        Integer seed (:func:`sigtest._engine.rng.check_seed`).
    unit_strata : ndarray of shape (U,) or None
        Stratum of each unit; each stratum draws its own size from its own
        stream.
    parallel : bool, default=True
        Run ranges of resamples in threads (as many as numba's thread count; the
        kernels release the GIL); the output is the same either way.
    method : {"auto", "counts", "generic"}, default="auto"
        ``"counts"`` counts draws per distinct unit row of each system (hard
        labels); ``"generic"`` adds the rows. ``"auto"`` counts when every
        system has at most 4,096 distinct rows. Both give the same sums up
        to floating-point rounding; each is deterministic.

    Returns
    -------
    sums : ndarray of shape (B, k, s)
        :math:`S^*_{b,j} = \sum_{t} x_{j, u_{b,t}}`, the draws :math:`u_{b,t}`
        shared by all systems :math:`j`.
    """
    if isinstance(stats, (list, tuple)):
        systems = [np.ascontiguousarray(st, dtype=np.float64) for st in stats]
        if not systems or any(st.ndim != 2 or st.shape != systems[0].shape for st in systems):
            raise ValueError("The 'stats' parameter must be a non-empty list of (U, s) arrays "
                             "of one shape.")
    else:
        arr = np.asarray(stats, dtype=np.float64)
        if arr.ndim != 3:
            raise ValueError(f"The 'stats' parameter must be 3-D (U, k, s). Got {arr.shape}.")
        systems = [np.ascontiguousarray(arr[:, j, :]) for j in range(arr.shape[1])]
    if method not in ("auto", "counts", "generic"):
        raise ValueError(f"The 'method' parameter must be 'auto', 'counts' or 'generic'. "
                         f"Got {method!r} instead.")
    k = len(systems)
    U, s = systems[0].shape
    B = int(n_resamples)
    if U >= 2**31:
        raise ValueError("Shared resamples support at most 2**31 - 1 units.")
    seed = check_seed(seed)
    members, offsets = _strata_layout(U, unit_strata)
    keys = _keys(seed, B, offsets.shape[0] - 1)
    coded = None if method == "generic" else _codes(systems)
    if method == "counts" and coded is None:
        raise ValueError("method='counts' needs at most 4,096 distinct unit rows per system.")
    threads = thread_count(parallel) if B * U * k >= 2_000_000 else 1
    if coded is not None:
        codes, table, _ = coded
        return kernel_sums(keys, members, offsets, codes=codes, table=table, threads=threads)
    stats = np.ascontiguousarray(np.stack(systems, axis=1))
    del systems
    return kernel_sums(keys, members, offsets, stats=stats, threads=threads)


# ------------------------------------------------ few codes: products
#: The product path needs every partial count below 2**24 (exact in float32).
_PRODUCT_MAX_UNITS = 2**24
#: ... at most this many distinct rows per system (0/1 and small-integer
#: scores: 2 to 16 values), ...
_PRODUCT_MAX_CODES = 16
#: ... and an indicator matrix of at most this many bytes.
_PRODUCT_MAX_BYTES = 1 << 30
#: Bytes of the float32 multiplicities of one block of resamples.
_PRODUCT_BLOCK_BYTES = 1 << 25


@_jit
def _tally_block(keys, offsets, w, b0, nb):
    """``w[bb, p]`` = how many times resample ``b0 + bb`` draws the unit at position ``p``.

    Positions are those of the units sorted by stratum (``members[p]`` is
    the unit, :func:`_strata_layout`): stratum ``h`` holds positions
    ``offsets[h] .. offsets[h + 1] - 1`` and its draws are those of
    :func:`sigtest._engine.kernels._draw_units`, tallied as they come (the
    order of the draws does not change a tally; float32 counts are exact).
    """
    for bb in range(nb):
        row = w[bb]
        row[:] = 0.0
        for h in range(offsets.shape[0] - 1):
            lo = offsets[h]
            n_h = offsets[h + 1] - lo
            if n_h <= 0:
                continue
            nn = np.uint64(n_h)
            thr = _threshold(nn)
            z = keys[h, b0 + bb]
            got = 0
            while got < n_h:
                z = z + _GOLDEN
                i0, i1 = _pair(z, nn, thr)
                if i0 >= 0:
                    row[lo + i0] += 1.0
                    got += 1
                if i1 >= 0 and got < n_h:
                    row[lo + i1] += 1.0
                    got += 1


def _product_plan(codes, table):
    """Whether the count sums take the product path (see :func:`_product_sums`)."""
    U, k = codes.shape
    C = table.shape[1]
    return (1 < C <= _PRODUCT_MAX_CODES and U < _PRODUCT_MAX_UNITS
            and 4 * U * k * (C - 1) <= _PRODUCT_MAX_BYTES)


def _product_sums(keys, members, offsets, codes, table, out, start, stop):
    r"""Count sums of resamples ``start .. stop - 1`` as a matrix product (few codes).

    With ``w_{bu}`` the number of times resample ``b`` draws unit ``u`` and
    ``I_{u,(j,c)} = [code_{uj} = c]``, the counts of the count kernel are
    ``n_{bjc} = (W I)_{b,(j,c)}`` for ``c >= 1`` and ``n_{bj0} = U - \sum_{c
    \geq 1} n_{bjc}`` (every resample draws ``U`` units). Every product and
    partial sum is an integer below ``2**24``, exact in float32 in any
    order, so BLAS (blocked, threaded) gives the kernel's integer counts, and
    the sums ``sum_c n_c * row_c`` are then added in the kernel's order:
    the output is bit-identical to :func:`_shared_counts`, at the cost of a
    product (``2 U k (C - 1)`` flops per resample) instead of ``U k``
    scattered additions.
    """
    U, k = codes.shape
    C, s = table.shape[1], table.shape[2]
    ind = np.zeros((U, k, C - 1), dtype=np.float32)
    for c in range(1, C):
        ind[:, :, c - 1] = codes == c
    ind = np.ascontiguousarray(ind.reshape(U, k * (C - 1))[members])  # rows by position
    block = int(min(max(_PRODUCT_BLOCK_BYTES // (4 * U), 16), 1024))
    w = np.empty((block, U), dtype=np.float32)
    for b0 in range(start, stop, block):
        nb = min(block, stop - b0)
        _tally_block(keys, offsets, w, b0, nb)
        n = (w[:nb] @ ind).astype(np.float64).reshape(nb, k, C - 1)
        n0 = float(U) - n.sum(axis=2)
        part = out[b0:b0 + nb]
        part += n0[:, :, None] * table[None, :, 0, :]
        for c in range(1, C):  # the kernel's order: sum_c count_c * row_c
            part += n[:, :, c - 1, None] * table[None, :, c, :]
    return out


def kernel_sums(keys, members, offsets, *, codes=None, table=None, stats=None, threads=1):
    """Sums of the resamples of ``keys`` (``(H, B)``) with the count or generic kernel.

    The count kernel (``codes (U, k)`` int32 and ``table (k, C, s)``) or
    the generic one (``stats (U, k, s)``), numba or its NumPy twin; row
    ``b`` depends only on ``keys[:, b]``, so a slice of the keys gives the
    same rows as the whole.

    Returns
    -------
    sums : ndarray of shape (B, k, s)
    """
    B = keys.shape[1]
    use_numba = _numba_enabled()
    if codes is not None:
        k, C, s = table.shape
        sums = np.zeros((B, k, s))
        if use_numba:
            kernel = _product_sums if _product_plan(codes, table) else _shared_counts
            _run_blocks(kernel, B, threads, keys, members, offsets,
                        np.ascontiguousarray(codes), np.ascontiguousarray(table), sums)
            return sums
        counts = np.zeros((B, k, C), dtype=np.int64)
        _shared_counts_py(keys, members, offsets, codes, C, counts)
        counts = counts.astype(np.float64)
        for c in range(C):  # the kernel's order: bit-identical, no BLAS
            sums += counts[:, :, c, None] * table[None, :, c, :]
        return sums
    U, k, s = stats.shape
    sums = np.zeros((B, k, s))
    counted = count_path(stats.reshape(U, k * s), U)
    if use_numba:
        kernel = _shared_count_sums if counted else _shared_sums
        _run_blocks(kernel, B, threads, keys, members, offsets, stats, sums)
    else:
        _shared_sums_py(keys, members, offsets, stats, sums, counted)
    return sums


# ------------------------------------------------- shared bootstrap deltas
#: The kinds of shared resamples: the bootstrap of the units (one draw of the
#: items, or clusters within strata, per resample for every system), the
#: permutation (one swap vector of the units per resample for every pair) and
#: the Bayesian bootstrap (one Dirichlet weight vector per resample).
SHARED_SCHEMES = ("bootstrap", "permutation", "bayesian")


@dataclass(frozen=True, eq=False)
class SharedDeltas:
    """One pair's RAW resampled differences on a comparison's shared resamples.

    :func:`sigtest.compare` computes every system's bootstrap scores once on
    shared resamples (:func:`shared_bootstrap_sums`) and hands each pair's
    tests that consume them (:func:`sigtest.tests_.shared_scheme`:
    :class:`~sigtest.BCaInterval`, :class:`~sigtest.BergKirkpatrickBootstrap`)
    the differences ``T[:, b] - T[:, a]`` of the two columns (RAW
    ``score_b* - score_a*``) as an argument:
    ``test_paired(data, resamples=...)`` -> ``evaluate(..., resamples=...)``
    -> :func:`sigtest._engine.resampling.resampled_deltas` ``(supplied=...)``,
    which returns them instead of drawing the pair's own resamples.

    Attributes
    ----------
    deltas : ndarray of shape (B,)
        float64, read-only (a read-only view when given a writable array:
        handed over without a copy).
    seed : int
        The seed of the shared draws (:func:`sigtest._workflows.compare.shared.shared_seed`).
    scheme : {"bootstrap", "permutation", "bayesian"}, default="bootstrap"
        The kind of resamples (:data:`SHARED_SCHEMES`); a test refuses
        another kind than it consumes. ``"permutation"``: the pair's
        permuted differences on swap vectors shared by all pairs
        (:func:`sigtest._engine.shared_blocks.shared_flip_sums_range`),
        consumed by :class:`~sigtest.PairedPermutation`; ``"bayesian"``:
        differences of the systems' Dirichlet-weighted scores
        (:func:`sigtest._engine.shared_blocks.shared_dirichlet_sums_range`),
        consumed by :class:`~sigtest.BayesianBootstrap`.
    """

    deltas: np.ndarray
    seed: int
    scheme: str = "bootstrap"

    def __post_init__(self):
        deltas = np.asarray(self.deltas, dtype=np.float64)
        if deltas.ndim != 1:
            raise ValueError(f"The 'deltas' of SharedDeltas must be 1-D. Got shape {deltas.shape}.")
        if self.scheme not in SHARED_SCHEMES:
            raise ValueError(f"The 'scheme' of SharedDeltas must be one of {SHARED_SCHEMES}. "
                             f"Got {self.scheme!r} instead.")
        if deltas.flags.writeable:
            deltas = deltas.view()
            deltas.flags.writeable = False
        object.__setattr__(self, "deltas", deltas)
        object.__setattr__(self, "seed", int(self.seed))
