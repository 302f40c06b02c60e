r"""The sampling design of the test items: clusters (``groups=``) and strata (``strata=``).

Every resampling scheme of sigtest assumes exchangeable units. When items come
in clusters (sentences of one document, turns of one dialogue, questions of
one template), the cluster is the unit: with additive sufficient statistics,
the statistics of a cluster are the sums of its items' statistics, so the
cluster bootstrap (Davison & Hinkley 1997, §3.8; Field & Welsh 2007) is the
ordinary bootstrap of the ``G`` cluster rows, the cluster permutation swaps A
and B on whole cluster rows, and the delete-one-cluster jackknife is the
closed-form jackknife of the cluster rows. Strata (a domain, the gold class)
are resampled separately, each keeping its size (R ``boot(strata=)``).

:func:`check_design` validates and encodes the ids once; :func:`design_rows`
turns item (or cell) rows into cluster rows, or splits cells by stratum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Design", "check_design", "check_ids", "design_rows"]

# Identical cluster rows are merged (multinomial over distinct rows) only when
# it shrinks the rows at least this much: the cell kernel costs ~30 ns per
# (resample, row), the generic one ~1.2 ns per (resample, draw, column).
_MERGE_FACTOR = 4


@dataclass(frozen=True)
class Design:
    """Validated cluster and stratum codes of the ``N`` items.

    Attributes
    ----------
    item_groups : ndarray of shape (N,) or None
        Cluster code per item, ``0 .. G - 1`` in the sorted order of the ids.
    item_strata : ndarray of shape (N,) or None
        Stratum code per item, ``0 .. H - 1``.
    n_groups, n_strata : int or None
        ``G`` and ``H`` (``None`` when not given).
    group_strata : ndarray of shape (G,) or None
        Stratum of each cluster (clusters nest in strata).
    """

    item_groups: np.ndarray | None = None
    item_strata: np.ndarray | None = None
    n_groups: int | None = None
    n_strata: int | None = None
    group_strata: np.ndarray | None = None

    @property
    def empty(self):
        """Whether neither clusters nor strata were given."""
        return self.item_groups is None and self.item_strata is None


def check_ids(ids, name, n, *, of="'y_true' has", kinds="biufUSO"):
    """One id per item: the validated 1-D array of cluster or stratum ids.

    The one check of ``groups=`` / ``strata=`` ids, shared by the engine,
    :func:`sigtest.compare` and the experiment store.

    Parameters
    ----------
    ids : array-like of shape (n,)
        Ids (ints or strings; a pandas Series is accepted).
    name : str
        Parameter name shown in messages (``"groups"`` or ``"strata"``).
    n : int
        Number of items.
    of : str, default="'y_true' has"
        What has the ``n`` items, in the length message.
    kinds : str, default="biufUSO"
        Accepted dtype kinds (the store, which writes JSON, takes ``"iuU"``).

    Returns
    -------
    ids : ndarray of shape (n,)

    Raises
    ------
    ValueError
        Not 1-D, another length, another dtype, or a missing id (None, NaN).
    """
    if hasattr(ids, "to_numpy"):
        ids = ids.to_numpy()
    try:
        arr = np.asarray(ids)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The '{name}' parameter could not be converted to an array: {exc}") from exc
    if arr.dtype == object and arr.ndim == 1:
        try:  # e.g. a list of Python strings stored as objects
            arr = np.asarray(arr.tolist())
        except (TypeError, ValueError):
            pass
    if arr.ndim != 1:
        raise ValueError(
            f"The '{name}' parameter must be a 1-D array of ids (one per item). Got an array "
            f"of shape {arr.shape} instead."
        )
    if arr.shape[0] != n:
        raise ValueError(
            f"The '{name}' parameter has {arr.shape[0]} ids but {of} {n} items; give one id "
            "per item."
        )
    if arr.dtype.kind not in kinds:
        wanted = "ints or strings" if kinds == "iuU" else "ints or strings (or floats)"
        raise ValueError(
            f"The '{name}' parameter must be a 1-D array of ids holding {wanted}, one per "
            f"item. Got dtype {arr.dtype} instead."
        )
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"The '{name}' parameter contains NaN or infinite ids.")
    if arr.dtype.kind == "O":
        if any(v is None or (isinstance(v, float) and v != v) for v in arr.tolist()):
            raise ValueError(f"The '{name}' parameter contains missing ids (None or NaN).")
    return arr


def _encode(ids, name, n):
    """Codes ``0 .. L - 1`` of the ids (sorted order) and ``L``; ValueError naming ``name``."""
    arr = check_ids(ids, name, n)
    if arr.dtype.kind in "iu" and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if hi - lo < max(1 << 16, 4 * n):
            # small int range: O(N) with a presence table, the same codes as np.unique
            present = np.zeros(hi - lo + 1, dtype=bool)
            shifted = arr.astype(np.int64) - lo
            present[shifted] = True
            values = np.flatnonzero(present) + lo
            codes = (np.cumsum(present) - 1)[shifted]
            return codes.astype(np.int64), int(values.shape[0]), values.astype(arr.dtype)
    try:
        values, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            f"The ids in the '{name}' parameter cannot be sorted together (mixed types?): {exc}"
        ) from exc
    return codes.ravel().astype(np.int64), int(values.shape[0]), values


def check_design(groups, strata, n):
    """Validate ``groups`` and ``strata`` (one id per item) and encode them.

    Parameters
    ----------
    groups, strata : array-like of shape (n,) or None
        Cluster and stratum ids (ints or strings).
    n : int
        Number of items.

    Returns
    -------
    Design

    Raises
    ------
    ValueError
        Not 1-D, wrong length, missing ids, a single cluster, or a cluster
        whose items lie in two strata.
    """
    if groups is None and strata is None:
        return Design()
    item_groups = n_groups = item_strata = n_strata = group_strata = None
    if groups is not None:
        item_groups, n_groups, group_ids = _encode(groups, "groups", n)
        if n_groups < 2:
            raise ValueError(
                "The 'groups' parameter holds a single cluster: with every item in one "
                "cluster there is nothing to resample. Give at least 2 clusters (20 or more "
                "for reliable answers), or leave groups=None for independent items."
            )
    if strata is not None:
        item_strata, n_strata, _ = _encode(strata, "strata", n)
    if item_groups is not None and item_strata is not None:
        group_strata = np.full(n_groups, -1, dtype=np.int64)
        group_strata[item_groups] = item_strata
        mixed = group_strata[item_groups] != item_strata
        if np.any(mixed):
            g = int(item_groups[np.flatnonzero(mixed)[0]])
            raise ValueError(
                f"Cluster {group_ids[g].tolist()!r} of the 'groups' parameter has items in several "
                "strata of the 'strata' parameter; clusters are resampled within strata, so "
                "each cluster must lie in one stratum."
            )
    return Design(item_groups, item_strata, n_groups, n_strata, group_strata)


def _pairs(key, n_keys, row_of_item, n_rows):
    """Distinct ``(key, row)`` pairs of the items and their item counts.

    Pairs come in row-major order (by row, then key): split cells keep the
    order of the cells, so the permutation, which merges rows with equal
    differences in order of first occurrence, draws exactly what it draws
    without strata.
    """
    code = row_of_item * np.int64(n_keys) + key
    if n_keys * n_rows <= max(1 << 20, 4 * key.shape[0]):
        counts = np.bincount(code, minlength=n_keys * n_rows)
        occupied = np.flatnonzero(counts)
        counts = counts[occupied]
    else:
        occupied, counts = np.unique(code, return_counts=True)
    pair_row, pair_key = np.divmod(occupied, n_keys)
    return pair_key, pair_row, counts.astype(np.float64)


def _merge(stats_a, stats_b, row_strata, sizes=None):
    """Merge identical cluster rows when it pays; returns rows, counts (or None), strata.

    With ``sizes`` (the item weight of every cluster), also the size of every
    returned row: ``None`` if a merged row joins clusters of unequal sizes
    (possible only for a metric whose statistics do not count the items).
    """
    G, s = stats_a.shape
    joint = np.hstack([stats_a, stats_b] if row_strata is None
                      else [stats_a, stats_b, row_strata[:, None].astype(np.float64)])
    unmerged = (stats_a, stats_b, None, row_strata) + (() if sizes is None else (sizes,))
    if G < 2 * _MERGE_FACTOR:
        return unmerged
    _, first, inverse = np.unique(joint, axis=0, return_index=True, return_inverse=True)
    n_unique = first.shape[0]
    if n_unique * _MERGE_FACTOR > G:
        return unmerged
    # rows in the order of their first occurrence (deterministic, input order)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(n_unique)
    counts = np.bincount(rank[inverse.ravel()], minlength=n_unique).astype(np.float64)
    keep = np.sort(first)
    strata = None if row_strata is None else row_strata[keep]
    merged = (np.ascontiguousarray(stats_a[keep]), np.ascontiguousarray(stats_b[keep]),
              counts, strata)
    if sizes is None:
        return merged
    row_sizes = sizes[keep]
    same = np.array_equal(row_sizes[rank[inverse.ravel()]], sizes)
    return merged + (row_sizes if same else None,)


def design_rows(stats_a, stats_b, counts, row_of_item, design, sizes=None):
    """Rows of the resampling units: cluster sums, or cells split by stratum.

    Parameters
    ----------
    stats_a, stats_b : ndarray of shape (R, s)
        Per-row statistics: items (``row_of_item is None``, already
        multiplied by any ``sample_weight``) or occupied cells.
    counts : ndarray of shape (R,) or None
        Cell multiplicities (``None`` for item rows).
    row_of_item : ndarray of shape (N,) or None
        The row of each item (cell index), ``None`` when rows are items.
    design : Design
    sizes : ndarray of shape (G,), optional
        Clustered designs only: the item weight of every cluster. When
        given, a fifth value is returned.

    Returns
    -------
    stats_a, stats_b : ndarray of shape (R', s)
    counts : ndarray of shape (R',) or None
        Multiplicity of each row (identical clusters or stratum cells merged).
    row_strata : ndarray of shape (R',) or None
        Stratum code of each row.
    row_sizes : ndarray of shape (R',) or None
        Only with ``sizes``: the item weight of each cluster row (``None``
        if merged clusters differ in size).

    Notes
    -----
    Clustered: row ``g`` holds :math:`\\sum_{i \\in g} s_i` for A and B
    (``O(N s)`` with ``bincount``), identical cluster rows (and stratum) are
    merged when that shrinks the rows at least fourfold (hard labels with
    small clusters). Stratified only: cell rows are split by stratum (item
    rows just carry their stratum).
    """
    if design.empty:
        return stats_a, stats_b, counts, None
    s = stats_a.shape[1]
    if design.item_groups is not None:
        G = design.n_groups
        if row_of_item is None:
            key, rows, weights = design.item_groups, np.arange(stats_a.shape[0]), None
        else:
            key, rows, weights = _pairs(design.item_groups, G, row_of_item, stats_a.shape[0])
        out = []
        for stats in (stats_a, stats_b):
            sums = np.empty((G, s))
            for j in range(s):
                col = stats[rows, j] if weights is None else weights * stats[rows, j]
                sums[:, j] = np.bincount(key, weights=col, minlength=G)
            out.append(sums)
        return _merge(out[0], out[1], design.group_strata, sizes)
    strata = design.item_strata
    if row_of_item is None:
        return stats_a, stats_b, counts, strata
    key, rows, pair_counts = _pairs(strata, design.n_strata, row_of_item, stats_a.shape[0])
    return (np.ascontiguousarray(stats_a[rows]), np.ascontiguousarray(stats_b[rows]),
            pair_counts, key)
