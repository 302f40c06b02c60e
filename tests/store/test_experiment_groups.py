"""Experiment: cluster (``groups``) and stratum (``strata``) ids fed with the gold, used by run()."""

import json

import numpy as np
import pytest

from sigtest import BergKirkpatrickBootstrap, Experiment, compare

B = 299


def _test():
    return BergKirkpatrickBootstrap(n_resamples=B)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    G = 36
    g = np.repeat(np.arange(G), rng.integers(4, 16, G))
    n = g.size
    y = rng.integers(0, 3, n)
    systems = {name: np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
               for name, acc in (("A", 0.6), ("B", 0.72), ("C", 0.8))}
    docs = np.array([f"doc{k:02d}" for k in g])
    strata = (g % 3).astype(np.int64)
    return y, systems, docs, strata


def _reference(y, systems, **design):
    return compare(y, systems, metrics=("accuracy", "f1_macro"), test=_test(),
                   random_state=5, **design).to_frame()


def _run(exp):
    return exp.run(metrics=("accuracy", "f1_macro"), test=_test(), random_state=5)


@pytest.mark.parametrize("design", ["groups", "strata", "both"])
def test_run_uses_the_stored_design_aligned_by_ids(tmp_path, data, design):
    y, systems, docs, strata = data
    kw = {"groups": docs, "strata": strata}
    if design != "both":
        kw = {design: kw[design]}
    exp = Experiment(tmp_path / "s")
    rng = np.random.default_rng(1)
    first = True
    for name, pred in systems.items():
        order = rng.permutation(len(y))  # every run (and the gold) in its own order
        extra = {k: v[order] for k, v in kw.items()} if first else {}
        exp.feed(name, pred[order], ids=order, y_true=y[order] if first else None, **extra)
        first = False
    result = _run(exp)
    want = _reference(y, systems, **kw)
    assert result.to_frame().equals(want)
    assert result.n_groups == (36 if "groups" in kw else None)
    assert result.n_strata == (3 if "strata" in kw else None)
    data_out = exp.load_outcomes()["data"]
    assert data_out["n_groups"] == result.n_groups and data_out["n_strata"] == result.n_strata
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["format_version"] == 2
    ids, groups, got_strata = exp.design()
    for key, got in (("groups", groups), ("strata", got_strata)):
        if key in kw:
            assert dict(zip(ids.tolist(), got.tolist())) == dict(
                zip(range(len(y)), kw[key].tolist()))
        else:
            assert got is None
    # the design really changes the test: the item-level comparison differs
    assert not np.allclose(want["ci_low"], _reference(y, systems)["ci_low"])


def test_store_without_design_is_unchanged(tmp_path, data):
    y, systems, *_ = data
    exp = Experiment(tmp_path / "s")
    for k, (name, pred) in enumerate(systems.items()):
        exp.feed(name, pred, y_true=y if k == 0 else None)
    result = _run(exp)
    assert result.n_groups is None and result.n_strata is None
    assert result.to_frame().equals(_reference(y, systems))
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["format_version"] == 1 and "groups" not in manifest["gold"]
    assert exp.design()[1:] == (None, None)
    assert exp.load_outcomes()["data"]["n_groups"] is None


def test_groups_given_with_a_later_feed(tmp_path, data):
    # the gold first, the cluster ids with another system's feed (same ids, no y_true)
    y, systems, docs, _ = data
    exp = Experiment(tmp_path / "s")
    exp.feed("A", systems["A"], y_true=y)
    order = np.random.default_rng(2).permutation(len(y))
    exp.feed("B", systems["B"][order], ids=order, groups=docs[order])
    exp.feed("C", systems["C"], groups=docs)  # repeating them is fine when they agree
    assert _run(exp).to_frame().equals(_reference(y, systems, groups=docs))


def test_disagreeing_or_bad_ids_are_refused_and_nothing_written(tmp_path, data):
    y, systems, docs, strata = data
    exp = Experiment(tmp_path / "s")
    exp.feed("A", systems["A"], y_true=y, groups=docs)
    before = (tmp_path / "s" / "manifest.json").read_bytes()
    other = docs.copy()
    other[[3, 10]] = "doc99"
    with pytest.raises(ValueError, match=r"'groups'.*disagree.*2 ids"):
        exp.feed("B", systems["B"], groups=other)
    with pytest.raises(ValueError, match="'groups'.*another type"):
        exp.feed("B", systems["B"], groups=np.arange(len(y)))
    with pytest.raises(ValueError, match="'groups' parameter has 5 ids"):
        exp.feed("B", systems["B"], groups=docs[:5])
    with pytest.raises(ValueError, match="'strata' parameter must be a 1-D"):
        exp.feed("B", systems["B"], strata=np.zeros((len(y), 2), dtype=int))
    with pytest.raises(ValueError, match="'strata' parameter must be a 1-D"):
        exp.feed("B", systems["B"], strata=np.linspace(0, 1, len(y)))
    with pytest.raises(ValueError, match="one stratum"):  # a cluster in two strata
        exp.feed("B", systems["B"], strata=np.arange(len(y)) % 2)
    # new gold ids without cluster ids, in a store that has them
    with pytest.raises(ValueError, match="adds 3 gold ids without them"):
        exp.feed("B", np.array([0, 1, 2]), ids=[10_000, 10_001, 10_002],
                 y_true=np.array([0, 1, 2]))
    assert (tmp_path / "s" / "manifest.json").read_bytes() == before
    assert exp.systems == ["A"]


def test_first_feed_refused_leaves_no_store(tmp_path, data):
    y, systems, docs, _ = data
    with pytest.raises(ValueError, match="'groups'"):
        Experiment(tmp_path / "s").feed("A", systems["A"], y_true=y, groups=docs[:-1])
    assert not (tmp_path / "s").exists()


def test_items_without_cluster_ids_stop_run(tmp_path, data):
    # ids that got gold before the store had cluster ids, and never got one
    y, systems, docs, _ = data
    n = len(y)
    half = n // 2
    exp = Experiment(tmp_path / "s")
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("C", systems["C"][:half], ids=np.arange(half), groups=docs[:half])
    with pytest.raises(ValueError, match=rf"{n - half} of the {n} items.*no 'groups' id"):
        exp.run(metrics="accuracy", test=_test(), systems=["A"])
    # feeding them (with any run of these ids) makes the store runnable again
    exp.feed("B", systems["B"], groups=docs)
    assert exp.run(metrics="accuracy", test=_test(), systems=["A", "B"]).n_groups == 36


def test_on_missing_intersect_keeps_the_ids_of_the_common_items(tmp_path, data):
    y, systems, docs, _ = data
    n = len(y)
    keep = np.flatnonzero(np.random.default_rng(3).random(n) < 0.8)
    exp = Experiment(tmp_path / "s")
    exp.feed("A", systems["A"], y_true=y, groups=docs)
    exp.feed("B", systems["B"][keep], ids=keep)
    with pytest.warns(UserWarning, match="intersect"):
        result = exp.run(metrics=("accuracy", "f1_macro"), test=_test(), random_state=5,
                         systems=["A", "B"], on_missing="intersect")
    want = compare(y[keep], {"A": systems["A"][keep], "B": systems["B"][keep]},
                   metrics=("accuracy", "f1_macro"), test=_test(), random_state=5,
                   groups=docs[keep]).to_frame()
    assert result.to_frame().equals(want)


def test_version_1_manifest_still_reads(tmp_path, data):
    y, systems, docs, _ = data
    exp = Experiment(tmp_path / "s")
    exp.feed("A", systems["A"], y_true=y)
    path = tmp_path / "s" / "manifest.json"
    assert json.loads(path.read_text())["format_version"] == 1
    exp.feed("B", systems["B"], groups=docs)  # gains cluster ids: version 2
    assert json.loads(path.read_text())["format_version"] == 2
    assert Experiment.load(tmp_path / "s").systems == ["A", "B"]
    manifest = json.loads(path.read_text())
    manifest["format_version"] = 99
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="version 1 or 2 or 3"):
        Experiment.load(tmp_path / "s")
