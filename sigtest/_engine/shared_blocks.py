r"""Shared bootstrap resamples in independent pieces, for parallel workers.

:func:`sigtest._engine.shared.shared_bootstrap_sums` computes every
system's bootstrap sums in one call, with all systems' unit rows in memory.
:func:`sigtest.compare` spreads the same computation over joblib workers
(processes, or a dask cluster) in two steps whose pieces are small to send:

1. :func:`system_units`, one system at a time: its unit rows (items, or
   clusters summed) reduced to a code per unit and a table of the distinct
   rows (hard labels: at most ``K^2`` cells), or the rows themselves when
   there are too many distinct ones;
2. :func:`shared_sums_range`, one range of resamples ``start <= b < stop``
   at a time, on the :class:`SharedUnits` of all systems (``N k`` int32
   codes and ``k`` small tables): those resamples' sums of every system.

Resample ``b`` owns its random stream and its output row
(:mod:`sigtest._engine.shared`), and a system's codes are numbered in order
of first occurrence whatever the other systems are, so the rows of
:func:`shared_sums_range` are bit-identical to the rows ``start:stop`` of
:func:`~sigtest._engine.shared.shared_bootstrap_sums` on the same units and
seed, for any split into ranges, any number of workers and any order of the
systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sigtest._engine import kernels, kernels_exact
from sigtest._engine.rng import check_seed, resample_keys
from sigtest._engine.shared import (
    _codes,
    _keys,
    _strata_layout,
    kernel_sums,
    shared_unit_rows,
)
from sigtest._engine.threads import thread_count

__all__ = ["SharedUnits", "shared_dirichlet_sums_range", "shared_flip_sums_range",
           "shared_sums_range", "shared_units", "system_units"]


def system_units(item_stats, design=None):
    """One system's unit rows as codes and a table of distinct rows (or the rows).

    Parameters
    ----------
    item_stats : ndarray of shape (N, s)
        The system's per-item additive statistics (weights multiplied in).
    design : Design or None
        Clusters (their items' rows summed) and strata
        (:func:`~sigtest._engine.shared.shared_unit_rows`).

    Returns
    -------
    codes : ndarray of shape (U,) int32, or None
        Code of each unit's row, in order of first occurrence; None when the
        system has more than 4,096 distinct rows.
    rows : ndarray of shape (C, s) or (U, s)
        The distinct rows in code order, or (``codes`` None) every unit row.
    unit_strata : ndarray of shape (U,) or None
        Stratum code of each unit (the same for every system).
    """
    systems, unit_strata = shared_unit_rows([item_stats], design)
    coded = _codes(systems)
    if coded is None:
        return None, systems[0], unit_strata
    codes, table, C = coded
    return np.ascontiguousarray(codes[:, 0]), table[0, :C], unit_strata


@dataclass(frozen=True, eq=False)
class SharedUnits:
    """The units of all systems, as the kernels read them.

    Attributes
    ----------
    codes : ndarray of shape (U, k) int32, or None
        Unit codes of every system (the count kernel), or None (the generic
        kernel adds ``stats``).
    table : ndarray of shape (k, C, s), or None
        Distinct rows of every system (rows of unused codes zero).
    stats : ndarray of shape (U, k, s), or None
        Unit rows of every system when some system has too many distinct
        rows.
    unit_strata : ndarray of shape (U,) or None
        Stratum code of each unit.
    """

    codes: np.ndarray | None
    table: np.ndarray | None
    stats: np.ndarray | None
    unit_strata: np.ndarray | None

    @property
    def shape(self):
        """``(U, k, s)``."""
        if self.codes is not None:
            return self.codes.shape + (self.table.shape[2],)
        return self.stats.shape

    def rows(self):
        """Every system's unit rows ``(U, k, s)`` (codes expanded through the tables)."""
        if self.stats is not None:
            return self.stats
        return np.ascontiguousarray(np.stack(
            [self.table[j][self.codes[:, j]] for j in range(self.codes.shape[1])], axis=1))


def shared_units(per_system):
    """Gather :func:`system_units` of ``k`` systems into :class:`SharedUnits`.

    Parameters
    ----------
    per_system : list of (codes, rows, unit_strata)
        One :func:`system_units` per system, in the systems' order.

    Returns
    -------
    SharedUnits
        Coded when every system is; otherwise every system's unit rows
        (codes expanded back through their tables: the same values).
    """
    unit_strata = per_system[0][2]
    if all(codes is not None for codes, _, _ in per_system):
        C = max(rows.shape[0] for _, rows, _ in per_system)
        s = per_system[0][1].shape[1]
        codes = np.ascontiguousarray(np.stack([c for c, _, _ in per_system], axis=1))
        table = np.zeros((len(per_system), C, s))
        for j, (_, rows, _) in enumerate(per_system):
            table[j, : rows.shape[0]] = rows
        return SharedUnits(codes, table, None, unit_strata)
    stats = np.ascontiguousarray(np.stack(
        [rows if codes is None else rows[codes] for codes, rows, _ in per_system], axis=1))
    return SharedUnits(None, None, stats, unit_strata)


def shared_sums_range(units, n_resamples, seed, start, stop, *, parallel=False):
    r"""Bootstrap sums of resamples ``start <= b < stop`` of every system.

    Parameters
    ----------
    units : SharedUnits
    n_resamples : int
        ``B`` of the whole run (the range is a part of it).
    seed : int
    start, stop : int
        ``0 <= start <= stop <= B``.
    parallel : bool, default=False
        Run the kernel on numba's thread count (the output does not depend
        on it); a caller that runs ranges in parallel keeps the default.

    Returns
    -------
    sums : ndarray of shape (stop - start, k, s)
        Rows ``start:stop`` of
        :func:`~sigtest._engine.shared.shared_bootstrap_sums` on the same
        units and seed: :math:`S^*_{b,j} = \sum_t x_{j, u_{b,t}}`.
    """
    _, start, stop = _check_range(n_resamples, start, stop)
    members, offsets = _strata_layout(units.shape[0], units.unit_strata)
    keys = np.ascontiguousarray(_keys(check_seed(seed), stop, offsets.shape[0] - 1)[:, start:])
    threads = thread_count(parallel)
    if units.codes is not None:
        return kernel_sums(keys, members, offsets, codes=units.codes, table=units.table,
                           threads=threads)
    return kernel_sums(keys, members, offsets, stats=units.stats, threads=threads)


def shared_flip_sums_range(units, n_resamples, seed, start, stop, *, parallel=False):
    r"""Sign-flip sums of resamples ``start <= b < stop`` of every system.

    One swap vector per resample, shared by every system: unit ``u`` is
    swapped in resample ``b`` when bit ``u mod 64`` of
    ``splitmix64(key_b + (floor(u / 64) + 1) * GOLDEN)`` is set, with
    ``key_b = resample_keys(seed, B)[b]`` (the generic permutation kernel's
    rule, applied to every unit in unit order). A pair (A, B)'s permuted
    sums on resample ``b`` are then

    .. math:: A^*_b = S_A + F_{b,B} - F_{b,A}, \qquad
              B^*_b = S_B + F_{b,A} - F_{b,B},

    with :math:`S` the totals and :math:`F_{b,j} = \sum_u f_{bu} x_{j,u}`
    (returned here): swapping unit ``u`` moves its row from one system to
    the other, so every pair gets an exact paired permutation (each swap
    pattern equally likely), on swaps shared with every other pair.

    Parameters
    ----------
    units : SharedUnits
    n_resamples : int
        ``B`` of the whole run.
    seed : int
    start, stop : int
        ``0 <= start <= stop <= B``.
    parallel : bool, default=False
        Run the kernel on numba's threads (the output does not depend on it).

    Returns
    -------
    flips : ndarray of shape (stop - start, k, s)
        :math:`F_{b,j}` for ``start <= b < stop``, bit-identical for any
        split into ranges and any thread count; permuting the systems
        permutes the output.
    """
    _, start, stop = _check_range(n_resamples, start, stop)
    rows = units.rows()
    U, k, s = rows.shape
    keys = np.ascontiguousarray(resample_keys(check_seed(seed), stop)[start:])
    flips = kernels.permutation_sums_generic(rows.reshape(U, k * s), keys,
                                             parallel=bool(parallel))
    return np.asarray(flips).reshape(stop - start, k, s)


#: Resamples per stream of the shared Bayesian bootstrap: block ``q`` (resamples
#: ``128 q`` to ``128 q + 127``) draws its weights from its own generator, so a
#: range of resamples can be drawn alone, and at most ``128 U`` weights are
#: held at a time.
DIRICHLET_BLOCK = 128


def _check_range(n_resamples, start, stop):
    B, start, stop = int(n_resamples), int(start), int(stop)
    if not 0 <= start <= stop <= B:
        raise ValueError(f"The range of resamples must satisfy 0 <= start <= stop <= "
                         f"n_resamples={B}. Got start={start}, stop={stop}.")
    return B, start, stop


def shared_dirichlet_sums_range(units, n_resamples, seed, start, stop):
    r"""Bayesian-bootstrap sums of resamples ``start <= b < stop`` of every system.

    One Dirichlet(1, ..., 1) weight vector of the units per resample, shared
    by every system (within each stratum, scaled to its number of units, as
    :func:`sigtest._engine.bayesian.dirichlet_sums` does for one pair):

    .. math:: W_{b,j} = \sum_u w_{bu}\, x_{j,u}, \qquad
              w_{b\cdot} = n_h\,G_{b\cdot} / \textstyle\sum_{u \in h} G_{bu},
              \quad G_{bu} \sim \operatorname{Exp}(1).

    The weights of block ``q`` of :data:`DIRICHLET_BLOCK` resamples come
    from ``default_rng(SeedSequence(seed, spawn_key=(7, q)))``, unit after
    unit, resample after resample; sums in unit order (no BLAS), so the
    output is bit-identical for any split into ranges and any thread count.

    Parameters
    ----------
    units : SharedUnits
    n_resamples : int
        ``B`` of the whole run.
    seed : int
    start, stop : int
        ``0 <= start <= stop <= B``.

    Returns
    -------
    sums : ndarray of shape (stop - start, k, s)
    """
    # the Bayesian bootstrap's engine (and its rank kernels) only when its draws are shared
    from sigtest._engine.bayesian import POSTERIOR_STREAM, _DirichletDesign

    B, start, stop = _check_range(n_resamples, start, stop)
    seed = check_seed(seed)
    rows = units.rows()
    U, k, s = rows.shape
    flat = rows.reshape(U, k * s)
    design = _DirichletDesign(np.ones(U), units.unit_strata)
    out = np.empty((stop - start, k * s))
    for q in range(start // DIRICHLET_BLOCK, -(-stop // DIRICHLET_BLOCK)):
        b0 = q * DIRICHLET_BLOCK
        b1 = min(B, b0 + DIRICHLET_BLOCK)
        rng = np.random.default_rng(np.random.SeedSequence(seed,
                                                           spawn_key=(POSTERIOR_STREAM, q)))
        lo, hi = max(start, b0), min(stop, b1)
        W = design.weights(rng, b1 - b0)[lo - b0:hi - b0]
        out[lo - start:hi - start] = kernels_exact.weighted_sums(W, flat)
    return out.reshape(stop - start, k, s)
