r"""Bayesian comparison of two systems over several datasets (Benavoli et al. 2017).

Two models, as baycomp's ``two_on_multiple`` (Benavoli, Corani, Demšar and
Zaffalon 2017):

* :func:`bayesian_signed_rank` — one score per dataset: the Bayesian
  signed-rank test of Benavoli et al. (2014), a Dirichlet process on the
  differences;
* :func:`hierarchical_bayes` — several cross-validation scores per dataset:
  the hierarchical model of Corani, Benavoli, Demšar, Mangili and Zaffalon
  (2017), sampled here by our own Gibbs sampler (baycomp needs Stan).

Both return a :class:`DatasetPosterior`: per posterior draw the
probabilities that B (``scores_b``) is worse than A (``scores_a``) by more than the region of
practical equivalence (ROPE) ``[-rope, rope]``, within it, or better; the
posterior probabilities of the three verdicts are the fractions of draws in
which each is the largest. :func:`sigtest.plotting.plot_simplex` draws them.

References
----------
A. Benavoli, G. Corani, F. Mangili, M. Zaffalon and F. Ruggeri (2014). A
Bayesian Wilcoxon signed-rank test based on the Dirichlet process. ICML,
PMLR 32(2), 1026-1034.
A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a change:
a tutorial for comparing multiple classifiers through Bayesian analysis.
JMLR 18(77), 1-36.
G. Corani, A. Benavoli, J. Demšar, F. Mangili and M. Zaffalon (2017).
Statistical comparison of classifiers through Bayesian hierarchical
modelling. Machine Learning 106, 1817-1837.
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from sigtest._results import TextSummaryMixin, to_plain
from sigtest.utils import renamed_keywords, warn_external
from sigtest.utils.validation import spawn_seeds

__all__ = ["DatasetPosterior", "bayesian_signed_rank", "hierarchical_bayes", "model_data",
           "signed_rank_samples"]


@dataclass(frozen=True)
class DatasetPosterior(TextSummaryMixin):
    r"""Posterior of a Bayesian comparison of two systems over datasets.

    Built by :func:`bayesian_signed_rank` and :func:`hierarchical_bayes`.
    Its probabilities have the names of the other Bayesian results
    (:class:`~sigtest.SignificanceResult`,
    :class:`~sigtest.cv.BayesianCVResult`): "better" means ``y`` (system
    B) better than ``x`` (system A).

    Parameters
    ----------
    samples : ndarray of shape (n_draws, 3)
        Per draw, the probabilities :math:`(p_\text{worse}, p_\text{equivalent},
        p_\text{better})` that B - A (``scores_b - scores_a``) is below ``-rope``, within
        ``[-rope, rope]``, above ``rope`` (each row sums to 1).
    rope : float
        Half-width of the region of practical equivalence (in score units).
    method : str
        ``"signed_rank"`` or ``"hierarchical"``.
    names : tuple of str
        Names of A and B (``("A", "B")`` from :func:`bayesian_signed_rank`
        and :func:`hierarchical_bayes` by default).
    parameters : dict
        The hierarchical model's draws of ``delta0``, ``std0`` and ``nu``
        (scaled back to score units); empty for the signed-rank test.

    Attributes
    ----------
    prob_worse, prob_equivalent, prob_better : float
        Posterior probabilities that ``y`` is practically worse than ``x``,
        practically equivalent, practically better: the fraction of draws
        in which each column of ``samples`` is the largest (baycomp's
        ``probs``), ties (within 1e-12) shared equally (baycomp gives them
        to the first).
    """

    samples: np.ndarray
    rope: float
    method: str
    names: tuple = ("A", "B")
    parameters: dict = field(default_factory=dict)

    def _shares(self):
        s = self.samples
        top = s >= s.max(axis=1, keepdims=True) - 1e-12  # rounding of sums of weights
        return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)

    @property
    def prob_worse(self):
        """Posterior probability that B is practically worse than A."""
        return float(self._shares()[0])

    @property
    def prob_equivalent(self):
        """Posterior probability that A and B are practically equivalent."""
        return float(self._shares()[1])

    @property
    def prob_better(self):
        """Posterior probability that B is practically better than A."""
        return float(self._shares()[2])

    def to_dict(self, include_distribution=False):
        """The posterior as a plain dict.

        Parameters
        ----------
        include_distribution : bool, default=False
            Also include ``samples`` (a list of rows) and ``parameters``
            (lists of draws).

        Returns
        -------
        result : dict
            ``method, rope, names, n_draws, prob_worse, prob_equivalent,
            prob_better`` (and ``samples``, ``parameters``).
        """
        worse, equivalent, better = map(float, self._shares())
        out = {"method": self.method, "rope": float(self.rope), "names": list(self.names),
               "n_draws": int(len(self.samples)), "prob_worse": worse,
               "prob_equivalent": equivalent, "prob_better": better}
        if include_distribution:
            out["samples"] = np.asarray(self.samples, dtype=np.float64).tolist()
            out["parameters"] = {k: np.asarray(v, dtype=np.float64).tolist()
                                 for k, v in self.parameters.items()}
        return to_plain(out)

    def __str__(self):
        worse, equivalent, better = self._shares()
        a, b = self.names
        return (f"DatasetPosterior ({self.method}, rope {self.rope:g}, {len(self.samples)} "
                f"draws): P({a} better) = {worse:.4f}, P(equivalent) = {equivalent:.4f}, "
                f"P({b} better) = {better:.4f}")


def _check_common(rope, n_draws, random_state, n_streams=1):
    if not (isinstance(rope, Real) and np.isfinite(rope) and rope >= 0):
        raise ValueError(f"The 'rope' parameter must be a finite number >= 0. Got {rope!r}.")
    if not (isinstance(n_draws, Integral) and n_draws >= 1):
        raise ValueError(f"The 'n_draws' parameter must be an integer >= 1. Got {n_draws!r}.")
    seeds = spawn_seeds(random_state, n_streams)
    return float(rope), int(n_draws), [np.random.default_rng(seed) for seed in seeds]


def _names(names):
    if names is None:
        return ("A", "B")
    names = tuple(map(str, names))
    if len(names) != 2:
        raise ValueError(f"The 'names' parameter must hold 2 names. Got {names!r}.")
    return names


def _heaviside(a, threshold):
    return (a > threshold).astype(np.float64) + 0.5 * (a == threshold)


def signed_rank_samples(diff, rope, weights):
    r"""Posterior draws of the Bayesian signed-rank test for given Dirichlet weights.

    With the differences :math:`z_0 = 0` (the prior's pseudo-observation)
    and :math:`z_1..z_N`, and Dirichlet weights :math:`w` (one row per
    draw), :math:`p_\text{right} = \sum_{ij} w_i w_j H(z_i + z_j - 2r)`,
    :math:`p_\text{left} = \sum_{ij} w_i w_j H(-z_i - z_j - 2r)`
    (:math:`H` the Heaviside step with :math:`H(0) = 1/2`) and
    :math:`p_\text{rope} = 1 - p_\text{left} - p_\text{right}`.

    Parameters
    ----------
    diff : ndarray of shape (N,)
    rope : float
    weights : ndarray of shape (n_draws, N + 1)

    Returns
    -------
    samples : ndarray of shape (n_draws, 3)
    """
    z = np.concatenate(([0.0], np.asarray(diff, dtype=np.float64)))
    sums = z[:, None] + z[None, :]
    out = np.empty((weights.shape[0], 3))
    above = _heaviside(sums, 2.0 * rope)
    below = _heaviside(-sums, 2.0 * rope)
    out[:, 2] = np.einsum("si,ij,sj->s", weights, above, weights, optimize=True)
    if rope > 0:
        out[:, 0] = np.einsum("si,ij,sj->s", weights, below, weights, optimize=True)
    else:  # H(s) + H(-s) = 1: the two verdicts share the mass (baycomp's convention)
        out[:, 0] = 1.0 - out[:, 2]
    out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    return out


@renamed_keywords(x="scores_a", y="scores_b", n_samples="n_draws")
def bayesian_signed_rank(scores_a, scores_b, *, rope=0.0, prior=0.5, n_draws=50_000,
                         random_state=None, names=None):
    r"""Bayesian signed-rank test of two systems over datasets (Benavoli et al. 2014).

    The differences :math:`z_i = b_i - a_i` over ``N`` datasets get a
    Dirichlet-process posterior with base measure a point mass at 0 of
    strength ``prior``: the weights of :math:`(0, z_1, \dots, z_N)` are
    :math:`w \sim \mathrm{Dir}(\text{prior}, 1, \dots, 1)`, and each draw gives
    the probabilities that the pseudo-median difference (Walsh averages
    :math:`(z_i + z_j)/2`) lies below ``-rope``, within, or above ``rope``
    (see :func:`signed_rank_samples`). Equal to baycomp's
    ``SignedRankTest`` given the same Dirichlet draws.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (N,)
        One score per dataset for each system, oriented so that higher is
        better (``prob_better``: B better).
    rope : float, default=0.0
        Half-width of the region of practical equivalence, in score units.
    prior : float, default=0.5
        Strength of the prior pseudo-observation at 0.
    n_draws : int, default=50000
        Posterior draws (baycomp's default).
    random_state : None, int, SeedSequence or Generator
        Seed of the Dirichlet draws.
    names : tuple of two str, optional
        Names of A and B (default ``("A", "B")``).

    Returns
    -------
    posterior : DatasetPosterior
        The draws and the probabilities of the three verdicts (``prob_worse``,
        ``prob_equivalent``, ``prob_better``).

    Raises
    ------
    ValueError
        Mismatched, non-finite or fewer than 2 scores, a negative rope or
        prior.

    References
    ----------
    A. Benavoli, G. Corani, F. Mangili, M. Zaffalon and F. Ruggeri (2014). A
    Bayesian Wilcoxon signed-rank test based on the Dirichlet process. ICML.
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a
    change. JMLR 18(77), sec. 4.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import bayesian_signed_rank
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.80, 0.02, 20)        # system A on 20 datasets
    >>> b = a + rng.normal(0.01, 0.01, 20)    # B about a point better
    >>> post = bayesian_signed_rank(a, b, rope=0.01, random_state=0)
    >>> round(post.prob_worse, 2), round(post.prob_equivalent, 2), round(post.prob_better, 2)
    (0.0, 0.46, 0.54)
    """
    x = np.asarray(scores_a, dtype=np.float64)
    y = np.asarray(scores_b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError("The 'scores_a' and 'scores_b' parameters must be 1-D with the same "
                         f"length (at least 2 datasets). Got shapes {x.shape} and {y.shape}.")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("The 'scores_a' and 'scores_b' parameters must hold finite scores.")
    if not (isinstance(prior, Real) and prior > 0):
        raise ValueError(f"The 'prior' parameter must be a number > 0. Got {prior!r}.")
    rope, n_draws, (rng,) = _check_common(rope, n_draws, random_state)
    alpha = np.ones(x.size + 1)
    alpha[0] = float(prior)
    chunks = []
    for start in range(0, n_draws, 10_000):  # bounded memory
        weights = rng.dirichlet(alpha, min(10_000, n_draws - start))
        chunks.append(signed_rank_samples(y - x, rope, weights))
    return DatasetPosterior(np.concatenate(chunks), rope, "signed_rank", _names(names))


# ------------------------------------------------------------------ hierarchical
def _truncated_gamma(rng, shape, rate, lower):
    """Draws of Gamma(shape, rate) truncated to ``[lower, inf)``, by inversion."""
    from scipy.special import gammainc, gammaincinv

    shape, rate = np.broadcast_arrays(np.asarray(shape, float), np.asarray(rate, float))
    lo = gammainc(shape, rate * lower)
    u = lo + (1.0 - lo) * rng.random(shape.shape)
    out = gammaincinv(shape, u) / rate
    return np.maximum(out, lower)


def _truncated_normal(rng, mean, sd, low, high):
    """One draw of N(mean, sd^2) truncated to ``[low, high]``, by inversion."""
    from scipy.special import ndtr, ndtri

    a, b = (low - mean) / sd, (high - mean) / sd
    flip = a > 0  # invert in the lower tail, where ndtr keeps its precision
    if flip:
        a, b = -b, -a
    lo, hi = ndtr(a), ndtr(b)
    value = ndtri(lo + (hi - lo) * rng.random())
    value = -value if flip else value
    return float(np.clip(mean + sd * value, low, high))


def _slice(rng, logp, x0, width, lower=-np.inf, upper=np.inf, max_steps=50):
    """One univariate slice-sampling update (Neal 2003, stepping out and shrinkage)."""
    level = logp(x0) + np.log(rng.random())  # log(u) with u in (0, 1]
    left = x0 - width * rng.random()
    right = left + width
    steps = max_steps
    while steps > 0 and left > lower and logp(left) > level:
        left -= width
        steps -= 1
    steps = max_steps
    while steps > 0 and right < upper and logp(right) > level:
        right += width
        steps -= 1
    left, right = max(left, lower), min(right, upper)
    for _ in range(200):  # shrinkage halves the bracket on average: 200 is never reached
        x1 = left + (right - left) * rng.random()
        if logp(x1) > level:
            return x1
        if x1 < x0:
            left = x1
        else:
            right = x1
    return x0


def _gibbs_chain(rng, diff, rho, bounds, n_keep, burn_in):
    """One chain of the Gibbs sampler of the hierarchical model (scaled data)."""
    from scipy.special import gammaln

    q, n = diff.shape
    means = diff.mean(axis=1)
    within = ((diff - means[:, None]) ** 2).sum(axis=1)
    c = 1.0 + (n - 1.0) * rho
    d_lo, d_hi, s_hi, s0_hi, (a_lo, a_hi), (b_lo, b_hi) = bounds
    delta = means.copy()
    sigma2 = np.maximum(within / (n - 1.0), 1e-8)
    lam = np.ones(q)
    delta0 = float(np.clip(means.mean(), d_lo, d_hi))
    std0 = float(min(max(means.std(), 1e-3), s0_hi))
    alpha, beta = 0.5 * (a_lo + a_hi), 0.5 * (b_lo + b_hi)
    nu = 1.0 + alpha / beta
    out = np.empty((n_keep, 3))
    for it in range(burn_in + n_keep):
        # delta_i: normal prior N(delta0, std0^2 / lam_i) times the likelihood of the mean
        prec_prior = lam / std0 ** 2
        prec_lik = n / (c * sigma2)
        prec = prec_prior + prec_lik
        mean = (prec_prior * delta0 + prec_lik * means) / prec
        delta = mean + rng.standard_normal(q) / np.sqrt(prec)
        # sigma_i ~ U(0, s_hi): 1/sigma_i^2 ~ Gamma((n-1)/2, Q_i/2) truncated
        quad = within / (1.0 - rho) + n * (means - delta) ** 2 / c
        sigma2 = 1.0 / _truncated_gamma(rng, np.full(q, 0.5 * (n - 1.0)), 0.5 * quad,
                                        1.0 / s_hi ** 2)
        # lam_i: the Student-t of delta_i as a scale mixture of normals
        resid2 = (delta - delta0) ** 2 / std0 ** 2
        lam = rng.gamma(0.5 * (nu + 1.0), 1.0, q) / (0.5 * (nu + resid2))
        # delta0 ~ U(d_lo, d_hi)
        total = lam.sum()
        delta0 = _truncated_normal(rng, float(lam @ delta / total), std0 / np.sqrt(total),
                                   d_lo, d_hi)
        # std0 ~ U(0, s0_hi): 1/std0^2 ~ Gamma((q-1)/2, SS/2) truncated
        ss = float(lam @ (delta - delta0) ** 2)
        std0 = float(1.0 / np.sqrt(_truncated_gamma(rng, 0.5 * (q - 1.0), 0.5 * ss,
                                                    1.0 / s0_hi ** 2)))
        # nu - 1 ~ Gamma(alpha, beta); lam_i ~ Gamma(nu/2, nu/2): slice on log(nu - 1)
        sum_log_lam, sum_lam = float(np.log(lam).sum()), float(lam.sum())

        def log_nu(t):
            m = np.exp(t)  # nu - 1
            h = 0.5 * (m + 1.0)
            return (alpha * t - beta * m
                    + q * (h * np.log(h) - gammaln(h)) + (h - 1.0) * sum_log_lam - h * sum_lam)

        nu = 1.0 + float(np.exp(_slice(rng, log_nu, np.log(nu - 1.0), 1.0)))
        # beta ~ U(b_lo, b_hi): Gamma(alpha + 1, nu - 1) truncated to the interval
        beta = _interval_gamma(rng, alpha + 1.0, nu - 1.0, b_lo, b_hi)
        # alpha ~ U(a_lo, a_hi)
        log_m, log_b = np.log(nu - 1.0), np.log(beta)
        alpha = _slice(rng, lambda a: a * log_b + (a - 1.0) * log_m - gammaln(a), alpha,
                       a_hi - a_lo, a_lo, a_hi)
        if it >= burn_in:
            out[it - burn_in] = delta0, std0, nu
    return out


def _interval_gamma(rng, shape, rate, low, high):
    from scipy.special import gammainc, gammaincinv

    lo, hi = gammainc(shape, rate * low), gammainc(shape, rate * high)
    if hi - lo < 1e-300:
        return float(rng.uniform(low, high))
    return float(np.clip(gammaincinv(shape, lo + (hi - lo) * rng.random()) / rate, low, high))


def model_data(diff, rope, rng, *, upper_sigma=1000.0, alpha=(1.0, 2.0), beta=(0.01, 0.1)):
    """Scaled differences and prior bounds of the hierarchical model (baycomp's Stan data).

    Returns ``(diff, rope, scale, bounds)``: the differences and the rope
    divided by ``scale`` (the mean within-dataset standard deviation), with
    constant rows replaced as documented in :func:`hierarchical_bayes`, and
    ``bounds = (deltaLow, deltaHi, stdHi, std0Hi, (lowerAlpha, upperAlpha),
    (lowerBeta, upperBeta))``.
    """
    diff = np.array(diff, dtype=np.float64)
    m = diff.shape[1]
    tol = 1e-12 * float(np.abs(diff).max())  # a constant difference's rounding noise
    scale = float(np.mean(np.std(diff, axis=1)))
    if not scale > tol:
        raise ValueError("The hierarchical model needs scores that vary within some dataset; "
                         "every dataset's differences are constant (use bayesian_signed_rank "
                         "on the means).")
    rope_s, diff = rope / scale, diff / scale
    flat = np.std(diff, axis=1) <= tol / scale
    if flat.any():
        warn_external(f"Datasets {np.flatnonzero(flat).tolist()} have constant differences: "
                      "half of them are replaced by uniform draws in the rope and half by their "
                      "negatives (as baycomp does).")
        half = m // 2
        for i in np.flatnonzero(flat):
            diff[i, :half] = rng.uniform(-rope_s, rope_s, half)
            diff[i, half:2 * half] = -diff[i, :half]
    std_within = float(np.mean(np.std(diff, axis=1)))
    std_among = float(np.std(diff.mean(axis=1)))
    max_diff = float(np.max(np.abs(diff)))
    bounds = (-max_diff, max_diff, std_within * upper_sigma,
              (std_among if std_among > 0 else std_within) * upper_sigma,
              tuple(map(float, alpha)), tuple(map(float, beta)))
    return diff, rope_s, scale, bounds


@renamed_keywords(x="scores_a", y="scores_b", runs="n_repeats", n_samples="n_draws")
def hierarchical_bayes(scores_a, scores_b, *, rope=0.0, n_repeats=1, n_draws=10_000, n_chains=4,
                       burn_in=1000, lower_alpha=1.0, upper_alpha=2.0, lower_beta=0.01,
                       upper_beta=0.1, upper_sigma=1000.0, random_state=None, names=None):
    r"""Bayesian hierarchical comparison of two systems over datasets (Corani et al. 2017).

    ``scores_a`` and ``scores_b`` hold ``m`` cross-validation scores
    (``n_repeats`` repetitions of ``m / n_repeats`` folds) on each of ``q``
    datasets. With the differences :math:`z_{ij} = b_{ij} - a_{ij}` scaled
    by the mean within-dataset standard deviation, the model of Corani et al. (2017) (baycomp's
    ``HierarchicalTest``) is

    .. math::

        z_{i\cdot} &\sim \mathrm{MVN}(\delta_i \mathbf 1, \sigma_i^2 M_\rho),
        \quad M_\rho = (1-\rho) I + \rho \mathbf 1 \mathbf 1^\top,
        \quad \rho = \text{n\_repeats} / m,\\
        \delta_i &\sim t_\nu(\delta_0, \sigma_0), \quad
        \sigma_i \sim U(0, \bar s\,\text{upper\_sigma}),\\
        \delta_0 &\sim U(-\max|z|, \max|z|), \quad
        \sigma_0 \sim U(0, s_\text{among}\,\text{upper\_sigma}),\\
        \nu - 1 &\sim \mathrm{Gamma}(a, b), \quad
        a \sim U(\text{lower\_alpha}, \text{upper\_alpha}), \quad
        b \sim U(\text{lower\_beta}, \text{upper\_beta})

    (:math:`\bar s` the mean within-dataset standard deviation,
    :math:`s_\text{among}` the standard deviation of the dataset means, or
    :math:`\bar s` when it is 0). Each posterior draw of
    :math:`(\delta_0, \sigma_0, \nu)` gives the probabilities that the
    difference on a new dataset, :math:`t_\nu(\delta_0, \sigma_0)`, lies below
    ``-rope``, within, or above ``rope``.

    **Sampler.** baycomp runs Stan (not a sigtest dependency); here a Gibbs
    sampler draws from the same posterior: the Student-t is written as a
    normal scale mixture (:math:`\delta_i \mid \lambda_i \sim N(\delta_0,
    \sigma_0^2/\lambda_i)`, :math:`\lambda_i \sim \mathrm{Gamma}(\nu/2,
    \nu/2)`), which makes :math:`\delta_i`, :math:`\lambda_i`,
    :math:`\delta_0` (truncated normal), :math:`1/\sigma_i^2` and
    :math:`1/\sigma_0^2` (truncated gammas) and ``b`` conjugate; ``nu`` and
    ``a`` are updated by slice sampling (Neal 2003). The likelihood only
    needs each dataset's mean and within sum of squares, because
    :math:`(z - \delta\mathbf 1)^\top M_\rho^{-1} (z - \delta\mathbf 1) =
    S_w/(1-\rho) + m(\bar z - \delta)^2/(1 + (m-1)\rho)`. ``n_chains``
    chains (one child seed each) of ``burn_in`` discarded and ``n_draws
    / n_chains`` kept iterations.

    A dataset whose differences have no variance gets baycomp's treatment:
    half of its differences are replaced by uniform draws in the (scaled)
    rope and the other half by their negatives (with a warning).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (q, m)
        Cross-validation scores, one row per dataset (``q >= 2``, ``m >= 2``),
        oriented so that higher is better (``prob_better``: B better).
    rope : float, default=0.0
        Half-width of the region of practical equivalence, in score units.
    n_repeats : int, default=1
        Repetitions of cross-validation in each row (``m`` a multiple of
        ``n_repeats``, at least 2 folds; scikit-learn's ``RepeatedKFold``):
        the correlation of the scores is :math:`\rho = 1/\text{folds}`
        (Nadeau and Bengio 2003).
    n_draws : int, default=10000
        Posterior draws kept in all (fewer than :func:`bayesian_signed_rank`'s
        50000: each draw is a Gibbs sweep over every dataset).
    n_chains, burn_in : int, default=4, 1000
        Chains, discarded draws per chain.
    lower_alpha, upper_alpha, lower_beta, upper_beta, upper_sigma : float
        The priors above (baycomp's defaults).
    random_state : None, int, SeedSequence or Generator
        Seed of the sampler.
    names : tuple of two str, optional
        Names of A and B (default ``("A", "B")``).

    Returns
    -------
    posterior : DatasetPosterior
        With ``parameters`` the draws of ``delta0``, ``std0`` (score units)
        and ``nu``.

    Raises
    ------
    ValueError
        Mismatched or non-finite scores, fewer than 2 datasets or 2 scores
        per dataset, ``n_repeats`` that does not divide ``m`` into at least 2
        folds, no within-dataset variation at all (the model has no scale:
        use :func:`bayesian_signed_rank` on the means), bad priors.

    References
    ----------
    G. Corani, A. Benavoli, J. Demšar, F. Mangili and M. Zaffalon (2017).
    Statistical comparison of classifiers through Bayesian hierarchical
    modelling. Machine Learning 106, 1817-1837.
    A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a
    change. JMLR 18(77), sec. 5.
    R. M. Neal (2003). Slice sampling. Annals of Statistics 31(3), 705-767.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import hierarchical_bayes
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(0.80, 0.02, (5, 10))      # 5 datasets x 10 fold scores
    >>> b = a + rng.normal(0.01, 0.01, (5, 10))
    >>> post = hierarchical_bayes(a, b, rope=0.005, n_draws=2000, n_chains=2,
    ...                           burn_in=500, random_state=0)
    >>> post.prob_better > 0.9       # B better, beyond the rope
    True
    """
    x = np.asarray(scores_a, dtype=np.float64)
    y = np.asarray(scores_b, dtype=np.float64)
    if x.ndim != 2 or x.shape != y.shape or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError("The 'scores_a' and 'scores_b' parameters must be 2-D with the same "
                         "shape (datasets x scores, at least 2 x 2). Got shapes "
                         f"{x.shape} and {y.shape}.")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("The 'scores_a' and 'scores_b' parameters must hold finite scores.")
    q, m = x.shape
    if not (isinstance(n_repeats, Integral) and n_repeats >= 1 and m % n_repeats == 0
            and m // n_repeats >= 2):
        raise ValueError(f"The 'n_repeats' parameter must divide the {m} scores per dataset "
                         f"into repetitions of at least 2 folds. Got {n_repeats!r}.")
    for name, value in (("n_chains", n_chains), ("burn_in", burn_in)):
        if not (isinstance(value, Integral) and value >= (1 if name == "n_chains" else 0)):
            raise ValueError(f"The '{name}' parameter must be an integer >= "
                             f"{1 if name == 'n_chains' else 0}. Got {value!r}.")
    if not (0 < lower_alpha < upper_alpha and 0 < lower_beta < upper_beta and upper_sigma > 0):
        raise ValueError("The prior bounds must satisfy 0 < lower_alpha < upper_alpha, "
                         "0 < lower_beta < upper_beta and upper_sigma > 0.")
    rope, n_draws, (rng, *chains) = _check_common(rope, n_draws, random_state, 1 + n_chains)
    diff, rope_s, scale, bounds = model_data(y - x, rope, rng, upper_sigma=upper_sigma,
                                             alpha=(lower_alpha, upper_alpha),
                                             beta=(lower_beta, upper_beta))
    per_chain = -(-n_draws // n_chains)
    draws = np.concatenate([_gibbs_chain(chain, diff, n_repeats / m, bounds, per_chain, burn_in)
                            for chain in chains])[:n_draws]
    return _hierarchical_posterior(draws, rope_s, scale, rope, names)


def _hierarchical_posterior(draws, rope_s, scale, rope, names):
    """Verdict probabilities of each draw of ``(delta0, std0, nu)`` (scaled units)."""
    from scipy.stats import t

    delta0, std0, nu = draws.T
    samples = np.empty((len(draws), 3))
    samples[:, 2] = t.sf(rope_s, nu, delta0, std0)
    samples[:, 0] = t.cdf(-rope_s, nu, delta0, std0)
    samples[:, 1] = 1.0 - samples[:, 0] - samples[:, 2]
    params = dict(delta0=delta0 * scale, std0=std0 * scale, nu=nu.copy())
    return DatasetPosterior(samples, rope, "hierarchical", _names(names), params)
