"""The persisted feed/run pipeline: storage, alignment by item ids, outputs, CLI."""

import io
import json
import threading

import numpy as np
import pandas as pd
import pytest

import sigtest._store.store as store_module
from sigtest import BCaInterval, Experiment, PairedPermutation, compare
from sigtest.cli import main

B = 199


def _test():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


def _noisy(rng, y, acc, k=3):
    return np.where(rng.random(y.shape[0]) < acc, y, rng.integers(0, k, y.shape[0]))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    return y, {"A": _noisy(rng, y, 0.6), "B": _noisy(rng, y, 0.75), "C": _noisy(rng, y, 0.8)}


def _feed_all(path, y, systems, *, shuffle_seed=None):
    """Feed every system; with ``shuffle_seed`` each run gets its own item order."""
    exp = Experiment(path)
    rng = np.random.default_rng(shuffle_seed)
    first = True
    for name, runs in systems.items():
        for pred in runs if isinstance(runs, list) else [runs]:
            order = np.arange(len(y)) if shuffle_seed is None else rng.permutation(len(y))
            exp.feed(name, pred[order], ids=order, y_true=y[order] if first else None)
            first = False
    return exp


# ------------------------------------------------------------------ storage
def test_round_trip(tmp_path, data):
    y, systems = data
    exp = _feed_all(tmp_path / "store", y, systems)
    proba = np.random.default_rng(1).dirichlet(np.ones(3), len(y))
    assert exp.feed("A", proba) == 1  # a second run, as probabilities
    again = Experiment.load(tmp_path / "store")
    assert again.systems == ["A", "B", "C"]
    assert again.runs("A") == [0, 1] and again.runs("C") == [0]
    ids, gold = again.gold()
    np.testing.assert_array_equal(ids, np.arange(len(y)))
    np.testing.assert_array_equal(gold, y)
    run_ids, pred = again.load_run("B", 0)
    np.testing.assert_array_equal(run_ids, np.arange(len(y)))
    np.testing.assert_array_equal(pred, systems["B"])
    np.testing.assert_array_equal(again.load_run("A", 1)[1], proba)  # float64 bit-exact
    # manifest.json.bak: the previous manifest, kept for Experiment.recover() (issue 15)
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == [
        "manifest.json", "manifest.json.bak", "runs"]
    with pytest.raises(ValueError, match="Unknown system 'D'"):
        again.runs("D")
    with pytest.raises(ValueError, match="has no run 5"):
        again.load_run("A", 5)
    with pytest.raises(ValueError, match="no manifest.json"):
        Experiment.load(tmp_path / "empty")


def test_string_labels_and_ids_survive_json(tmp_path):
    y = np.array(["pos", "neg", "neu", "pos"])
    ids = np.array(["d3", "d1", "d2", "d0"])
    exp = Experiment(tmp_path)
    exp.feed("a", np.array(["pos", "pos", "neu", "neg"]), y_true=y, ids=ids)
    exp.feed("b", y[::-1], ids=ids[::-1])
    got_ids, gold = exp.gold()
    assert gold.dtype.kind == "U" and gold.tolist() == y.tolist()
    assert got_ids.tolist() == ids.tolist()
    frame = exp.run(metrics="accuracy", test=_test()).to_frame()
    assert frame.loc[0, "score_a"] == 0.5 and frame.loc[0, "score_b"] == 1.0


def test_default_run_numbers_and_overwrite(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    assert exp.feed("A", systems["A"], y_true=y) == 0
    assert exp.feed("A", systems["B"]) == 1
    assert exp.feed("A", systems["C"], run=7) == 7
    assert exp.feed("A", systems["C"]) == 8
    with pytest.raises(ValueError, match="already has run 1; pass overwrite=True"):
        exp.feed("A", systems["C"], run=1)
    np.testing.assert_array_equal(exp.load_run("A", 1)[1], systems["B"])  # unchanged
    assert exp.feed("A", systems["C"], run=1, overwrite=True) == 1
    np.testing.assert_array_equal(exp.load_run("A", 1)[1], systems["C"])
    assert exp.runs("A") == [0, 1, 7, 8]
    assert len(list((tmp_path / "runs").iterdir())) == 4  # the overwritten file was replaced


def test_gold_checks(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    with pytest.raises(ValueError, match="first feed .* needs 'y_true'"):
        exp.feed("A", systems["A"])
    exp.feed("A", systems["A"][:200], y_true=y[:200])
    wrong = y[:200].copy()
    wrong[[3, 50]] = (wrong[[3, 50]] + 1) % 3
    with pytest.raises(ValueError, match="disagrees with the stored gold on 2 ids .*3, 50"):
        exp.feed("B", systems["B"][:200], y_true=wrong)
    assert exp.systems == ["A"]  # a failed feed stores nothing
    with pytest.raises(ValueError, match="'B' have 300 items but the store's gold has 200"):
        exp.feed("B", systems["B"])
    # gold given again: must agree on the shared ids, new ids extend the gold
    exp.feed("B", systems["B"], y_true=y)
    np.testing.assert_array_equal(exp.gold()[1], y)


def test_input_validation(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    with pytest.raises(TypeError, match="'system'"):
        exp.feed(3, systems["A"], y_true=y)
    with pytest.raises(ValueError, match="'y_true' parameter has 299 items"):
        exp.feed("A", systems["A"], y_true=y[:-1])
    with pytest.raises(ValueError, match="'ids' parameter has 2 ids"):
        exp.feed("A", systems["A"], y_true=y, ids=[0, 1])
    with pytest.raises(ValueError, match="duplicate ids, e.g. \\[0\\]"):
        exp.feed("A", systems["A"], y_true=y, ids=np.r_[0, np.arange(299)])
    with pytest.raises(ValueError, match="'run' parameter must be an int >= 0"):
        exp.feed("A", systems["A"], y_true=y, run=-1)
    with pytest.raises(ValueError, match="'predictions' parameter must be a non-empty"):
        exp.feed("A", np.zeros((300, 2, 2)), y_true=y)
    with pytest.raises(ValueError, match="Nothing has been fed"):
        exp.run()
    with pytest.raises(TypeError, match="'path'"):
        Experiment(None)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("B", systems["B"])
    with pytest.raises(ValueError, match="'on_missing' parameter"):
        exp.run(on_missing="drop")
    with pytest.raises(TypeError, match="'random_state' parameter of Experiment.run"):
        exp.run(random_state=np.random.default_rng(0))
    with pytest.raises(ValueError, match="Unknown system 'Z'"):
        exp.run(systems=["A", "Z"])
    with pytest.raises(ValueError, match="call run\\(\\) first"):
        exp.load_results()
    with pytest.raises(ValueError, match="call run\\(\\) first"):
        exp.load_outcomes()


# ---------------------------------------------------------------- alignment
@pytest.mark.parametrize("runs", ["average", "pool", "each"])
@pytest.mark.filterwarnings("ignore:runs='pool':UserWarning")
def test_shuffled_feed_gives_identical_results(tmp_path, runs):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 250)
    systems = {name: [_noisy(rng, y, acc) for _ in range(3)]
               for name, acc in (("h0", 0.6), ("h1", 0.7), ("h2", 0.72))}
    kwargs = dict(metrics=("accuracy", "f1_macro"), test=_test(), runs=runs, random_state=5)
    in_order = _feed_all(tmp_path / "ordered", y, systems).run(**kwargs).to_frame()
    shuffled = _feed_all(tmp_path / "shuffled", y, systems, shuffle_seed=9).run(**kwargs)
    # the items are tested in sorted-id order, whatever order the gold was fed in, so
    # even position-based resampling (runs="average") gives bit-identical results
    pd.testing.assert_frame_equal(shuffled.to_frame(), in_order, check_exact=True)
    direct = compare(y, systems, **kwargs).to_frame()
    pd.testing.assert_frame_equal(in_order, direct, check_exact=True)



def test_six_systems_with_runs_run_from_the_store_and_cli(tmp_path):
    """Issue 20: a store with 6 systems, one of them with 2 runs, crashed in run()."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    systems = {f"h{i}": _noisy(rng, y, acc) for i, acc in enumerate(np.linspace(0.5, 0.8, 6))}
    systems["h0"] = [systems["h0"], _noisy(rng, y, 0.5)]
    exp = _feed_all(tmp_path / "store", y, systems)
    kwargs = dict(metrics=("accuracy", "f1_macro"), test=_test(), random_state=5)
    got = exp.run(**kwargs).to_frame()
    pd.testing.assert_frame_equal(got, compare(y, systems, **kwargs).to_frame(),
                                  check_exact=True)
    out = io.StringIO()
    assert main(["run", str(tmp_path / "store"), "-m", "accuracy", "-B", "199", "--seed", "3",
                 "--format", "csv"], out=out) == 0  # the default test: permutation + BCa
    assert len(pd.read_csv(io.StringIO(out.getvalue()))) == 15

def test_alignment_uses_ids_not_feed_order(tmp_path, data):
    """BooStSa's defect: runs were pooled in feed order and the indexes ignored."""
    y, systems = data
    order = np.random.default_rng(4).permutation(len(y))
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("C", systems["C"][order], ids=order)
    row = exp.run(metrics="accuracy", test=_test()).to_frame().iloc[0]
    assert row["score_b"] == np.mean(systems["C"] == y)
    # feed order would pair C's predictions with the wrong gold: near chance (1/3)
    assert np.mean(systems["C"][order] == y) < 0.45 < row["score_b"]


def test_soft_predictions_and_gold_aligned(tmp_path):
    rng = np.random.default_rng(2)
    gold = rng.dirichlet(np.ones(3), 120)
    a, b = rng.dirichlet(np.ones(3), 120), rng.dirichlet(np.ones(3) * 0.5, 120)
    order = rng.permutation(120)
    exp = Experiment(tmp_path)
    exp.feed("a", a[order], y_true=gold[order], ids=order + 1000)
    exp.feed("b", b, y_true=gold, ids=np.arange(120) + 1000)
    kwargs = dict(metrics="cross_entropy", test=_test(), random_state=1)
    got = exp.run(**kwargs).to_frame()
    # the items are tested in sorted-id order (here: the original order), not in the
    # order of the first feed
    want = compare(gold, {"a": a, "b": b}, **kwargs).to_frame()
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_missing_ids(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("B", systems["B"])
    exp.feed("B", systems["C"][:280], ids=np.arange(280))
    with pytest.raises(ValueError, match="Run 1 of system 'B' lacks 20 of the 300 gold ids "
                                         "\\(e.g. \\[280, 281"):
        exp.run(metrics="accuracy", test=_test())
    with pytest.warns(UserWarning, match="280 ids that every run has; 20 of 300"):
        got = exp.run(metrics="accuracy", test=_test(), on_missing="intersect",
                      random_state=2).to_frame()
    want = compare(y[:280], {"A": systems["A"][:280],
                             "B": [systems["B"][:280], systems["C"][:280]]},
                   metrics="accuracy", test=_test(), random_state=2).to_frame()
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert exp.load_outcomes()["data"]["n_items"] == 280


# ------------------------------------------------------------------ outputs
def test_results_tsv_and_outcomes_json(tmp_path, data):
    y, systems = data
    exp = _feed_all(tmp_path, y, {"A": systems["A"], "B": systems["B"], "NA": systems["C"]})
    res = exp.run(metrics=("accuracy", "f1_macro"), test=_test(), random_state=11)
    lines = (tmp_path / "results.tsv").read_text().splitlines()
    width = res.to_frame().shape[1]
    assert len(lines) == 1 + 6 and all(len(line.split("\t")) == width for line in lines)
    assert lines[0].split("\t")[:3] == ["system_a", "system_b", "metric"]
    frame = res.to_frame()
    plain = pd.read_csv(tmp_path / "results.tsv", sep="\t")
    np.testing.assert_array_equal(plain["pvalue"], frame["pvalue"])
    # the system called "NA" stays a name, and floats round-trip exactly
    pd.testing.assert_frame_equal(exp.load_results(), frame, check_exact=True)

    outcomes = json.loads((tmp_path / "outcomes.json").read_text(),
                          parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    assert outcomes == exp.load_outcomes()
    assert outcomes["seeds"]["random_state"] == 11 and not outcomes["seeds"]["drawn"]
    assert outcomes["parameters"]["systems"] == ["A", "B", "NA"]
    assert outcomes["parameters"]["test"][0]["params"]["n_resamples"] == B
    assert outcomes["versions"]["numpy"] == np.__version__
    assert pd.DataFrame(outcomes["records"]).equals(frame)
    for metric in res.metrics:
        assert outcomes["letters"][metric] == res.letters(metric)["letters"].to_dict()
        for name in res.systems:
            assert outcomes["summary"][name][metric] == res.system_table().loc[name, metric]
    assert len(outcomes["data"]["files"]["A"]["0"]["sha256"]) == 64


def test_drawn_seed_is_recorded_and_reproduces(tmp_path, data):
    y, systems = data
    exp = _feed_all(tmp_path, y, systems)
    first = exp.run(metrics="accuracy", test=_test(), random_state=None).to_frame()
    seed = exp.load_outcomes()["seeds"]["random_state"]
    assert exp.load_outcomes()["seeds"]["drawn"]
    again = exp.run(metrics="accuracy", test=_test(), random_state=seed).to_frame()
    pd.testing.assert_frame_equal(first, again, check_exact=True)


def test_failed_write_keeps_the_old_manifest(tmp_path, data, monkeypatch):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    before = (tmp_path / "manifest.json").read_text()

    def broken(fh, arr, allow_pickle):
        fh.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(store_module.np, "save", broken)
    with pytest.raises(OSError, match="disk full"):
        exp.feed("B", systems["B"])
    assert (tmp_path / "manifest.json").read_text() == before
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["s000_r0.npy"]
    assert not (tmp_path / ".manifest.lock").exists()
    monkeypatch.undo()
    # a failed overwrite keeps the old run: predictions and ids still match
    exp.feed("B", systems["B"])

    def no_manifest(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "write_json", no_manifest)
    with pytest.raises(OSError, match="disk full"):
        exp.feed("B", systems["C"][::-1], ids=np.arange(300)[::-1], run=0, overwrite=True)
    ids, pred = exp.load_run("B", 0)
    np.testing.assert_array_equal(ids, np.arange(300))
    np.testing.assert_array_equal(pred, systems["B"])
    assert len(list((tmp_path / "runs").iterdir())) == 2


def test_concurrent_feeds_lose_nothing(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("base", systems["A"], y_true=y)
    errors = []

    def worker(k):
        try:
            for _ in range(3):
                Experiment(tmp_path).feed(f"s{k}", systems["B"])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(exp.systems) == sorted(["base"] + [f"s{k}" for k in range(6)])
    assert all(exp.runs(f"s{k}") == [0, 1, 2] for k in range(6))


# ------------------------------------------------------- BooStSa h0/h1 design
def test_boostsa_design_baseline_each_run(tmp_path):
    """h0 and two treatments, three seeds each, every seed on a shuffled test set."""
    rng = np.random.default_rng(7)
    n = 400
    y = rng.integers(0, 3, n)
    systems = {"h0": [_noisy(rng, y, 0.6) for _ in range(3)],
               "h1_null": [_noisy(rng, y, 0.6) for _ in range(3)],
               "h1_strong": [_noisy(rng, y, 0.85) for _ in range(3)]}
    exp = _feed_all(tmp_path, y, systems, shuffle_seed=1)
    kwargs = dict(metrics=("accuracy", "f1_macro"), test=_test(), pairs="baseline",
                  baseline="h0", runs="each", random_state=0)
    res = exp.run(**kwargs)
    frame = res.to_frame()
    assert res.n_runs == 3 and sorted(frame["run"].unique()) == [0, 1, 2]
    assert set(frame["system_a"]) == {"h0"} and len(frame) == 3 * 2 * 2
    pd.testing.assert_frame_equal(frame, compare(y, systems, **kwargs).to_frame(),
                                  check_exact=True)
    # Expected accuracies .90 vs .73 (a wrong draw is right 1/3 of the time): delta
    # ~ .167 with sd ~ sqrt(.3 / 400) = .027 per seed, so > .05 and significant in
    # every seed (z ~ 6). The equal-skill system is significant in a seed with prob.
    # <= .05 (seeded here: it is in none), and its |delta| stays within 4 sd.
    strong = frame[frame["system_b"] == "h1_strong"]
    assert strong["significant"].all() and (strong["delta"] > 0.05).all()
    null = frame[frame["system_b"] == "h1_null"]
    assert not null["significant"].any() and (null["delta"].abs() < 0.11).all()
    outcomes = exp.load_outcomes()
    assert outcomes["letters"] is None  # letters need pairs="all"
    assert len(outcomes["runs_summary"]) == 2 * 2
    assert outcomes["data"]["runs"] == {"h0": [0, 1, 2], "h1_null": [0, 1, 2],
                                        "h1_strong": [0, 1, 2]}
    # runs="each" pairs runs by number: different numbers are an error
    exp.feed("h1_late", systems["h1_null"][0], ids=np.arange(n), run=5)
    exp.feed("h1_late", systems["h1_null"][1], ids=np.arange(n), run=6)
    exp.feed("h1_late", systems["h1_null"][2], ids=np.arange(n), run=7)
    with pytest.raises(ValueError, match="same run numbers"):
        exp.run(**kwargs)
    assert len(exp.run(**{**kwargs, "systems": ["h0", "h1_strong"]}).to_frame()) == 6


# ---------------------------------------------------------------------- CLI
def test_cli_feed_and_run(tmp_path, data):
    y, systems = data
    store = tmp_path / "store"
    order = np.random.default_rng(5).permutation(len(y))
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    np.savetxt(tmp_path / "ids.txt", order, fmt="%d")
    np.savetxt(tmp_path / "a.txt", systems["A"], fmt="%d")
    np.savetxt(tmp_path / "b.txt", systems["B"][order], fmt="%d")
    out = io.StringIO()
    assert main(["feed", str(store), "base", str(tmp_path / "a.txt"),
                 "--gold", str(tmp_path / "gold.txt")], out=out) == 0
    assert main(["feed", str(store), "new", str(tmp_path / "b.txt"),
                 "--ids", str(tmp_path / "ids.txt"), "--run", "0"], out=out) == 0
    assert "stored run 0 of system 'new'" in out.getvalue()
    assert main(["feed", str(store), "new", str(tmp_path / "b.txt"),
                 "--ids", str(tmp_path / "ids.txt"), "--run", "0"], out=io.StringIO()) == 2
    out = io.StringIO()
    assert main(["run", str(store), "-m", "accuracy", "--test", "bootstrap", "-B", "999",
                 "--seed", "3", "--pairs", "baseline", "--baseline", "base",
                 "--format", "csv"], out=out) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    from sigtest import BergKirkpatrickBootstrap

    want = compare(y, {"base": systems["A"], "new": systems["B"]}, metrics="accuracy",
                   test=BergKirkpatrickBootstrap(n_resamples=999), random_state=3,
                   pairs="baseline", baseline="base").to_frame()
    np.testing.assert_array_equal(got["pvalue"], want["pvalue"])
    np.testing.assert_array_equal(got["score_b"], want["score_b"])
    pd.testing.assert_frame_equal(Experiment.load(store).load_results(), want,
                                  check_exact=True)
    assert Experiment.load(store).load_outcomes()["parameters"]["pairs"] == "baseline"


def test_cli_errors(tmp_path, data, capsys):
    y, systems = data
    np.savetxt(tmp_path / "a.txt", systems["A"], fmt="%d")
    assert main(["feed", str(tmp_path / "s"), "a", str(tmp_path / "a.txt")],
                out=io.StringIO()) == 2
    assert "needs 'y_true'" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "nowhere")], out=io.StringIO()) == 2
    assert "no manifest.json" in capsys.readouterr().err


# ------------------------------------------------------- feeds that break the store
def _snapshot(path):
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file()}


def test_feeds_that_would_break_the_store_are_refused(tmp_path):
    """Issue 8: a 3-column soft file fed into a 2-class store broke every later run."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    exp = Experiment(tmp_path)
    exp.feed("a", np.where(rng.random(100) < 0.7, y, 1 - y), y_true=y)
    exp.feed("soft", rng.dirichlet(np.ones(2), 100))
    before = _snapshot(tmp_path)
    bad_feeds = [
        (dict(predictions=rng.dirichlet(np.ones(3), 100)),
         "have 3 columns but the gold has 2 classes"),
        (dict(predictions=np.array(["x", "y"] * 50)), "string labels but the store's gold "
                                                      "holds numeric labels"),
        (dict(predictions=rng.random(100)), "1-D, so it holds labels, but it holds "
                                            "non-integer numbers"),
        (dict(predictions=y, ids=[f"d{i}" for i in range(100)]),
         "'ids' of system 'b' are string ids but the store's item ids are integers"),
        (dict(predictions=y, y_true=np.eye(2)[y]), "'y_true' given with system 'b' holds "
                                                   "2-column probabilities but the store's "
                                                   "gold holds numeric labels"),
        (dict(predictions=np.full((100, 2), 0.7)), None),  # rows need not sum (multilabel)
        (dict(predictions=np.full((100, 2), 1.5)), "'predictions' parameter must hold "
                                                   "values in \\[0, 1\\]"),
        # new ids with a third class: the stored 2-column run could no longer be tested
        (dict(predictions=np.full(10, 2), y_true=np.full(10, 2), ids=np.arange(100, 110)),
         "the gold has 3 classes .* run 0 of system 'soft' holds 2-column"),
    ]
    for kwargs, match in bad_feeds:
        kwargs = dict(kwargs)
        if match is None:
            continue
        with pytest.raises(ValueError, match=match):
            exp.feed("b", kwargs.pop("predictions"), **kwargs)
        assert _snapshot(tmp_path) == before  # nothing written
    res = exp.run(metrics="accuracy", test=_test())  # the store still runs
    assert res.systems == ["a", "soft"]
    # a 2-D gold: classes are its columns, hard predictions column indices
    soft = Experiment(tmp_path / "soft")
    gold = rng.dirichlet(np.ones(3), 50)
    soft.feed("p", rng.dirichlet(np.ones(3), 50), y_true=gold)
    with pytest.raises(ValueError, match="have 2 columns but the gold has 3 columns"):
        soft.feed("q", rng.dirichlet(np.ones(2), 50))
    with pytest.raises(ValueError, match="class indices 0..2 .*from 0 to 3"):
        soft.feed("q", rng.integers(0, 4, 50))
    with pytest.raises(ValueError, match="must be class indices 0..2.*string labels"):
        soft.feed("q", np.array(["a"] * 50))
    soft.feed("q", rng.integers(0, 3, 50))
    # a refused first feed leaves no directory behind
    with pytest.raises(ValueError, match="have 3 columns but the gold has 2 classes"):
        Experiment(tmp_path / "new").feed("a", rng.dirichlet(np.ones(3), 100), y_true=y)
    assert not (tmp_path / "new").exists()
    with pytest.raises(ValueError, match="string labels but 'y_true' holds numeric"):
        Experiment(tmp_path / "new").feed("a", np.array(["x"] * 100), y_true=y)
    assert not (tmp_path / "new").exists()


def test_overwriting_a_soft_run_with_the_new_class_count_is_allowed(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40)
    exp = Experiment(tmp_path)
    exp.feed("a", rng.dirichlet(np.ones(2), 40), y_true=y)
    with pytest.raises(ValueError, match="run 0 of system 'a' holds 2-column"):
        exp.feed("b", np.full(5, 2), y_true=np.full(5, 2), ids=np.arange(40, 45))
    exp.remove("a")
    exp.feed("b", np.full(5, 2), y_true=np.full(5, 2), ids=np.arange(40, 45))
    assert exp.gold()[1].tolist() == y.tolist() + [2] * 5


# ------------------------------------------------------------------ remove
def test_remove_runs_and_systems(tmp_path, data):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("B", systems["B"])
    exp.feed("B", systems["C"])
    exp.feed("C", systems["C"])
    assert exp.remove("B", run=0) == [0]
    assert exp.runs("B") == [1]
    np.testing.assert_array_equal(exp.load_run("B", 1)[1], systems["C"])
    assert exp.remove("A") == [0]
    assert exp.systems == ["B", "C"]
    files = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert files == ["s001_r1.npy", "s002_r0.npy"]  # the removed files are gone
    # a new system never takes a key (file name) still in use
    exp.feed("D", systems["A"])
    np.testing.assert_array_equal(exp.load_run("C", 0)[1], systems["C"])
    np.testing.assert_array_equal(exp.load_run("D", 0)[1], systems["A"])
    # removing the last run removes the system
    exp.remove("B", run=1)
    assert exp.systems == ["C", "D"]
    for call, match in ((lambda: exp.remove("Z"), "Unknown system 'Z'; the store has "
                                                   "\\['C', 'D'\\]"),
                        (lambda: exp.remove("C", run=3), "System 'C' has no run 3; its runs "
                                                         "are \\[0\\]"),
                        (lambda: Experiment(tmp_path / "none").remove("C"), "no manifest")):
        before = _snapshot(tmp_path)
        with pytest.raises(ValueError, match=match):
            call()
        assert _snapshot(tmp_path) == before
    assert not (tmp_path / "none").exists() and not (tmp_path / ".manifest.lock").exists()
    with pytest.raises(TypeError, match="'run'"):
        exp.remove("C", run="0")
    again = Experiment.load(tmp_path)
    assert again.systems == ["C", "D"] and again.runs("C") == [0]
    assert exp.run(metrics="accuracy", test=_test()).systems == ["C", "D"]


def test_remove_writes_the_manifest_before_deleting(tmp_path, data, monkeypatch):
    y, systems = data
    exp = Experiment(tmp_path)
    exp.feed("A", systems["A"], y_true=y)
    exp.feed("B", systems["B"])
    before = _snapshot(tmp_path)

    def no_manifest(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "write_json", no_manifest)
    with pytest.raises(OSError, match="disk full"):
        exp.remove("B")
    assert _snapshot(tmp_path) == before  # the manifest and the run file are intact


# ---------------------------------------------------------- labels and runs
def test_run_default_runs_follows_compare():
    import inspect

    default = inspect.signature(compare).parameters["runs"].default
    assert inspect.signature(Experiment.run).parameters["runs"].default == default == "average"


def test_run_several_runs_default_is_average(tmp_path):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 200)
    systems = {n: [_noisy(rng, y, acc) for _ in range(2)] for n, acc in (("a", .6), ("b", .7))}
    exp = _feed_all(tmp_path, y, systems)
    got = exp.run(metrics="accuracy", test=_test(), random_state=3).to_frame()
    want = compare(y, systems, metrics="accuracy", test=_test(), random_state=3,
                   runs="average").to_frame()
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert exp.load_outcomes()["parameters"]["runs"] == "average"


def test_run_passes_labels_and_pos_label(tmp_path):
    """Issue 8: a label absent from the gold lowered macro-F1 of every pair."""
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 300)
    a = _noisy(rng, y, 0.7)
    b = np.where(rng.random(300) < 0.1, 3, _noisy(rng, y, 0.7))  # predicts an unknown 3
    exp = Experiment(tmp_path)
    exp.feed("a", a, y_true=y)
    exp.feed("b", b)
    with pytest.warns(UserWarning, match="'b'.*3"):
        frame = exp.run(metrics="f1_macro", test=_test(), labels=[0, 1, 2]).to_frame()
    assert frame.loc[0, "score_b"] == pytest.approx(
        f1_score(y, b, labels=[0, 1, 2], average="macro"), abs=1e-12)
    assert frame.loc[0, "score_a"] == pytest.approx(
        f1_score(y, a, labels=[0, 1, 2], average="macro"), abs=1e-12)
    assert exp.load_outcomes()["parameters"]["labels"] == [0, 1, 2]
    with pytest.warns(UserWarning):
        frame = exp.run(metrics="f1", test=_test(), pos_label=2).to_frame()
    assert frame.loc[0, "score_a"] == pytest.approx(f1_score(y, a, labels=[2], average="macro"),
                                                    abs=1e-12)
    assert exp.load_outcomes()["parameters"]["pos_label"] == 2


def test_cli_remove_and_labels(tmp_path, data, capsys):
    y, systems = data
    store = tmp_path / "store"
    for name, arr in (("gold", y), ("a", systems["A"]), ("b", systems["B"])):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    assert main(["feed", str(store), "a", str(tmp_path / "a.txt"),
                 "--gold", str(tmp_path / "gold.txt")], out=io.StringIO()) == 0
    assert main(["feed", str(store), "b", str(tmp_path / "b.txt")], out=io.StringIO()) == 0
    assert main(["feed", str(store), "b", str(tmp_path / "a.txt")], out=io.StringIO()) == 0
    out = io.StringIO()
    assert main(["remove", str(store), "b", "--run", "1"], out=out) == 0
    assert "removed run 1 of system 'b'" in out.getvalue()
    assert Experiment.load(store).runs("b") == [0]
    assert main(["remove", str(store), "zz"], out=io.StringIO()) == 2
    assert "Unknown system 'zz'" in capsys.readouterr().err
    assert main(["remove", str(store), "b", "--run", "4"], out=io.StringIO()) == 2
    assert "has no run 4" in capsys.readouterr().err
    (tmp_path / "labels.txt").write_text("0\n1\n2\n")
    for spec in ("0,1,2", str(tmp_path / "labels.txt")):
        out = io.StringIO()
        assert main(["run", str(store), "-m", "f1_macro", "-B", "99", "--labels", spec,
                     "--format", "csv"], out=out) == 0
        assert Experiment.load(store).load_outcomes()["parameters"]["labels"] == [0, 1, 2]
    out = io.StringIO()
    assert main(["run", str(store), "-m", "f1", "-B", "99", "--pos-label", "1",
                 "--format", "csv"], out=out) == 0
    from sklearn.metrics import f1_score

    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert got.loc[0, "score_a"] == pytest.approx(f1_score(y, systems["A"], labels=[1],
                                                           average="macro"), abs=1e-12)
    assert main(["remove", str(store), "b"], out=io.StringIO()) == 0
    assert Experiment.load(store).systems == ["a"]
    import sigtest._cli.commands

    with pytest.MonkeyPatch.context() as mp:  # run writes into the store: checked first
        mp.setattr(sigtest._cli.commands.os, "access", lambda path, mode: False)
        assert main(["run", str(store)], out=io.StringIO()) == 2
    assert "is not writable (run writes results.tsv" in capsys.readouterr().err


def test_cli_feed_refuses_and_says_overwrite(tmp_path, data, capsys):
    y, systems = data
    store = tmp_path / "store"
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    np.savetxt(tmp_path / "a.txt", systems["A"], fmt="%d")
    np.savetxt(tmp_path / "p3.csv", np.random.default_rng(0).dirichlet(np.ones(4), 300),
               delimiter=",")
    assert main(["feed", str(store), "a", str(tmp_path / "a.txt"),
                 "--gold", str(tmp_path / "gold.txt")], out=io.StringIO()) == 0
    assert main(["feed", str(store), "a", str(tmp_path / "a.txt"), "--run", "0"],
                out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "pass --overwrite" in err and "overwrite=True" not in err
    assert main(["feed", str(store), "p", str(tmp_path / "p3.csv")], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "have 4 columns but the gold has 3 classes" in err and err.count("\n") == 1
    np.savetxt(tmp_path / "short.txt", systems["A"][:10], fmt="%d")
    assert main(["feed", str(store), "s", str(tmp_path / "short.txt"),
                 "--gold", str(tmp_path / "gold.txt")], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "gold file" in err and "has 300 rows but the prediction file" in err
    assert "short.txt' has 10" in err and not Experiment.load(store).systems.count("s")


def test_run_follows_compare_defaults_and_records_what_was_applied(tmp_path):
    # issue 23: correction="auto" and bootstrap="auto" as compare; outcomes.json
    # records what was given and what was applied
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 300)
    exp = Experiment(tmp_path)
    exp.feed("a", _noisy(rng, y, 0.7), y_true=y)
    exp.feed("b", _noisy(rng, y, 0.8))
    res = exp.run(metrics="accuracy", test=_test())
    params = exp.load_outcomes()["parameters"]
    assert (params["correction"], params["bootstrap"]) == ("auto", "auto")
    assert params["correction_applied"] == res.correction == "holm"
    assert params["bootstrap_applied"] == res.bootstrap == "resample"
    with pytest.raises(ValueError, match="'bootstrap'"):
        exp.run(metrics="accuracy", test=_test(), bootstrap="gauss")
