"""Compact letter display of pairwise comparisons (Piepho 2004).

:func:`compact_letter_display` works on a boolean significance matrix (behind
:meth:`ComparisonResult.letters`); :func:`compact_letters` is the public
entry point on any symmetric p-value matrix.
"""

import functools
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


def _bits(rows):
    """Python-int bitsets of the rows of a boolean matrix (bit ``j`` of row ``i``)."""
    packed = np.packbits(np.asarray(rows, dtype=bool), axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _members(bits):
    """Indices of the set bits of ``bits``, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


# work of the insert-and-absorb search beyond which it is dropped for the cover
# (column visits and comparisons: a few tenths of a second at most)
_PIEPHO_BUDGET = 2_000_000


def _piepho(adj, k, budget=_PIEPHO_BUDGET):
    """Piepho's (2004) insert-and-absorb columns (bitsets), or None past ``budget``.

    Start with one column holding every system; for each significant pair
    ``(i, j)`` split every column holding both (one copy without ``i``, one
    without ``j``) and absorb the columns contained in another. The columns
    are then the maximal cliques of the "not different" graph; their number
    can grow exponentially with ``k``, hence the budget.
    """
    columns = [(1 << k) - 1]
    work = 0
    for i in range(k):
        for j in _members(((1 << k) - 1) & ~adj[i] & ~((1 << (i + 1)) - 1)):
            pair = (1 << i) | (1 << j)
            work += len(columns)
            if work > budget:
                return None
            if not any(col & pair == pair for col in columns):
                continue
            new = []
            for col in columns:
                if col & pair == pair:
                    new += [col & ~(1 << i), col & ~(1 << j)]
                else:
                    new.append(col)
            work += len(new) ** 2
            if work > budget:
                return None
            columns = [col for n, col in enumerate(new)  # absorb: O(len(new) ** 2)
                       if not any(col & other == col and (col != other or m < n)
                                  for m, other in enumerate(new) if m != n)]
    return columns


def _absorb(columns):
    """Drop every column that is a subset of another (keep the first of equal ones).

    Larger columns first; a column lies inside a kept one iff some kept
    column holds every one of its members: ``holders[m]``, the bitset of the
    kept columns holding ``m``, ANDed over the members is not 0 (a few
    operations a member, not a comparison with every kept column).
    """
    unique = list(dict.fromkeys(col for col in columns if col))
    holders = {}
    kept = set()
    for col in sorted(unique, key=lambda c: -c.bit_count()):
        members = _members(col)
        common = -1
        for m in members:
            common &= holders.get(m, 0)
            if not common:
                break
        if common:
            continue
        bit = 1 << len(kept)
        kept.add(col)
        for m in members:
            holders[m] = holders.get(m, 0) | bit
    return [col for col in unique if col in kept]


def _greedy_cover(adj, k):
    """An edge clique cover of the "not different" graph, built in display order.

    ``adj[i]``: bitset of the systems not significantly different from ``i``
    (bit = display position). The first system with an uncovered pair starts
    a letter with its first uncovered partner; the letter then grows, while
    it can, by the first system not different from all its members,
    preferring one that covers a pair not covered yet, up to a maximal
    group. A system different from all others gets a letter of its own.
    Each step is a few operations on ``k``-bit integers, so ``k = 1000``
    takes well under a second, whatever the pattern.
    """
    uncovered = list(adj)
    columns = []
    for u in range(k):
        if not adj[u]:
            columns.append(1 << u)
        while uncovered[u]:
            v = (uncovered[u] & -uncovered[u]).bit_length() - 1
            col = (1 << u) | (1 << v)
            candidates = adj[u] & adj[v]
            wanted = uncovered[u] | uncovered[v]
            while candidates:
                pick = candidates & wanted or candidates
                w = (pick & -pick).bit_length() - 1
                col |= 1 << w
                candidates &= adj[w]
                wanted |= uncovered[w]
            for m in _members(col):
                uncovered[m] &= ~col
            columns.append(col)
    return columns


# the member step of the sweep runs while the display holds at most this many
# (system, letter) entries: it shortens the letter strings, never the number of
# letters, and costs a step per entry (a display this large is read as tiers)
_SWEEP_MEMBERS_MAX = 20_000


def _sweep(columns, k):
    """Remove letters whose connections are all carried by other letters.

    A whole column goes when every pair it holds is held by another column
    and each member has another letter; then member ``t`` of column ``c``
    goes when ``t`` has another letter and shares a column other than ``c``
    with every other member of ``c`` (Piepho 2004, sweeping step; this member
    step only while the display has at most ``_SWEEP_MEMBERS_MAX`` entries).
    """
    # letters each pair shares (diagonal: letters), as lists: most columns of a
    # large display hold a few systems, for which numpy's fancy indexing costs
    # ~50 times the few integer operations
    counts = [[0] * k for _ in range(k)]
    members_of = [_members(col) for col in columns]
    for members in members_of:
        for a in members:
            row = counts[a]
            for b in members:
                row[b] += 1
    for n in range(len(members_of) - 1, -1, -1):
        members = members_of[n]
        if all(counts[a][b] >= 2 for a in members for b in members):
            for a in members:
                row = counts[a]
                for b in members:
                    row[b] -= 1
            members_of[n] = []
    sets = [np.array(members, dtype=np.intp) for members in members_of]
    if sum(len(members) for members in sets) <= _SWEEP_MEMBERS_MAX:
        shared = np.array(counts, dtype=np.int32)
        for n, members in enumerate(sets):
            sub = shared[np.ix_(members, members)]
            keep = np.ones(len(members), dtype=bool)
            for i in range(len(members)):
                others = keep.copy()
                others[i] = False
                if sub[i, i] >= 2 and others.any() and sub[i, others].min() >= 2:
                    keep[i] = False
                    sub[i, others] -= 1
                    sub[others, i] -= 1
                    sub[i, i] -= 1
            shared[np.ix_(members, members)] = sub
            sets[n] = members[keep]
    out = [sum(1 << int(m) for m in members) for members in sets]
    return _absorb([col for col in out if col])


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
    return list(_columns(sig.tobytes(), k, tuple(order.tolist())))


@functools.lru_cache(maxsize=16)
def _columns(sig_bytes, k, order):
    """:func:`letter_columns` of a checked matrix (its bytes) and order, kept for reuse.

    The report, the leaderboard and the letters of one result ask for the
    same display several times (letters, then whether they are too many); a
    pure function of its inputs, computed once.
    """
    sig = np.frombuffer(sig_bytes, dtype=bool).reshape(k, k)
    order = np.asarray(order, dtype=int)
    # bit p of adj[q]: the systems at display positions p and q are not different
    near = ~sig[np.ix_(order, order)]
    np.fill_diagonal(near, False)
    adj = _bits(near)
    cover = _sweep(_greedy_cover(adj, k), k)
    exact = _piepho(adj, k)
    if exact is not None:
        exact = _sweep(exact, k)
        if len(exact) <= len(cover):
            cover = exact
    # letters in display order: "a" to the column of the first system, ...
    cover.sort(key=lambda col: _members(col))
    return tuple(frozenset(int(order[p]) for p in _members(col)) for col in cover)


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
    """Display order (decreasing ``scores``, ties by name) and the scores as floats."""
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
    return np.lexsort((by_name, -s)), s


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
    letters : pandas.DataFrame
        Indexed by system (index name ``"system"``), in display order, with
        columns ``score`` (the given score; NaN without ``scores``) and
        ``letters`` (str): the shape of :meth:`ComparisonResult.letters`.

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
    >>> compact_letters(p, scores={"A": .71, "B": .80, "C": .90})["letters"].to_dict()
    {'C': 'a', 'B': 'ab', 'A': 'b'}
    """
    import pandas as pd

    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise ValueError(f"The 'alpha' parameter must be a number in (0, 1). Got {alpha!r}.")
    names, p = check_pvalue_matrix(pvalues)
    if scores is None:
        order, values = np.arange(len(names)), np.full(len(names), np.nan)
    else:
        order, values = _score_order(scores, names)
    sig = p <= alpha  # NaN (diagonal, no test): not significant
    letters = compact_letter_display(sig, order=order)
    return pd.DataFrame({"score": values[order],
                         "letters": pd.Series([letters[i] for i in order], dtype=object).values},
                        index=pd.Index([names[i] for i in order], name="system"))
