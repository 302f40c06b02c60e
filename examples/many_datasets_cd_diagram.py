"""Five classifiers on eight datasets: ranks, post-hoc tests, CD diagram, replicability
====================================================================================

The worked example of ``docs/datasets_seeds.md``: five scikit-learn
classifiers are trained on half of each of eight tasks (iris, wine,
breast_cancer, digits and four ``make_classification`` problems) and their
predictions on the other half go to :func:`sigtest.compare_datasets`, which
scores every cell, runs the item-level permutation test of every pair on
every dataset, and the Friedman / Iman-Davenport / Nemenyi analysis across
datasets. The critical-difference diagram is saved to ``cd_diagram.png`` in a
temporary directory.

Run: ``python examples/many_datasets_cd_diagram.py``
"""

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sklearn.datasets import (  # noqa: E402
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import sigtest  # noqa: E402
from sigtest.plotting import plot_critical_difference  # noqa: E402


def main():
    tasks = {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True),
             "breast_cancer": load_breast_cancer(return_X_y=True),
             "digits": load_digits(return_X_y=True)}
    for seed in range(4):
        tasks[f"synthetic_{seed}"] = make_classification(
            n_samples=600, n_features=20, n_informative=6, n_classes=3, random_state=seed)
    models = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": GaussianNB(),
        "tree": DecisionTreeClassifier(random_state=0),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "forest": RandomForestClassifier(n_estimators=50, random_state=0),
    }
    data = {}
    for name, (X, y) in tasks.items():
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=0,
                                                  stratify=y)
        data[name] = (y_te, {m: est.fit(X_tr, y_tr).predict(X_te)
                             for m, est in models.items()})

    result = sigtest.compare_datasets(data, metric="accuracy", test="permutation",
                                      random_state=0)
    print(result)
    print("\nPairwise Wilcoxon signed-rank tests across datasets (Holm):")
    print(result.pairwise("wilcoxon").round(3).to_string())
    print("\nReplicability (Dror et al. 2017, Bonferroni):")
    print(result.replicability().round(4).to_string())
    path = Path(tempfile.mkdtemp()) / "cd_diagram.png"
    plot_critical_difference(result).figure.savefig(path)
    print(f"\nsaved {path.name} in a temporary directory")


if __name__ == "__main__":
    main()
