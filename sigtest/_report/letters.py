"""Compact letter display of pairwise comparisons (Piepho 2004).

:func:`compact_letter_display` works on a boolean significance matrix (behind
:meth:`ComparisonResult.letters`); :func:`compact_letters` is the public
entry point on any symmetric p-value matrix.
"""

import string
from collections.abc import Mapping
from numbers import Real

import numpy as np

from sigtest.utils.validation import real_array

__all__ = ["check_pvalue_matrix", "compact_letter_display", "compact_letters",
           "letter_columns"]


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


def letter_columns(significant, order=None):
    """Letter columns of :func:`compact_letter_display`: sets of system indices.

    Parameters
    ----------
    significant : array-like of bool, shape (k, k)
        Symmetric matrix; ``significant[i, j]`` is True when systems ``i`` and
        ``j`` differ significantly. The diagonal is ignored.
    order : array-like of int, optional
        Display order of the systems. Defaults to ``range(k)``.

    Returns
    -------
    columns : list of frozenset
        Column ``n`` (letter ``n``) holds the systems sharing that letter,
        sorted so that the first letters go to the first systems of
        ``order``. Every pair not significantly different shares a column;
        no significant pair does.
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
    return columns


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
    columns = letter_columns(significant, order)
    letters = [""] * np.asarray(significant).shape[0]
    for n, col in enumerate(columns):
        for t in col:
            letters[t] += _letter(n)
    return letters


def check_pvalue_matrix(pvalues, name="pvalues"):
    """Validate a symmetric matrix of pairwise p-values.

    Parameters
    ----------
    pvalues : DataFrame or array-like of shape (k, k)
        ``pvalues[i, j]``: p-value of the comparison of systems ``i`` and
        ``j``. A DataFrame must hold the same system names in its index and
        its columns (the columns are aligned to the index). The diagonal is
        ignored; a NaN p-value (a test that could not be computed) is
        allowed.
    name : str, default="pvalues"
        Parameter name in the error messages.

    Returns
    -------
    names : list
        System names (the DataFrame's index, else ``0..k-1``).
    p : ndarray of shape (k, k)
        The p-values, with NaN on the diagonal.

    Raises
    ------
    ValueError
        Not a square matrix of numbers, different row and column names, not
        symmetric, or off-diagonal values outside [0, 1].
    """
    if hasattr(pvalues, "columns") and hasattr(pvalues, "index"):  # DataFrame
        names = list(pvalues.index)
        if len(set(names)) != len(names) or set(names) != set(pvalues.columns) \
                or len(pvalues.columns) != len(names):
            raise ValueError(
                f"The '{name}' DataFrame must have the same distinct system names in its "
                f"index and its columns. Got index {names} and columns "
                f"{list(pvalues.columns)}."
            )
        pvalues = pvalues.loc[:, names]
    p = real_array(getattr(pvalues, "to_numpy", lambda: pvalues)(), name,
                   "a matrix of p-values (real numbers in [0, 1])")
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ValueError(
            f"The '{name}' parameter must be a square (k, k) matrix. Got shape {p.shape} instead."
        )
    k = p.shape[0]
    if not hasattr(pvalues, "columns"):
        names = list(range(k))
    np.fill_diagonal(p, np.nan)
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError(f"The '{name}' parameter must hold p-values in [0, 1] (or NaN) off "
                         "the diagonal.")
    if not np.allclose(p, p.T, rtol=1e-12, atol=0, equal_nan=True):
        i, j = np.argwhere(~np.isclose(p, p.T, rtol=1e-12, atol=0, equal_nan=True))[0]
        raise ValueError(
            f"The '{name}' parameter must be a symmetric matrix: entry ({names[i]!r}, "
            f"{names[j]!r}) is {p[i, j]!r} but ({names[j]!r}, {names[i]!r}) is {p[j, i]!r}."
        )
    return names, p


def _score_order(scores, names):
    """Display order: decreasing ``scores``, ties by name (not by matrix position)."""
    k = len(names)
    if isinstance(scores, Mapping) or hasattr(scores, "keys"):  # dict or Series
        keys = list(scores.keys())
        if len(keys) != k or set(keys) != set(names):
            raise ValueError(
                f"The 'scores' parameter must give one score per system of 'pvalues' "
                f"{names}. Got {keys}."
            )
        values = [scores[n] for n in names]
    else:
        values = scores
    try:
        s = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The 'scores' parameter must hold real numbers: {exc}") from exc
    if s.shape != (k,):
        raise ValueError(f"The 'scores' parameter must hold {k} scores (one per system of "
                         f"'pvalues'). Got shape {s.shape} instead.")
    if not np.all(np.isfinite(s)):
        raise ValueError("The 'scores' parameter must hold finite numbers.")
    by_name = np.argsort(np.argsort(np.array([str(n) for n in names]), kind="stable"),
                         kind="stable")
    return np.lexsort((by_name, -s))


def compact_letters(pvalues, scores=None, alpha=0.05):
    r"""Compact letter display of any symmetric matrix of pairwise p-values.

    Systems ``i`` and ``j`` share a letter exactly when
    :math:`p_{ij} > \alpha` (not significantly different); the letters are
    the columns of Piepho's (2004) insert-and-absorb algorithm followed by
    its sweeping step, the display of :meth:`ComparisonResult.letters`, for
    a matrix from any source (e.g. a Conover, Dunn or Wilcoxon post-hoc of
    scikit-posthocs, or adjusted p-values of :func:`adjust_pvalues`).

    Parameters
    ----------
    pvalues : DataFrame or array-like of shape (k, k)
        Symmetric matrix of p-values in [0, 1], a DataFrame with the system
        names as index and columns (an array: systems ``0..k-1``). The
        diagonal is ignored; a NaN p-value (no test) counts as not
        significant, as in :func:`compare`.
    scores : mapping, Series or array-like of shape (k,), optional
        Score of each system, higher is better (pass a loss negated): the
        systems are listed by decreasing score, ties by name, and ``"a"``
        goes to the best one. Without it, the matrix order.
    alpha : float, default=0.05
        Significance level, in (0, 1).

    Returns
    -------
    letters : pandas.Series of str
        Indexed by system (index name ``"system"``), in display order.

    Raises
    ------
    ValueError
        ``pvalues`` not square, not symmetric, with different row and column
        names, or with values outside [0, 1]; ``scores`` not one finite
        number per system; ``alpha`` outside (0, 1).

    Notes
    -----
    Every pattern of significances has an exact display, but not always
    one whose letters are intervals of the score order: a letter may skip
    a system. Each letter is a group of systems with pairwise
    :math:`p > \alpha`, and every such pair shares one.

    References
    ----------
    H.-P. Piepho (2004). An algorithm for a letter-based representation of
    all-pairwise comparisons. Journal of Computational and Graphical
    Statistics 13(2), 456-466.

    Examples
    --------
    >>> import pandas as pd
    >>> from sigtest import compact_letters
    >>> p = pd.DataFrame([[1, .30, .01], [.30, 1, .20], [.01, .20, 1]],
    ...                  index=list("ABC"), columns=list("ABC"))
    >>> compact_letters(p, scores={"A": .71, "B": .80, "C": .90}).to_dict()
    {'C': 'a', 'B': 'ab', 'A': 'b'}
    """
    import pandas as pd

    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise ValueError(f"The 'alpha' parameter must be a number in (0, 1). Got {alpha!r}.")
    names, p = check_pvalue_matrix(pvalues)
    order = np.arange(len(names)) if scores is None else _score_order(scores, names)
    sig = p <= alpha  # NaN (diagonal, no test): not significant
    letters = compact_letter_display(sig, order=order)
    return pd.Series([letters[i] for i in order], index=pd.Index([names[i] for i in order],
                                                                  name="system"),
                     name="letters", dtype=object)
