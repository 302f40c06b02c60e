"""``--pairs adjacent``: the neighbours of the ranking, as compare(pairs="adjacent")."""

import io

import numpy as np
import pandas as pd

from sigtest import PairedPermutation, compare
from sigtest.cli import main

B = 199


def test_cli_pairs_adjacent_gives_the_rows_of_compare(tmp_path):
    rng = np.random.default_rng(5)
    n = 200
    y = rng.integers(0, 2, n)
    preds = {name: np.where(rng.random(n) < p, y, 1 - y)
             for name, p in (("a", 0.6), ("b", 0.9), ("c", 0.75))}
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    for name, arr in preds.items():
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    want = compare(y, preds, metrics="accuracy", pairs="adjacent",
                   test=PairedPermutation(n_resamples=B), random_state=0).to_frame()
    out = io.StringIO()
    status = main([str(a) for a in ("compare", tmp_path / "gold.txt", tmp_path / "a.txt",
                                    tmp_path / "b.txt", tmp_path / "c.txt", "-m", "accuracy",
                                    "--test", "permutation", "-B", B, "--pairs", "adjacent",
                                    "--seed", 0, "--format", "csv")], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert list(zip(got["system_a"], got["system_b"])) == [("b", "c"), ("a", "c")]
    assert list(zip(got["system_a"], got["system_b"])) == list(zip(want["system_a"],
                                                                   want["system_b"]))
    np.testing.assert_allclose(got["pvalue"], want["pvalue"], rtol=1e-12)
