"""The ``make demo`` job as a script: five classifiers on digits, same folds
=========================================================================

Five scikit-learn classifiers are cross-validated on the *same* 5 folds of
the digits dataset; their out-of-fold predictions are compared pairwise on
accuracy, macro-F1 and PO-JSD (a soft metric on ``predict_proba``, against
label distributions simulated from five noisy annotators, see
:func:`sigtest.demo.simulate_annotator_targets`), with the paired
permutation p-value, the BCa 95 % interval of the difference and Holm's
correction. A second call with ``n_repeats=3`` shows how the conclusions
move with the fold shuffle (Table 1 of Bestgen 2022), and ``recompare``
re-tests the stored out-of-fold predictions on another metric without
refitting.

Run: ``python examples/cross_val_compare_digits.py``
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

from sigtest import BCaInterval, PairedPermutation, cross_val_compare
from sigtest.demo import make_estimators, reading, simulate_annotator_targets
from sigtest.plotting import plot_pvalue_heatmap


def main():
    X, y = load_digits(return_X_y=True)
    soft_targets = simulate_annotator_targets(y, random_state=0)
    metrics = ["accuracy", "f1_macro", "po_jsd"]
    test = (PairedPermutation(n_resamples=9999), BCaInterval(n_resamples=9999))

    result = cross_val_compare(make_estimators(), X, y, cv=5, metrics=metrics, test=test,
                               soft_targets=soft_targets, correction="holm", n_jobs=2,
                               random_state=0)
    print(result)
    for metric in metrics:
        print(f"\n{metric}:\n{result.letters(metric).round(4)}")
        print(reading(result, metric))
    plot_pvalue_heatmap(result, "accuracy")  # the Holm-adjusted p-values of the 10 pairs

    # re-test the stored out-of-fold predictions: no refitting
    again = result.recompare(metrics=["soft_f1_micro"])
    print("\nsoft_f1_micro on the same out-of-fold predictions:\n", again.letters())

    # three shuffles of the 5-fold CV: how stable is each conclusion?
    repeated = cross_val_compare(make_estimators(), X, y, cv=5, n_repeats=3,
                                 metrics=["accuracy"], test=test, n_jobs=2, random_state=0)
    summary = repeated.runs_summary()
    print("\n3 x 5-fold CV (accuracy):")
    print(summary[["system_a", "system_b", "pvalue_min", "pvalue_max", "n_significant",
                   "ci_low_min", "delta_min", "delta_max", "ci_high_max"]].round(4)
          .to_string(index=False))
    plt.show()


if __name__ == "__main__":
    main()
