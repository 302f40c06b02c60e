"""compare_datasets on fewer datasets than the rank tests' approximations need.

Friedman's chi-square, the Iman-Davenport F and Nemenyi's critical
difference are large-N approximations (Demšar 2006: N > 10); with 2 datasets
they were printed with (3, 3) degrees of freedom and no caveat.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from sigtest import compare_datasets, read_scores


def _table(n_datasets, k=4, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.random((n_datasets, k)), columns=list("ABCD")[:k],
                        index=[f"d{i}" for i in range(n_datasets)])


def _few_datasets_warnings(caught):
    return [w for w in caught if "Demšar" in str(w.message)]


def test_two_datasets_warn_and_point_to_the_item_level_comparison():
    with pytest.warns(UserWarning, match="only 2 datasets") as caught:
        result = compare_datasets(_table(2))
    message = str(_few_datasets_warnings(caught)[0].message)
    assert "more than 10 datasets" in message and "strata=" in message
    assert "overall='macro'" in message
    assert "Demšar 2006" in message
    assert "caveat: only 2 datasets" in str(result)


def test_eleven_datasets_give_no_caveat():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_datasets(_table(11))
    assert not _few_datasets_warnings(caught)
    assert "caveat" not in str(result)


def test_score_table_with_two_datasets_warns():
    rows = [{"dataset": d, "system": s, "item": i, "score": float((i + len(s) + d) % 2)}
            for d in range(2) for s in ("a", "bb") for i in range(30)]
    table = read_scores(pd.DataFrame(rows), dataset="dataset")
    with pytest.warns(UserWarning, match="only 2 datasets"):
        table.compare_datasets(random_state=0, test="permutation")
