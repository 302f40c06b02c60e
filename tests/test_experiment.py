"""The persisted feed/run pipeline: storage, alignment by item ids, outputs, CLI."""

import io
import json
import threading

import numpy as np
import pandas as pd
import pytest

import sigtest.experiment as experiment_module
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
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["manifest.json", "runs"]
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
    with pytest.raises(ValueError, match="100 ids of system 'B' have no gold label"):
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
@pytest.mark.parametrize("runs", ["pool", "each"])
def test_shuffled_feed_gives_identical_results(tmp_path, runs):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 250)
    systems = {name: [_noisy(rng, y, acc) for _ in range(3)]
               for name, acc in (("h0", 0.6), ("h1", 0.7), ("h2", 0.72))}
    kwargs = dict(metrics=("accuracy", "f1_macro"), test=_test(), runs=runs, random_state=5)
    in_order = _feed_all(tmp_path / "ordered", y, systems).run(**kwargs).to_frame()
    shuffled = _feed_all(tmp_path / "shuffled", y, systems, shuffle_seed=9).run(**kwargs)
    pd.testing.assert_frame_equal(shuffled.to_frame(), in_order, check_exact=True)
    direct = compare(y, systems, **kwargs).to_frame()
    pd.testing.assert_frame_equal(in_order, direct, check_exact=True)


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
    # the gold is stored in the first feed's order, so compare on that order
    want = compare(gold[order], {"a": a[order], "b": b[order]}, **kwargs).to_frame()
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
            assert outcomes["summary"][name][metric] == res.summary().loc[name, metric]
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

    monkeypatch.setattr(experiment_module.np, "save", broken)
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

    monkeypatch.setattr(experiment_module, "_write_json", no_manifest)
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
