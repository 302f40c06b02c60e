"""The user-defined test in examples/custom_test_paired_t.py against scipy.stats.ttest_rel."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_test_paired_t.py"


@pytest.fixture(scope="module")
def PairedTTest():
    spec = importlib.util.spec_from_file_location("custom_test_paired_t", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PairedTTest


def test_example_is_short():
    assert len(EXAMPLE.read_text().splitlines()) <= 30


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("weighted", [False, True])
def test_paired_t_matches_scipy(PairedTTest, alternative, weighted):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.70, y, (y + 1) % 3)
    b = np.where(rng.random(300) < 0.75, y, (y + 2) % 3)
    # unit weights switch off the cell compression: both engine paths are checked
    kw = {"sample_weight": np.ones(300)} if weighted else {}
    res = PairedTTest(alternative=alternative).test(y, a, b, metric="accuracy", **kw)
    ref = stats.ttest_rel((b == y).astype(float), (a == y).astype(float),
                          alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.test == "paired_t" and res.delta == pytest.approx(np.mean(b == y) - np.mean(a == y))


def test_paired_t_is_an_estimator(PairedTTest):
    est = PairedTTest(alternative="less")
    assert clone(est).get_params() == {"alternative": "less"}
