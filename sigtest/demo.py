"""Demo: which of five classifiers on the digits dataset really differ?

Run with ``make demo`` or ``python -m sigtest.demo``. It uses only data that
ships with scikit-learn (the 1,797 8x8 digit images, 10 classes):

1. five classifiers are cross-validated on the *same* 5 folds;
2. their out-of-fold predictions are compared pairwise on accuracy, macro-F1
   and a soft metric, PO-JSD (1 - Jensen-Shannon divergence between the
   predicted and the human label distribution; Kurniawan et al. 2025),
   with the paired permutation p-value, the BCa 95 % interval of the
   difference, and Holm's correction over the 10 pairs of each metric;
3. the table, the compact letter display per metric and a one-line reading
   are printed.

The digits data has a single label per image, so the "human" label
distributions needed by the soft metric are simulated (see
:func:`simulate_annotator_targets`): five annotators of different
reliability label every image; their votes, normalised, are the soft target.
"""

import argparse
import time

import numpy as np

__all__ = ["simulate_annotator_targets", "make_estimators", "main"]

#: Digit pairs that look alike in 8x8 images; an annotator's mistakes go to
#: the look-alike of the true digit 60 % of the time (else to a random digit).
LOOK_ALIKE = {0: 6, 1: 7, 2: 7, 3: 8, 4: 9, 5: 6, 6: 5, 7: 1, 8: 3, 9: 4}


def simulate_annotator_targets(y, *, n_classes=10, reliabilities=(0.95, 0.9, 0.85, 0.75, 0.6),
                               look_alike=LOOK_ALIKE, p_look_alike=0.6, random_state=0):
    """Soft targets from simulated noisy annotators derived from the true labels.

    Every item ``i`` gets a difficulty ``d_i ~ Beta(2, 5)`` (mean .29).
    Annotator ``j`` (reliability ``r_j``) gives the true label with
    probability ``r_j (1 - d_i) + d_i / 2`` (hard items confuse everyone,
    but reliable annotators stay better); otherwise the look-alike digit of
    the true one with probability ``p_look_alike``, else a uniformly drawn
    wrong digit. The soft target of item ``i`` is the vote share of each
    class, ``P[i, k] = #{j : vote_ij = k} / n_annotators``.

    Parameters
    ----------
    y : array-like of int of shape (n_samples,)
        True labels in ``0 .. n_classes - 1``.
    n_classes : int, default=10
        Number of classes (the digits: 10).
    reliabilities : sequence of float, default=(0.95, 0.9, 0.85, 0.75, 0.6)
        One per annotator.
    look_alike : dict, default=LOOK_ALIKE
        The confusable class of each class.
    p_look_alike : float, default=0.6
        Probability that a wrong vote goes to the look-alike class.
    random_state : int, default=0
        Seed of the difficulties and the votes.

    Returns
    -------
    soft_targets : ndarray of shape (n_samples, n_classes)
        Rows sum to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.demo import simulate_annotator_targets
    >>> P = simulate_annotator_targets(np.array([0, 1, 2, 3]), random_state=0)
    >>> P.shape, bool(np.allclose(P.sum(1), 1))
    ((4, 10), True)
    """
    rng = np.random.default_rng(random_state)
    y = np.asarray(y)
    n = y.shape[0]
    rel = np.asarray(reliabilities, dtype=float)
    difficulty = rng.beta(2, 5, n)
    p_correct = rel[:, None] * (1 - difficulty) + difficulty / 2
    correct = rng.random((rel.size, n)) < p_correct
    alike = np.array([look_alike[int(c)] for c in range(n_classes)])[y]
    # a uniformly drawn wrong class: shift the true label by 1 .. n_classes - 1
    other = (y + rng.integers(1, n_classes, (rel.size, n))) % n_classes
    wrong = np.where(rng.random((rel.size, n)) < p_look_alike, alike, other)
    votes = np.where(correct, y, wrong)
    return np.stack([(votes == k).mean(axis=0) for k in range(n_classes)], axis=1)


def make_estimators(random_state=0):
    """The five classifiers of the demo (unfitted).

    Parameters
    ----------
    random_state : int, default=0
        Seed of the random forest.

    Returns
    -------
    estimators : dict of str to estimator
        ``svm_rbf`` (Platt-calibrated), ``knn``, ``logreg``,
        ``random_forest``, ``naive_bayes``.

    Examples
    --------
    >>> from sigtest.demo import make_estimators
    >>> sorted(make_estimators())
    ['knn', 'logreg', 'naive_bayes', 'random_forest', 'svm_rbf']
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return {
        # probabilities of an RBF SVM by Platt scaling (internal 5-fold CV)
        "svm_rbf": make_pipeline(StandardScaler(),
                                 CalibratedClassifierCV(SVC(), ensemble=False)),
        "knn": KNeighborsClassifier(n_neighbors=5),
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "random_forest": RandomForestClassifier(n_estimators=200, random_state=random_state),
        "naive_bayes": GaussianNB(),
    }


def reading(result, metric):
    """One sentence summarising the letters of ``metric``."""
    letters = result.letters(metric)
    best = [name for name, row in letters.iterrows() if "a" in row["letters"]]
    frame = result.to_frame()
    part = frame[frame.metric == metric]
    verb = "is" if len(best) == 1 else "are"
    tied = "" if len(best) == 1 else " (not significantly different from each other)"
    return (f"{metric}: {', '.join(best)} {verb} best{tied}; "
            f"{int(part.significant.sum())} of {len(part)} pairwise differences are "
            f"significant after {result.correction} correction at alpha={result.alpha}.")


def main(argv=None):
    """Run the demo and print its report.

    Parameters
    ----------
    argv : list of str or None, default=None
        Command-line arguments (``--n-resamples``, ``--n-jobs``, ``--seed``);
        None reads ``sys.argv``.

    Returns
    -------
    result : ComparisonResult
        The cross-validated comparison it printed.
    """
    parser = argparse.ArgumentParser(prog="python -m sigtest.demo", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--n-resamples", type=int, default=9999,
                        help="resamples of the permutation test and the BCa interval")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from sklearn.datasets import load_digits

    # the tests load numba and scipy: imported when the demo runs, not with the module
    from sigtest import BCaInterval, PairedPermutation, cross_val_compare

    start = time.perf_counter()
    X, y = load_digits(return_X_y=True)
    soft = simulate_annotator_targets(y, random_state=args.seed)
    test = (PairedPermutation(n_resamples=args.n_resamples),
            BCaInterval(n_resamples=args.n_resamples))
    metrics = ["accuracy", "f1_macro", "po_jsd"]
    result = cross_val_compare(
        make_estimators(args.seed), X, y, cv=5, metrics=metrics, test=test,
        soft_targets=soft, correction="holm", n_jobs=args.n_jobs, random_state=args.seed,
    )
    elapsed = time.perf_counter() - start

    print(f"digits: {X.shape[0]} images, 10 classes; 5-fold CV (same folds for all); "
          f"soft targets from 5 simulated annotators; B = {args.n_resamples}\n")
    print(result)
    print("\nScores (out-of-fold):")
    print(result.system_table().round(4).to_string())
    for metric in metrics:
        print(f"\nLetters for {metric} (same letter = not significantly different):")
        print(result.letters(metric).round(4).to_string())
    print("\nReading:")
    for metric in metrics:
        print("  " + reading(result, metric))
    print(f"\n(total time {elapsed:.1f} s, n_jobs={args.n_jobs})")
    return result


if __name__ == "__main__":
    main()
