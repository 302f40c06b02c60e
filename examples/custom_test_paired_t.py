"""A user-defined significance test: a paired t-test on per-item score differences."""
import numpy as np
from scipy import stats

from sigtest import SignificanceTest


class PairedTTest(SignificanceTest):
    """Paired t-test of per-item metric values (e.g. accuracy: 1 if correct)."""

    _name = "paired_t"  # an invalid `alternative` is rejected by scipy (ValueError)

    def __init__(self, *, alternative="two-sided"):
        self.alternative = alternative

    def _compute(self, paired, seed):  # the one hook
        diff = paired.values(paired.stats_b) - paired.values(paired.stats_a)  # per row/cell
        reps = np.ones(len(diff), int) if paired.counts is None else paired.counts.astype(int)
        diff = np.repeat(diff, reps) * (1 if paired.metric.greater_is_better else -1)
        res = stats.ttest_1samp(diff, 0.0, alternative=self.alternative)
        return {"pvalue": res.pvalue, "alternative": self.alternative}


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 500)
    a = np.where(rng.random(500) < 0.70, y, (y + 1) % 3)
    b = np.where(rng.random(500) < 0.76, y, (y + 1) % 3)
    print(PairedTTest(alternative="greater").test(y, a, b, metric="accuracy"))
