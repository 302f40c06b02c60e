r"""Almost Stochastic Order (ASO) of two samples of per-seed scores.

Dror, Shlomov & Reichart (2019) compare two training algorithms from the
scores of several runs (seeds) of each: A is *stochastically larger* than B
when the quantile function of A lies above that of B everywhere,
:math:`F^{-1}(t) \ge G^{-1}(t)` for all :math:`t`. Almost stochastic order
(del Barrio, Cuesta-Albertos & Matrán 2018) measures how much of the
squared Wasserstein distance comes from where the order is violated,

.. math::

    \varepsilon_{W_2}(F, G) = \frac{\int_0^1 \max\{G^{-1}(t) - F^{-1}(t),
    0\}^2 \, dt}{\int_0^1 \left(F^{-1}(t) - G^{-1}(t)\right)^2 dt}
    = \frac{\int_{V} (F^{-1} - G^{-1})^2}{W_2^2(F, G)},

with :math:`V = \{t : F^{-1}(t) < G^{-1}(t)\}`: 0 when :math:`F` dominates
:math:`G`, 1 when :math:`G` dominates :math:`F`, 1/2 when neither is ahead. The test of :math:`H_0:
\varepsilon \ge \varepsilon_0` rejects when
:math:`\sqrt{nm/(n+m)}\,(\hat\varepsilon - \varepsilon_0) < \hat\sigma\,
\Phi^{-1}(\alpha)`, so the smallest :math:`\varepsilon_0` rejected at
confidence level :math:`1 - \alpha` is

.. math::

    \varepsilon_{\min} = \hat\varepsilon - \sqrt{\tfrac{n+m}{nm}}\,
    \hat\sigma_{n,m}\,\Phi^{-1}(\alpha)
    = \hat\varepsilon + \hat s\,\Phi^{-1}(1 - \alpha),

clipped to :math:`[0, 1]`, an upper confidence bound of the violation ratio.
:math:`\hat s = \sqrt{(n+m)/(nm)}\,\hat\sigma_{n,m}` is the standard deviation
of :math:`\hat\varepsilon` estimated by the bootstrap: ``n_resamples``
resamples of ``n`` scores of A and ``m`` of B drawn with replacement
(equivalently, from the empirical quantile functions), as in the corrected
bootstrap of deep-significance (Ulmer, Hardmeier & Frellsen 2022).

**Orientation.** Every sigtest result reads "B better" the same way, so
:func:`almost_stochastic_order` ``(scores_a, scores_b)`` takes :math:`F` =
B's scores and :math:`G` = A's: ``epsilon_min`` bounds how much B fails to
dominate A, and a *small* ``epsilon_min`` means **B is better** (as a small
p-value with a positive difference does). It is deepsig's
``aso(scores_b, scores_a)``; scores are higher-is-better.

Both integrals are computed exactly on the empirical quantile functions
(step functions, constant between the breakpoints :math:`i/n` and
:math:`j/m`); deepsig evaluates them on a grid of step ``dt = 0.005`` (and
drops the first grid point from the numerator), so its ratios differ from
these by up to .025 in ``tests/significance/test_aso.py`` (7 vs 20 scores), and agree to
6e-4 with ``dt = 1e-4``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from statistics import NormalDist

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._results import FieldsDictMixin
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import renamed_keywords, warn_external
from sigtest.utils._param_validation import lazy, validate_params

__all__ = ["ASOResult", "almost_stochastic_order", "aso_matrix"]

_RANDOM_STATE = [None, Integral, np.random.SeedSequence, np.random.Generator,
                 np.random.RandomState]


@dataclass(frozen=True)
class ASOResult(FieldsDictMixin):
    """Result of :func:`almost_stochastic_order` (B against A: small favours B).

    Parameters
    ----------
    epsilon_min : float
        Upper confidence bound of the violation ratio
        :math:`\\varepsilon_{W_2}(F_B, F_A)` (how much B fails to dominate
        A) at ``confidence_level``, in [0, 1]. Below 0.2 (Ulmer et al. 2022;
        Dror et al. 2019 use 0.5, which concludes "B better" for ~20 % of
        identical distributions, see ``docs/seeds.md``): B is almost
        stochastically larger (better) than A.
    violation_ratio : float
        The observed violation ratio :math:`\\hat\\varepsilon` (0.5 for
        identical samples).
    sigma : float
        Bootstrap standard deviation of the violation ratio.
    confidence_level : float
        Confidence level used (after the Bonferroni adjustment for
        :func:`aso_matrix`).
    n_resamples : int
        Number of bootstrap resamples.
    n_a, n_b : int
        Number of scores of A and of B.
    """

    epsilon_min: float
    violation_ratio: float
    sigma: float
    confidence_level: float
    n_resamples: int
    n_a: int
    n_b: int

    def __str__(self):
        if self.epsilon_min < 0.2:
            verdict = "B is almost stochastically larger than A (epsilon_min < 0.2)"
        elif self.epsilon_min < 0.5:
            verdict = ("B is ahead only by the 0.5 threshold, which is not a level-0.05 "
                       "test (use 0.2)")
        else:
            verdict = "no almost stochastic order of B over A"
        return (f"ASO: epsilon_min = {self.epsilon_min:.4f} (violation ratio "
                f"{self.violation_ratio:.4f}, bootstrap sd {self.sigma:.4f}, "
                f"{self.confidence_level:.4g} level, {self.n_resamples} resamples, "
                f"n_a = {self.n_a}, n_b = {self.n_b}): {verdict}")


def _check_scores(scores, name):
    try:
        arr = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The '{name}' parameter must hold real numbers: {exc}") from exc
    if arr.ndim != 1:
        raise ValueError(f"The '{name}' parameter must be 1-D (one score per run). Got shape "
                         f"{arr.shape} instead.")
    if arr.shape[0] < 2:
        raise ValueError(f"The '{name}' parameter needs at least 2 scores (runs). Got "
                         f"{arr.shape[0]}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"The '{name}' parameter holds NaN or infinite scores.")
    return arr


def _segments(n, m):
    """Breakpoints of two empirical quantile functions of ``n`` and ``m`` points.

    Returns the index into the sorted A and B sample and the width of every
    interval on which both quantile functions are constant: the union of
    the breakpoints ``i / n`` and ``j / m`` (integers over ``n m``).
    """
    points = np.union1d(np.arange(n + 1) * m, np.arange(m + 1) * n)
    start = points[:-1]
    width = np.diff(points) / float(n * m)
    # on (p / nm, next / nm): F^{-1}(t) = x_(ceil(n t)) = sorted_a[p // m], same for B
    return start // m, start // n, width


def _violation_ratios(sorted_a, sorted_b, segments):
    """Violation ratios of rows of sorted samples; ``nan`` where W2 = 0."""
    ia, ib, width = segments
    diff = sorted_b[..., ib] - sorted_a[..., ia]  # G^{-1} - F^{-1}
    total = (diff * diff) @ width
    viol = (np.maximum(diff, 0.0) ** 2) @ width
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, viol / np.where(total > 0, total, 1.0), np.nan)


def _aso(a, b, confidence_level, n_resamples, rng):
    """ASO of checked samples: ``(violation ratio, bootstrap sd, epsilon_min)``."""
    n, m = a.shape[0], b.shape[0]
    seg = _segments(n, m)
    eps = float(_violation_ratios(np.sort(a), np.sort(b), seg))
    degenerate = math.isnan(eps)
    if degenerate:
        warn_external(
            "almost_stochastic_order: the two samples have the same distribution (W2 = 0), "
            "so the violation ratio is undefined; it is set to 0.5 (neither is ahead), "
            "as deepsig does.", DegenerateDistributionWarning)
        eps = 0.5
    boot = np.empty(n_resamples)
    chunk = max(1, (1 << 20) // (n + m))
    for lo in range(0, n_resamples, chunk):
        hi = min(n_resamples, lo + chunk)
        ra = np.sort(a[rng.integers(0, n, size=(hi - lo, n))], axis=1)
        rb = np.sort(b[rng.integers(0, m, size=(hi - lo, m))], axis=1)
        boot[lo:hi] = _violation_ratios(ra, rb, seg)
    boot = np.where(np.isnan(boot), 0.5, boot)  # W2 = 0 in a resample: as observed
    sigma = float(np.std(boot))
    z = NormalDist().inv_cdf(confidence_level)
    eps_min = float(min(1.0, max(0.0, eps + sigma * z)))
    return eps, sigma, eps_min


def _rng(random_state):
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    return np.random.default_rng(random_state)


@validate_params(
    {"scores_a": ["array-like"], "scores_b": ["array-like"],
     "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
     "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
     "random_state": _RANDOM_STATE},
    prefer_skip_nested_validation=True,
)
def almost_stochastic_order(scores_a, scores_b, *, confidence_level=0.95, n_resamples=N_RESAMPLES,
                            random_state=None):
    r"""Almost Stochastic Order test of Dror et al. (2019) on per-seed scores.

    Tests whether the algorithm behind ``scores_b`` (one score per training
    run, higher is better) is almost stochastically larger than the one
    behind ``scores_a``: ``epsilon_min`` is an upper confidence bound, at
    ``confidence_level``, of the violation ratio

    .. math:: \varepsilon_{W_2}(F, G) = \frac{\int_0^1 \max\{G^{-1}(t) -
              F^{-1}(t), 0\}^2 dt}{W_2^2(F, G)}

    (:math:`F`: the distribution of B's scores, :math:`G`: of A's), the
    share of the squared Wasserstein distance where A's quantiles exceed
    B's: ``epsilon_min`` near 0 means B dominates A; 0.5, neither;
    near 1, A dominates B. A small value favours B, as everywhere in
    sigtest (a small p-value with a positive difference); this is deepsig's
    ``aso(scores_b, scores_a)``. Dror et al. read ``epsilon_min < 0.5`` as
    "better" (ideally use a stricter threshold such as 0.2, Ulmer et al.
    2022). ``epsilon_min = clip(eps + s * Phi^{-1}(confidence_level), 0, 1)``
    with the observed ratio ``eps`` and its bootstrap standard deviation
    ``s`` (``n_resamples`` resamples of each sample with replacement); the
    integrals are exact on the empirical quantile functions (see
    :mod:`sigtest.tests_._aso`).

    Read more in ``docs/seeds.md``.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_runs,)
        Scores of the runs (seeds) of A and of B, at least 2 each, finite;
        the counts may differ.
    confidence_level : float in (0, 1), default=0.95
        Confidence level of the bound (deepsig's ``confidence_level``).
    n_resamples : int, default=9999
        Bootstrap resamples of the standard deviation.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the bootstrap (``numpy.random.default_rng``).

    Returns
    -------
    result : ASOResult
        ``epsilon_min``, ``violation_ratio``, ``sigma``, ``confidence_level``,
        ``n_resamples``, ``n_a``, ``n_b``.

    Raises
    ------
    ValueError
        Fewer than 2 scores, NaN or infinite scores, not 1-D (the message
        names the argument); bad ``confidence_level`` or ``n_resamples``.

    Warns
    -----
    DegenerateDistributionWarning
        Both samples have the same empirical distribution (:math:`W_2 = 0`):
        the violation ratio is 0.5 by convention (as deepsig).

    See Also
    --------
    aso_matrix : Every pair of several systems, with Bonferroni.
    compare : Item-level paired tests, ``runs="nested"`` over seeds and items.

    References
    ----------
    R. Dror, S. Shlomov, R. Reichart (2019). Deep Dominance - How to Properly
    Compare Deep Neural Models. ACL.
    E. del Barrio, J. A. Cuesta-Albertos, C. Matrán (2018). An optimal
    transportation approach for assessing almost stochastic order. In The
    Mathematics of the Uncertain, Springer.
    D. Ulmer, C. Hardmeier, J. Frellsen (2022). deep-significance: Easy and
    Meaningful Significance Testing in the Age of Neural Networks. arXiv
    2204.06815.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import almost_stochastic_order
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.0, 1.0, 10)  # ten seeds of the baseline
    >>> b = rng.normal(1.0, 1.0, 10)  # ten seeds of a better system
    >>> res = almost_stochastic_order(a, b, random_state=0)
    >>> bool(res.epsilon_min < 0.5)  # small: B better
    True
    >>> bool(almost_stochastic_order(b, a, random_state=0).epsilon_min > 0.5)
    True
    """
    a = _check_scores(scores_a, "scores_a")
    b = _check_scores(scores_b, "scores_b")
    level = float(confidence_level)
    # F = B's scores, G = A's: small epsilon_min favours B (see the module docstring)
    eps, sigma, eps_min = _aso(b, a, level, int(n_resamples), _rng(random_state))
    return ASOResult(epsilon_min=eps_min, violation_ratio=eps, sigma=sigma,
                     confidence_level=level, n_resamples=int(n_resamples),
                     n_a=int(a.shape[0]), n_b=int(b.shape[0]))


@renamed_keywords(use_bonferroni="correction")
@validate_params(
    {"scores": [Mapping],
     "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
     "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
     "correction": [lazy.StrOptions({"bonferroni"}), None],
     "random_state": _RANDOM_STATE},
    prefer_skip_nested_validation=True,
)
def aso_matrix(scores, *, confidence_level=0.95, n_resamples=N_RESAMPLES,
               correction="bonferroni", random_state=None):
    r"""Almost Stochastic Order of every pair of systems (deepsig's ``multi_aso``).

    Entry ``[a, b]`` is ``epsilon_min`` of
    :func:`almost_stochastic_order` with ``scores_a = scores[a]`` and
    ``scores_b = scores[b]``: small means the column system is better than
    the row system (B against A, as every sigtest result). With
    ``correction="bonferroni"`` the confidence level of every pair is
    :math:`1 - (1 - \text{confidence\_level}) / K` with :math:`K = k(k-1)/2` the number of unordered pairs of the :math:`k`
    systems (deepsig's correction). Each unordered pair is bootstrapped
    once: the violation ratio of (b, a) is one minus that of (a, b), with
    the same standard deviation. deepsig's ``multi_aso`` puts the reverse
    orientation (small: row better); its matrix is this one transposed.

    Parameters
    ----------
    scores : mapping of str -> array-like of shape (n_runs,)
        Per-seed scores of every system (at least two systems, 2 scores
        each).
    confidence_level : float in (0, 1), default=0.95
        Family confidence level.
    n_resamples : int, default=9999
        Bootstrap resamples per pair.
    correction : {"bonferroni"} or None, default="bonferroni"
        Multiple-comparison correction, as :func:`sigtest.compare`'s
        ``correction``: ``"bonferroni"`` adjusts the level for the :math:`K`
        pairs; ``None`` leaves it. Only Bonferroni's level adjustment is
        defined for a bound without a p-value.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed; each unordered pair gets one child of
        ``numpy.random.SeedSequence(random_state).spawn(K)`` in the order of
        the sorted system names, so the matrix does not depend on the order
        of ``scores``.

    Returns
    -------
    matrix : pandas.DataFrame
        Systems x systems ``epsilon_min`` (rows: A, columns: B, in the order
        given; small: the column system is better), ``nan`` on the diagonal
        (deepsig puts 1 there).

    Raises
    ------
    ValueError
        Fewer than two systems, or bad scores (the message names the system),
        a ``correction`` other than ``"bonferroni"`` or None.

    See Also
    --------
    almost_stochastic_order : One pair.

    References
    ----------
    R. Dror, S. Shlomov, R. Reichart (2019). Deep Dominance - How to Properly
    Compare Deep Neural Models. ACL.
    D. Ulmer, C. Hardmeier, J. Frellsen (2022). deep-significance. arXiv
    2204.06815.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import aso_matrix
    >>> rng = np.random.default_rng(0)
    >>> scores = {"base": rng.normal(0, 1, 8), "new": rng.normal(2, 1, 8)}
    >>> m = aso_matrix(scores, random_state=0)
    >>> bool(m.loc["base", "new"] < 0.5), bool(m.loc["new", "base"] > 0.5)  # column better
    (True, True)
    """
    import pandas as pd

    names = [str(k) for k in scores]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("The 'scores' parameter must map at least two distinct system names "
                         f"to scores. Got {names}.")
    arrays = {str(k): _check_scores(v, f"scores[{str(k)!r}]") for k, v in scores.items()}
    k = len(names)
    n_pairs = k * (k - 1) // 2
    level = float(confidence_level)
    if correction == "bonferroni":
        level = 1.0 - (1.0 - level) / n_pairs
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        root = np.random.SeedSequence(int(_rng(random_state).integers(0, 2**63 - 1)))
    else:
        root = np.random.SeedSequence(random_state)
    children = iter(root.spawn(n_pairs))
    out = pd.DataFrame(np.nan, index=names, columns=names)
    ordered = sorted(names)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            # entry [a, b] is almost_stochastic_order(scores[a], scores[b]): F = b's scores
            eps, sigma, eps_min = _aso(arrays[b], arrays[a], level, int(n_resamples),
                                       np.random.default_rng(next(children)))
            z = NormalDist().inv_cdf(level)
            out.loc[a, b] = eps_min
            out.loc[b, a] = float(min(1.0, max(0.0, (1.0 - eps) + sigma * z)))
    return out
