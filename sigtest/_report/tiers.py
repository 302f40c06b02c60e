"""Tiers of a ranked list of systems, and the choice between letters and tiers.

A compact letter display (:mod:`sigtest._report.letters`) is exact, but a
long leaderboard of close systems can need hundreds of letters, which no
reader can follow. :func:`step_down_tiers` gives each system one number
instead; :func:`group_labels` picks the letters when they stay readable
(:data:`MAX_LETTERS` letters at most) and the tiers otherwise, and says which.
"""

from dataclasses import dataclass

import numpy as np

from sigtest._report.letters import _letter, letter_columns

__all__ = ["MAX_LETTERS", "GroupLabels", "group_labels", "significance_matrix",
           "step_down_tiers"]

#: A letter display with more letters than this is shown as tiers: beyond
#: ``a``-``z`` a system's string of letters is no longer read at a glance.
MAX_LETTERS = 26


def step_down_tiers(significant, order):
    """Tier numbers of systems listed best first: a tier ends at a significant drop.

    Walking down ``order``, the first system leads tier 1; a system joins
    the tier of the current leader when the two do not differ
    significantly, and otherwise leads the next tier. A tier is therefore
    a run of consecutive systems, none significantly worse than its
    leader (the best system of the tier); a system of tier ``t + 1`` is
    significantly worse than the leader of tier ``t``. With the max-T
    step-down adjusted p-values of :func:`sigtest.compare` the family-wise
    error of all the drops together is at most ``alpha``.

    Parameters
    ----------
    significant : array-like of bool, shape (k, k)
        Symmetric; ``significant[i, j]`` when systems ``i`` and ``j`` differ
        significantly.
    order : array-like of int, shape (k,)
        The systems best first (a permutation of ``range(k)``).

    Returns
    -------
    tiers : ndarray of int, shape (k,)
        ``tiers[i]``: the tier of system ``i`` (1 = the top tier).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest._report.tiers import step_down_tiers
    >>> sig = np.array([[0, 0, 1, 1], [0, 0, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0]], bool)
    >>> step_down_tiers(sig, [0, 1, 2, 3]).tolist()
    [1, 1, 2, 2]
    """
    sig = np.asarray(significant, dtype=bool)
    order = np.asarray(order, dtype=np.intp)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1] or sorted(order.tolist()) != list(
            range(sig.shape[0])):
        raise ValueError("The 'order' parameter must be a permutation of the systems of a "
                         f"square 'significant' matrix. Got shapes {sig.shape} and "
                         f"{order.shape}.")
    tiers = np.zeros(sig.shape[0], dtype=np.int64)
    tier, leader = 0, None
    for s in order:
        if leader is None or sig[leader, s]:
            tier, leader = tier + 1, s
        tiers[s] = tier
    return tiers


@dataclass(frozen=True)
class GroupLabels:
    """The group labels of the systems and how they were made.

    Attributes
    ----------
    labels : list of str
        ``labels[i]``: the letters (e.g. ``"ab"``) or the tier (``"3"``) of
        system ``i``.
    kind : {"letters", "tiers"}
    n_letters : int
        Letters of the exact display (also when tiers are shown).
    note : str
        One sentence for the reader when tiers replace the letters, else ``""``.
    """

    labels: list
    kind: str
    n_letters: int
    note: str


def group_labels(significant, order, max_letters=None):
    """Letters when at most ``max_letters`` suffice, else :func:`step_down_tiers`.

    Parameters
    ----------
    significant : array-like of bool, shape (k, k)
        Symmetric significance matrix.
    order : array-like of int, shape (k,)
        The systems best first.
    max_letters : int, optional
        Largest display shown as letters; default :data:`MAX_LETTERS`.

    Returns
    -------
    GroupLabels

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest._report.tiers import group_labels
    >>> sig = np.zeros((3, 3), dtype=bool)
    >>> sig[0, 2] = sig[2, 0] = True
    >>> group_labels(sig, [0, 1, 2]).labels
    ['a', 'ab', 'b']
    >>> shown = group_labels(sig, [0, 1, 2], max_letters=1)
    >>> shown.kind, shown.labels
    ('tiers', ['1', '1', '2'])
    """
    max_letters = MAX_LETTERS if max_letters is None else max_letters
    columns = letter_columns(significant, order)
    k = len(order)
    if len(columns) <= max_letters:
        labels = [""] * k
        for n, col in enumerate(columns):
            for t in col:
                labels[t] += _letter(n)
        return GroupLabels(labels, "letters", len(columns), "")
    tiers = step_down_tiers(significant, order)
    note = (f"a valid letter display of these {k} systems needs {len(columns)} letters "
            f"(more than {max_letters}): tiers are shown instead (a tier ends where a system "
            "is significantly worse than the tier's best)")
    return GroupLabels([str(t) for t in tiers], "tiers", len(columns), note)


def significance_matrix(frame, systems, metric, test):
    """The pairwise decisions of one metric and test, as matrices.

    Parameters
    ----------
    frame : pandas.DataFrame
        The comparison's rows (:meth:`ComparisonResult.to_frame`) of one run.
    systems : list of str
    metric, test : str

    Returns
    -------
    significant : ndarray of bool, shape (k, k)
        Symmetric: the pair's ``significant`` column.
    complete : bool
        Whether every pair was tested.
    n_significant : int
        Significant pairs.
    """
    rows = frame[(frame["metric"] == metric) & (frame["test"] == test)]
    index = {name: i for i, name in enumerate(systems)}
    a = rows["system_a"].map(index).to_numpy(dtype=np.intp)
    b = rows["system_b"].map(index).to_numpy(dtype=np.intp)
    flags = rows["significant"].to_numpy(dtype=bool)
    k = len(systems)
    tested = np.eye(k, dtype=bool)
    tested[a, b] = tested[b, a] = True
    sig = np.zeros((k, k), dtype=bool)
    sig[a, b] = sig[b, a] = flags
    return sig, bool(tested.all()), int(flags.sum())
