"""Compact letter display of pairwise comparisons (Piepho 2004)."""

import string

import numpy as np

__all__ = ["compact_letter_display"]


def _letter(i):
    """0 -> 'a', ..., 25 -> 'z', 26 -> 'A', ..., 51 -> 'Z', 52 -> 'a1', ..."""
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    base = alphabet[i % len(alphabet)]
    return base if i < len(alphabet) else f"{base}{i // len(alphabet)}"


def _absorb(columns):
    """Drop every column that is a subset of another (keep the first of equal ones)."""
    kept = []
    for i, col in enumerate(columns):
        redundant = any(
            (col < other) or (col == other and j < i) for j, other in enumerate(columns) if j != i
        )
        if not redundant:
            kept.append(col)
    return kept


def _sweep(columns):
    """Remove letters whose connections are all carried by other letters.

    Member ``t`` of column ``c`` is redundant when ``t`` has another letter
    and every other member ``u`` of ``c`` shares a column other than ``c``
    with ``t`` (Piepho 2004, sweeping step).
    """
    columns = [set(c) for c in columns]
    for ci, col in enumerate(columns):
        for t in sorted(col):
            others = [c for cj, c in enumerate(columns) if cj != ci]
            if not any(t in c for c in others):
                continue
            if all(any(t in c and u in c for c in others) for u in col if u != t):
                col.discard(t)
    return _absorb([frozenset(c) for c in columns if c])


def compact_letter_display(significant, order=None):
    """Letters such that two systems share a letter iff they do not differ.

    Insert-and-absorb algorithm of Piepho (2004), followed by its sweeping
    step. Start with one letter shared by all systems. For every significant
    pair ``(i, j)``, each letter column holding both is split in two (one
    without ``i``, one without ``j``) and columns contained in another are
    absorbed. Redundant letters are then swept away. Letters are assigned in
    display order: ``"a"`` goes to the column that holds the first system of
    ``order`` (the best one in :meth:`ComparisonResult.letters`), and so on.

    Parameters
    ----------
    significant : array-like of bool, shape (k, k)
        Symmetric matrix; ``significant[i, j]`` is True when systems ``i`` and
        ``j`` differ significantly. The diagonal is ignored.
    order : array-like of int, optional
        Display order of the systems (e.g. by decreasing score). Defaults to
        ``range(k)``.

    Returns
    -------
    letters : list of str
        ``letters[i]`` is the letter string of system ``i``.

    Notes
    -----
    Not every pattern of significances can be displayed exactly with letters
    shared by intervals of the ordering, but insert-and-absorb always returns
    a display in which two systems share a letter exactly when they are not
    significantly different (the columns are the maximal cliques of the
    "not different" graph that cover its edges).

    References
    ----------
    H.-P. Piepho (2004). An algorithm for a letter-based representation of
    all-pairwise comparisons. Journal of Computational and Graphical
    Statistics 13(2), 456-466.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest._report.letters import compact_letter_display
    >>> sig = np.zeros((3, 3), dtype=bool)
    >>> sig[0, 2] = sig[2, 0] = True        # only the two ends differ
    >>> compact_letter_display(sig)
    ['a', 'ab', 'b']
    """
    sig = np.asarray(significant, dtype=bool)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1]:
        raise ValueError(
            f"The 'significant' parameter must be a square matrix. Got shape {sig.shape} instead."
        )
    if not np.array_equal(sig, sig.T):
        raise ValueError("The 'significant' parameter must be a symmetric matrix.")
    k = sig.shape[0]
    order = np.arange(k) if order is None else np.asarray(order, dtype=int)
    if sorted(order.tolist()) != list(range(k)):
        raise ValueError(f"The 'order' parameter must be a permutation of range({k}).")
    if k == 0:
        return []
    rank = np.empty(k, dtype=int)
    rank[order] = np.arange(k)

    columns = [frozenset(range(k))]
    for i in range(k):
        for j in range(i + 1, k):
            if not sig[i, j]:
                continue
            new = []
            for col in columns:
                if i in col and j in col:
                    new.extend([col - {i}, col - {j}])
                else:
                    new.append(col)
            columns = _absorb(new)
    columns = _sweep(columns)
    columns.sort(key=lambda c: sorted(rank[list(c)].tolist()))
    letters = [""] * k
    for n, col in enumerate(columns):
        for t in col:
            letters[t] += _letter(n)
    return letters
