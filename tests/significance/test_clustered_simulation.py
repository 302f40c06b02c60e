"""Clustered null: item-level tests over-reject, cluster-aware ones do not (issue 10).

The data imitate sentences within documents. Each of G = 200 clusters
(10-50 items) has a difficulty ``u_k ~ N(0, 1)`` and an A-vs-B shift
``e_k ~ N(0, tau = 1)`` shared by its items:

    P(A right on item i of cluster k) = sigmoid(mu + u_k - e_k / 2)
    P(B right on item i of cluster k) = sigmoid(mu + u_k + e_k / 2)

``e_k`` is symmetric around 0, so A and B are exchangeable within every
cluster and the true difference of accuracies is 0 (H0 holds), but the items
of a cluster share ``e_k``: they are not independent, the variance of the
accuracy difference is ~4-5x what an item-level test assumes (design effect
``1 + (m - 1) rho`` with mean cluster size m = 30), so the item-level tests
call noise significant. With ``groups=`` the tests resample whole clusters.

One seeded simulation (replication ``r`` draws its data from
``default_rng([SEED, r])`` and seeds its tests with ``r``) is shared by the
tests below through a module fixture. Bands: 99.9 % two-sided binomial limits
of the count of rejections (or covering intervals) in R replications at the
nominal rate (``scipy.stats.binom.interval(0.999, R, p)``); a correct test
falls outside with probability <= 0.1 %. The permutation over clusters is
exact (its p-value ``(c + 1)/(B + 1)`` is valid for any B; A and B are
exchangeable per cluster by construction), and so are the sign and signed-rank
tests on the cluster values (their differences are symmetric about 0); the
cluster bootstrap tests, the t test on cluster values and Durkalski's
clustered McNemar test are asymptotic in G, and at G = 200 they stay inside
the same band (measured).
"""

import warnings

import numpy as np
import pytest
from scipy import stats

from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    McNemar,
    PairedPermutation,
    PairedTTest,
    SignTest,
    WilcoxonSignedRank,
)
from sigtest._engine import prepare_paired
from sigtest.metrics import get_metric

pytestmark = pytest.mark.slow

SEED = 20261123
R = 1000  # replications (~32 s on 2 cores)
ALPHA = 0.05
LEVEL = 0.95
ACCURACY = get_metric("accuracy")


def clustered_null(rng, G=200, sizes=(10, 50), mu=1.0, s=1.0, tau=1.0, n_strata=None):
    """Hard labels of A and B on a clustered null (see the module docstring).

    With ``n_strata``, cluster ``k`` lies in stratum ``k % n_strata`` (a
    domain) and the strata differ in difficulty (``mu + 0.5 h``).
    """
    lo, hi = sizes
    size = rng.integers(lo, hi + 1, G)
    groups = np.repeat(np.arange(G), size)
    n = groups.size
    strata = None
    level = np.full(G, mu)
    if n_strata is not None:
        level = mu + 0.5 * (np.arange(G) % n_strata)
        strata = (np.arange(G) % n_strata)[groups]
    u = rng.normal(0.0, s, G)
    e = rng.normal(0.0, tau, G)
    logit_a = (level + u - e / 2)[groups]
    logit_b = (level + u + e / 2)[groups]
    y = rng.integers(0, 2, n)
    right_a = rng.random(n) < 1.0 / (1.0 + np.exp(-logit_a))
    right_b = rng.random(n) < 1.0 / (1.0 + np.exp(-logit_b))
    return y, np.where(right_a, y, 1 - y), np.where(right_b, y, 1 - y), groups, strata


def _tests(r):
    return {
        "permutation": PairedPermutation(n_resamples=499, exact=False, random_state=r),
        # one-sided, as measured in docs/clustered.md
        "bk": BergKirkpatrickBootstrap(n_resamples=499, alternative="greater", random_state=r),
        "bca": BCaInterval(n_resamples=999, confidence_level=LEVEL, random_state=r),
        # classical tests: on per-cluster values with groups= (cluster summaries),
        # McNemar: Durkalski's clustered chi-square with groups=
        "sign": SignTest(),
        "wilcoxon": WilcoxonSignedRank(),
        "paired_t": PairedTTest(),
        "mcnemar": McNemar(method="chi2"),
    }


RESAMPLING = ["permutation", "bk", "bca"]
CLASSICAL = ["sign", "wilcoxon", "paired_t", "mcnemar"]


@pytest.fixture(scope="module")
def simulation():
    """Rejections at ALPHA and covering intervals (true difference 0) over R nulls."""
    counts = {}

    def add(key, hit):
        counts[key] = counts.get(key, 0) + int(bool(hit))

    for r in range(R):
        rng = np.random.default_rng([SEED, r])
        y, a, b, groups, _ = clustered_null(rng)
        y2, a2, b2, groups2, strata2 = clustered_null(rng, n_strata=4)
        designs = {
            "items": prepare_paired(y, a, b, ACCURACY),
            "groups": prepare_paired(y, a, b, ACCURACY, groups=groups),
            "groups+strata": prepare_paired(y2, a2, b2, ACCURACY, groups=groups2,
                                            strata=strata2),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # small-sample notes are not the point here
            for design in ("items", "groups"):
                for name, test in _tests(r).items():
                    res = test.test_paired(designs[design])
                    if name == "bca":
                        ci = res.confidence_interval
                        add(("cover", design), ci.low <= 0.0 <= ci.high)
                    add(("reject", name, design), res.pvalue <= ALPHA)
            ci = _tests(r)["bca"].test_paired(designs["groups+strata"]).confidence_interval
            add(("cover", "groups+strata"), ci.low <= 0.0 <= ci.high)
    rates = {key: value / R for key, value in sorted(counts.items(), key=str)}
    print(f"\nclustered null, R={R}, seed={SEED}:")
    for key, rate in rates.items():
        print(f"  {' / '.join(key):40s} {rate:.3f}")
    return counts


def _band(p):
    """99.9 % two-sided binomial limits of a count out of R at rate p."""
    lo, hi = stats.binom.interval(0.999, R, p)
    return int(lo), int(hi)


@pytest.mark.parametrize("name", RESAMPLING + CLASSICAL)
def test_item_level_tests_over_reject_on_clustered_null(simulation, name):
    # measured (seed above, R = 1000), items / groups=: permutation 0.316 / 0.045,
    # BK (one-sided, alternative="greater") 0.180 / 0.046, BCa 0.328 / 0.049,
    # sign 0.319 / 0.041, Wilcoxon 0.322 / 0.058, paired t 0.322 / 0.049,
    # McNemar (chi2; clustered: Durkalski) 0.319 / 0.045;
    # anything above the 99.9 % band of a valid test is a failure of validity,
    # we ask for at least three times the nominal rate
    count = simulation[("reject", name, "items")]
    assert count > _band(ALPHA)[1]
    assert count / R > 3 * ALPHA


@pytest.mark.parametrize("name", RESAMPLING + CLASSICAL)
def test_cluster_aware_tests_keep_their_level(simulation, name):
    lo, hi = _band(ALPHA)
    assert lo <= simulation[("reject", name, "groups")] <= hi


def test_item_level_bca_interval_undercovers(simulation):
    assert simulation[("cover", "items")] < _band(LEVEL)[0]


@pytest.mark.parametrize("design", ["groups", "groups+strata"])
def test_cluster_bca_interval_covers_the_true_difference(simulation, design):
    lo, hi = _band(LEVEL)
    assert lo <= simulation[("cover", design)] <= hi
