"""compare's default test on a rank metric answers about the rankings, not the scales.

compare (and cross_val_compare, the command line and report, which take its
default) tests every pair with PairedPermutation; on ROC AUC and average
precision it swaps within-system normalised ranks, so a strictly increasing
transform of one system's scores changes neither the AUCs nor the p-values.
"""

import warnings

import numpy as np
import pytest

from sigtest import PairedPermutation, compare


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_compare_pvalues_ignore_a_monotone_transform_of_one_systems_scores(metric):
    rng = np.random.default_rng(11)
    n = 150
    y = rng.integers(0, 2, n)
    logits = {"lr": 1.0 * y + rng.normal(size=n), "nb": 1.3 * y + rng.normal(size=n),
              "rf": 0.8 * y + rng.normal(size=n)}
    probas = {k: 1.0 / (1.0 + np.exp(-v)) for k, v in logits.items()}
    rescaled = dict(probas, nb=probas["nb"] ** 4)  # same order, another scale

    def table(predictions):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = compare(y, predictions, metrics=metric, random_state=0,
                          test=PairedPermutation(n_resamples=999))
        return res.to_frame().sort_values(["system_a", "system_b"]).reset_index(drop=True)

    before, after = table(probas), table(rescaled)
    np.testing.assert_array_equal(before["pvalue"].to_numpy(), after["pvalue"].to_numpy())
    np.testing.assert_array_equal(before["delta"].to_numpy(), after["delta"].to_numpy())
