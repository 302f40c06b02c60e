"""A user-defined significance test: a paired t-test on per-item score differences
===============================================================================

A paired t-test registered as ``"my_paired_t"``: the one hook ``evaluate`` gets
the paired data and returns a :class:`~sigtest.TestOutcome`; the base class does
the rest (validation, orientation, the result). Once registered, the name
works wherever a test is accepted: here :func:`sigtest.compare` pairs it with
the BCa interval of the difference, and
:func:`sigtest.plotting.plot_comparison` draws each pair's difference.

Run: ``python examples/custom_test_paired_t.py``
"""
import numpy as np
from scipy import stats

from sigtest import BCaInterval, SignificanceTest, TestOutcome, compare, register_test
import sigtest.plotting


@register_test("my_paired_t", overwrite=True)
class MyPairedT(SignificanceTest):  # a t-test of per-item values (accuracy: 1 if correct)
    name = "my_paired_t"  # the base class validates `alternative` (ValueError)

    def __init__(self, *, alternative="two-sided"):
        self.alternative = alternative

    def evaluate(self, data, random_state):  # the one hook
        diff, weights = data.item_differences()  # oriented B - A per row, multiplicities
        diff = np.repeat(diff, weights.astype(int))
        res = stats.ttest_1samp(diff, 0.0, alternative=self.alternative)
        return TestOutcome(pvalue=res.pvalue, statistic=res.statistic)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 500)
    a, b, c = (np.where(rng.random(500) < p, y, (y + 1) % 3) for p in (0.70, 0.76, 0.72))
    print(MyPairedT(alternative="greater").test(y, a, b, metric="accuracy"))
    result = compare(y, {"a": a, "b": b, "c": c}, metrics="accuracy",
                     test=("my_paired_t", BCaInterval()), random_state=0)
    print(result)
    sigtest.plotting.plot_comparison(result)  # the gallery shows the figure; add plt.show() in a script
