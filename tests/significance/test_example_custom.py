"""The user-defined test in examples/custom_test_paired_t.py: public hook only, every workflow."""

import ast
import importlib.util
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

import sigtest
from sigtest import Experiment, compare, cross_val_compare, get_test, get_test_names
from sigtest.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_test_paired_t.py"


@pytest.fixture(scope="module")
def MyPairedT():
    spec = importlib.util.spec_from_file_location("custom_test_paired_t", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # registers "my_paired_t"
    return module.MyPairedT


@pytest.fixture
def systems():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.70, y, (y + 1) % 3)
    b = np.where(rng.random(300) < 0.78, y, (y + 2) % 3)
    return y, a, b


def _ref(y, a, b, alternative="two-sided"):
    return stats.ttest_rel((b == y).astype(float), (a == y).astype(float),
                           alternative=alternative)


def test_example_is_short_and_public():
    text = EXAMPLE.read_text()
    tree = ast.parse(text)
    # the code (the gallery's title docstring aside) fits on one screen
    body_start = tree.body[1].lineno if ast.get_docstring(tree) else 1
    assert len(text.splitlines()) - body_start + 1 <= 30
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.startswith("sigtest"):
            assert node.module == "sigtest"
            assert all(not alias.name.startswith("_") for alias in node.names)
            assert all(alias.name in sigtest.__all__ for alias in node.names)
        if isinstance(node, ast.Attribute):  # no private attribute of sigtest objects
            assert not node.attr.startswith("_"), node.attr
        if isinstance(node, ast.FunctionDef):  # only the public hook (and __init__)
            assert node.name in ("__init__", "evaluate"), node.name


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("weighted", [False, True])
def test_paired_t_matches_scipy(MyPairedT, systems, alternative, weighted):
    y, a, b = systems
    # unit weights switch off the cell compression: both engine paths are checked
    kw = {"sample_weight": np.ones(300)} if weighted else {}
    res = MyPairedT(alternative=alternative).test(y, a, b, metric="accuracy", **kw)
    ref = _ref(y, a, b, alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.params["test_statistic"] == pytest.approx(ref.statistic, rel=1e-10)
    assert res.test == "my_paired_t" and res.alternative == alternative
    assert res.delta == pytest.approx(np.mean(b == y) - np.mean(a == y))


def test_paired_t_loss_is_oriented(MyPairedT):
    # cross-entropy: lower is better, so "greater" (B better) means B's loss is lower
    rng = np.random.default_rng(2)
    y = rng.dirichlet(np.ones(3), 200)
    a = rng.dirichlet(np.ones(3), 200)
    b = 0.5 * a + 0.5 * y
    res = MyPairedT(alternative="greater").test(y, a, b, metric="cross_entropy")
    la = -(y * np.log(np.clip(a, 1e-15, 1))).sum(1)
    lb = -(y * np.log(np.clip(b, 1e-15, 1))).sum(1)
    ref = stats.ttest_rel(la, lb, alternative="greater")  # oriented: A's loss - B's loss
    assert res.statistic > 0 and res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)


def test_paired_t_refuses_non_decomposable(MyPairedT, systems):
    with pytest.raises(ValueError, match="not decomposable.*PairedPermutation"):
        MyPairedT().test(*systems, metric="f1_macro")


def test_paired_t_is_an_estimator(MyPairedT):
    est = MyPairedT(alternative="less")
    assert clone(est).get_params() == {"alternative": "less"}
    assert "my_paired_t" in get_test_names()
    assert isinstance(get_test("my_paired_t"), MyPairedT)


def test_registered_test_in_compare(MyPairedT, systems):
    y, a, b = systems
    ref = _ref(y, a, b)
    res = compare(y, {"a": a, "b": b}, metrics=["accuracy"], test=get_test("my_paired_t"),
                  correction=None)
    frame = res.to_frame()
    assert frame.loc[0, "test"] == "my_paired_t"
    assert frame.loc[0, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
    # the order of the systems does not change the two-sided answer
    flipped = compare(y, {"b": b, "a": a}, metrics=["accuracy"], test=MyPairedT(),
                      correction=None).to_frame()
    assert flipped.loc[0, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)


def test_registered_test_in_cross_val_compare(MyPairedT):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    est = {"dummy": DummyClassifier(strategy="most_frequent"), "lr": LogisticRegression()}
    res = cross_val_compare(est, X, y, cv=3, metrics=["accuracy"], test=MyPairedT(),
                            random_state=0, correction=None)
    frame = res.to_frame()
    assert frame.loc[0, "test"] == "my_paired_t"
    assert 0.0 <= frame.loc[0, "pvalue"] < 1e-3  # logistic regression is far better


def test_registered_test_in_experiment_and_cli(MyPairedT, systems, tmp_path):
    y, a, b = systems
    ref = _ref(y, a, b)
    exp = Experiment(tmp_path / "store")
    exp.feed("a", a, y_true=y)
    exp.feed("b", b, y_true=y)
    res = exp.run(metrics=["accuracy"], test=get_test("my_paired_t"), correction=None)
    assert res.to_frame().loc[0, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                   str(tmp_path / "b.txt"), "-m", "accuracy", "--test", "my_paired_t",
                   "--correction", "none", "--format", "csv"], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert got.loc[0, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-6)
    listing = io.StringIO()
    main(["tests"], out=listing)
    assert "my_paired_t" in listing.getvalue().split()


def test_plugin_test_reaches_the_cli_in_a_new_process(tmp_path, systems):
    """An installed package declaring entry point group "sigtest.tests" needs no code."""
    import subprocess
    import sys

    y, a, b = systems
    (tmp_path / "myplug.py").write_text(EXAMPLE.read_text().split('if __name__')[0])
    dist = tmp_path / "myplug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: myplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[sigtest.tests]\nplug_t = myplug:MyPairedT\n")
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "sigtest", "compare", str(tmp_path / "gold.txt"),
         str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "-m", "accuracy",
         "--test", "plug_t", "--correction", "none", "--format", "csv"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(io.StringIO(proc.stdout))
    assert got.loc[0, "pvalue"] == pytest.approx(_ref(y, a, b).pvalue, rel=1e-6)
    # a broken plugin warns and leaves the other tests usable
    (dist / "entry_points.txt").write_text("[sigtest.tests]\nbroken = no_such_module:X\n")
    proc = subprocess.run(
        [sys.executable, "-c", "import warnings; warnings.simplefilter('always');"
         "import sigtest; print(sigtest.get_test('permutation').name)"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "permutation", proc.stderr
    proc = subprocess.run(
        [sys.executable, "-c", "import sigtest; print('broken' in sigtest.get_test_names())"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip() == "False" and "could not be loaded" in proc.stderr
