"""The ``n_resamples`` column of compare's frame for exact p-values.

A pair with 17 discordant items is tested by the exact permutation test; its
null distribution holds 18 distinct values, which the frame showed as
``n_resamples = 18``. The column counts Monte Carlo draws: 0 for an exact or
analytic p-value.
"""

from _pairs import discordant_pair

import sigtest


def test_exact_permutation_p_value_shows_no_resamples():
    y, preds = discordant_pair(200, 12, 5, names=("A", "B"))
    result = sigtest.compare(y, preds, metrics="accuracy", test="permutation",
                             random_state=0)
    direct = sigtest.PairedPermutation(random_state=0).test(y, preds["A"], preds["B"])
    assert direct.resampling == "exact permutation"
    assert result.to_frame()["n_resamples"].tolist() == [0]
    assert "exact null distribution: 18 distinct values" in str(direct)


def test_monte_carlo_p_value_shows_its_resamples():
    y, preds = discordant_pair(200, 60, 60, names=("A", "B"))
    test = sigtest.PairedPermutation(n_resamples=499, exact=False)
    result = sigtest.compare(y, preds, metrics="accuracy", test=test, random_state=0)
    assert result.to_frame()["n_resamples"].tolist() == [499]


def test_analytic_p_value_shows_no_resamples():
    y, preds = discordant_pair(200, 12, 5, names=("A", "B"))
    result = sigtest.compare(y, preds, metrics="accuracy", test="mcnemar")
    assert result.to_frame()["n_resamples"].tolist() == [0]
