"""read_scores of files: globs, folders, lists, path patterns, lm-evaluation-harness.

lm-evaluation-harness' --log_samples files are written as the harness writes
them (``_lm_eval_files``); the reference is the table built by hand from the
values written (or the same rows as one DataFrame). Repeated rows that are
variants of an item (filters, files, path fields) are refused by name.
"""

import json

import numpy as np
import pandas as pd
import pytest

from sigtest import read_scores

from _lm_eval_files import write_samples

DATE = "2024-06-01T12-30-45.123456"
MODELS = ("meta-llama/Llama-3-8B", "mistralai/Mistral-7B")
FOLDERS = ("meta-llama__Llama-3-8B", "mistralai__Mistral-7B")


def _gsm8k(rng, n=30):
    docs = [(i, {"question": f"What is {i} + 1?", "answer": f"#### {i + 1}"}, f"#### {i + 1}",
             f"Question: What is {i} + 1?\nAnswer:") for i in range(n)]
    truth = {}
    filters = {}
    for model, p in zip(MODELS, (0.55, 0.7)):
        strict = (rng.random(n) < p).astype(int)
        flexible = np.maximum(strict, (rng.random(n) < 0.3).astype(int))
        truth[model] = {"strict-match": strict, "flexible-extract": flexible}
        filters[model] = {
            "strict-match": [(f"The answer is {i + 1}", {"exact_match": float(v)})
                             for i, v in enumerate(strict)],
            "flexible-extract": [(f"so {i + 1}", {"exact_match": float(v)})
                                 for i, v in enumerate(flexible)]}
    return docs, filters, truth


@pytest.fixture()
def out(tmp_path):
    """Two models x (gsm8k: two filters; arc_easy: filter none, acc and acc_norm)."""
    rng = np.random.default_rng(0)
    docs, filters, truth = _gsm8k(rng)
    arc_docs = [(i, {"question": f"q{i}", "choices": ["a", "b"]}, 0, f"Question: q{i}")
                for i in range(20)]
    for model in MODELS:
        write_samples(tmp_path, model, "gsm8k", DATE, docs, filters[model])
        acc = (rng.random(20) < 0.6).astype(int)
        truth[model]["acc"] = acc
        write_samples(tmp_path, model, "arc_easy", DATE, arc_docs, {"none": [
            ("a", {"acc": float(a), "acc_norm": float(1 - a)}) for a in acc]})
    return tmp_path, truth


def test_written_like_the_harness(out):
    folder, _ = out
    line = json.loads((folder / FOLDERS[0] / f"samples_gsm8k_{DATE}.jsonl").read_text()
                      .splitlines()[0])
    assert list(line) == ["doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                          "filter", "metrics", "doc_hash", "prompt_hash", "target_hash",
                          "exact_match"]
    assert line["filter"] == "strict-match" and line["metrics"] == ["exact_match"]


@pytest.mark.parametrize("flt", ["strict-match", "flexible-extract"])
def test_glob_reads_one_filter_and_one_metric(out, flt):
    folder, truth = out
    table = read_scores(str(folder / "*" / "samples_gsm8k_*.jsonl"), harness="lm-eval",
                        score="exact_match", filter=flt)
    assert table.systems == list(FOLDERS) and table.datasets == ["gsm8k"]
    _, scores, groups = table.arrays()
    assert groups is None and table.items().tolist() == list(range(30))
    for model, name in zip(MODELS, FOLDERS):
        assert scores[name].tolist() == truth[model][flt].astype(float).tolist()


def test_harness_detected_from_file_names_and_list_of_files(out):
    folder, _ = out
    files = sorted(folder.glob("*/samples_gsm8k_*.jsonl"))
    want = read_scores(files, harness="lm-eval", score="exact_match", filter="strict-match")
    got = read_scores(files, score="exact_match", filter="strict-match")
    assert got.systems == want.systems
    for s in got.systems:
        assert np.array_equal(got.arrays()[1][s], want.arrays()[1][s])


def test_several_filters_must_be_named_and_are_listed(out):
    folder, _ = out
    with pytest.raises(ValueError, match=r"2 filters \['strict-match', 'flexible-extract'\].*"
                                         r"filter='strict-match'"):
        read_scores(str(folder / "*" / "samples_gsm8k_*.jsonl"), score="exact_match")
    with pytest.raises(ValueError, match=r"no rows of the filter 'strict'.*filters are "
                                         r"\['strict-match', 'flexible-extract'\]"):
        read_scores(str(folder / "*" / "samples_gsm8k_*.jsonl"), score="exact_match",
                    filter="strict")


def test_folder_with_one_filter_and_metric_choice(out):
    folder, truth = out
    arc = folder / "arc"
    for name in FOLDERS:
        (arc / name).mkdir(parents=True)
        src = folder / name / f"samples_arc_easy_{DATE}.jsonl"
        src.rename(arc / name / src.name)
    table = read_scores(arc, score="acc")  # harness from the file names, filter "none"
    assert table.datasets == ["arc_easy"] and table.systems == list(FOLDERS)
    for model, name in zip(MODELS, FOLDERS):
        assert table.arrays("arc_easy")[1][name].tolist() == truth[model]["acc"].tolist()
    norm = read_scores(arc, score="acc_norm").arrays()[1][FOLDERS[0]]
    assert norm.tolist() == (1 - truth[MODELS[0]]["acc"]).tolist()
    with pytest.raises(ValueError, match=r"metrics \['acc', 'acc_norm'\]; name the one"):
        read_scores(arc)
    with pytest.raises(ValueError, match=r"has no metric 'exact_match'.*\['acc', 'acc_norm'\]"):
        read_scores(arc, score="exact_match")


def test_a_rerun_of_one_task_is_refused_naming_the_files(out):
    folder, _ = out
    again = folder / FOLDERS[1] / f"samples_gsm8k_2024-06-02T08-00-00.000001.jsonl"
    again.write_text((folder / FOLDERS[1] / f"samples_gsm8k_{DATE}.jsonl").read_text())
    with pytest.raises(ValueError, match=r"differ in the file they come from.*"
                                         r"mistralai__Mistral-7B.*keep one file"):
        read_scores(str(folder / "*" / "samples_gsm8k_*.jsonl"), score="exact_match",
                    filter="strict-match")


def test_corpus_level_metric_is_refused(tmp_path):
    docs = [(i, {"src": f"s{i}"}, f"t{i}", f"s{i}") for i in range(3)]
    for model in MODELS:
        write_samples(tmp_path, model, "wmt16", DATE, docs, {"none": [
            ("t", {"bleu": [f"t{i}", "t"]}) for i in range(3)]})
    with pytest.raises(ValueError, match=r"metric 'bleu'.*\[\['t0', 't'\].*corpus-level"):
        read_scores(tmp_path, score="bleu")


def test_concatenated_filters_in_a_table_are_refused_naming_the_column(out):
    """The silent mix of both filters (the mean of strict and flexible) is an error."""
    folder, _ = out
    frames = []
    for name in FOLDERS:
        s = pd.read_json(folder / name / f"samples_gsm8k_{DATE}.jsonl", lines=True)
        frames.append(pd.DataFrame({"system": name, "item": s["doc_id"],
                                    "filter": s["filter"], "score": s["exact_match"]}))
    table = pd.concat(frames)
    with pytest.raises(ValueError, match=r"differ in the column 'filter'.*'strict-match', "
                                         r"'flexible-extract'.*not repeated samples"):
        read_scores(table)
    one = read_scores(table[table["filter"] == "strict-match"])
    assert "rows per item" not in repr(one)


def test_epochs_are_clustered_and_the_repr_says_so():
    df = pd.DataFrame({"system": np.repeat(["a", "b"], 6), "item": np.tile([1, 1, 1, 2, 2, 2], 2),
                       "epoch": np.tile([0, 1, 2], 4), "score": np.arange(12) % 2})
    table = read_scores(df)
    assert repr(table) == ("ScoreTable(systems=['a', 'b'], 6 units (3 rows per item → "
                           "clustered by item))")
    assert table.arrays()[2].tolist() == [1, 1, 1, 2, 2, 2]


def test_pattern_gives_system_and_task_of_table_files(tmp_path):
    rng = np.random.default_rng(1)
    want = {}
    for system in ("small", "large"):
        for task in ("arc", "mmlu"):
            (tmp_path / system).mkdir(exist_ok=True)
            scores = (rng.random(8) < 0.5).astype(int)
            want[system, task] = scores
            pd.DataFrame({"item": [f"q{i}" for i in range(8)], "score": scores}).to_csv(
                tmp_path / system / f"{task}.csv", index=False)
    table = read_scores(tmp_path, pattern="{system}/{task}.csv")
    by_call = read_scores(sorted(map(str, tmp_path.glob("*/*.csv"))),
                          pattern=lambda p: {"system": p.split("/")[-2],
                                             "task": p.split("/")[-1][:-4]})
    assert sorted(table.datasets) == ["arc", "mmlu"] == sorted(by_call.datasets)
    for (system, task), scores in want.items():
        assert table.arrays(task)[1][system].tolist() == scores.tolist()
        assert by_call.arrays(task)[1][system].tolist() == scores.tolist()
    with pytest.raises(ValueError, match=r"does not match the pattern '\{system\}/x_\{task\}"):
        read_scores(tmp_path, pattern="{system}/x_{task}.csv")


def test_pattern_field_that_varies_within_an_item_is_refused(tmp_path):
    for system in ("a", "b"):
        for run in ("r1", "r2"):
            (tmp_path / system).mkdir(exist_ok=True)
            pd.DataFrame({"item": [1, 2], "score": [1, 0]}).to_csv(
                tmp_path / system / f"{run}.csv", index=False)
    with pytest.raises(ValueError, match=r"differ in the column 'run'.*\['r1', 'r2'\]"):
        read_scores(tmp_path, pattern="{system}/{run}.csv")


@pytest.mark.parametrize("pattern, match", [
    ("{system}/{task", "unmatched brace"), ("{system}/{1x}.csv", r"field \{1x\}"),
    ("{system}/{system}.csv", "twice"), ("plain.csv", "no field"), (3, "must be a str"),
])
def test_bad_patterns_are_named(tmp_path, pattern, match):
    pd.DataFrame({"system": ["a", "b"], "item": [1, 1], "score": [1, 0]}).to_csv(
        tmp_path / "t.csv", index=False)
    with pytest.raises((ValueError, TypeError), match=match):
        read_scores(tmp_path / "t.csv", pattern=pattern)


def test_bad_sources_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"pattern '.*\*.csv' matches no file"):
        read_scores(str(tmp_path / "*.csv"))
    with pytest.raises(TypeError, match="'data' parameter must be"):
        read_scores([])
    with pytest.raises(ValueError, match="'harness' parameter must be one of"):
        read_scores(tmp_path, harness="helm")
    df = pd.DataFrame({"system": ["a", "b"], "item": [1, 1], "score": [1, 0]})
    with pytest.raises(ValueError, match="'filter' parameter applies to files"):
        read_scores(df, filter="none")
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match="'filter' parameter applies to harness='lm-eval'"):
        read_scores(tmp_path / "t.csv", filter="none")
    with pytest.raises(ValueError, match=r"'item' parameter names a column of a table.*"
                                         r"Got item='doc'"):
        read_scores(tmp_path / "t.csv", harness="lm-eval", item="doc")


@pytest.mark.parametrize("sep", [",", "\t"])
def test_arrow_and_pandas_csv_readers_read_alike(tmp_path, monkeypatch, sep):
    """Arrow's CSV reader (the fast path) and pandas' read the same ids and scores."""
    pytest.importorskip("pyarrow")
    from sigtest._workflows import score_files

    rows = [("a", "007", "1"), ("a", "7", "NA"), ("a", " 7", "0.5"), ("a", "x,y", "true"),
            ("NA", "007", "0"), ("NA", "7", "1e0"), ("NA", " 7", ""), ("NA", "x,y", "FALSE")]
    quote = (lambda v: f'"{v}"' if sep in v or "," in v else v)
    text = "system,item,score\n".replace(",", sep) + "".join(
        sep.join(quote(v) for v in row) + "\n" for row in rows)
    path = tmp_path / ("t.csv" if sep == "," else "t.tsv")
    path.write_text(text, encoding="utf-8-sig")
    frame_fast = score_files.read_file(path, None, "utf-8-sig", "score")[0]
    monkeypatch.setattr(score_files, "_read_delimited_arrow", lambda *a: None)
    frame_slow = score_files.read_file(path, None, "utf-8-sig", "score")[0]
    for col in ("system", "item"):
        assert score_files.file_ids(frame_fast[col], "csv")[0].tolist() == \
            score_files.file_ids(frame_slow[col], "csv")[0].tolist()
    np.testing.assert_array_equal(score_files.file_scores(frame_fast["score"], "f", "csv"),
                                  score_files.file_scores(frame_slow["score"], "f", "csv"))


def test_sample_tail_reads_the_keys_of_the_whole_line(tmp_path):
    """The fast tail of a sample line gives the keys a full json.loads gives, even when
    the document or the metric values hold a nested "filter" key."""
    from sigtest._workflows.harness_logs import _sample_tail

    docs = [(0, {"q": 'a "filter": x', "meta": {"filter": "inner"}}, "t", "p"),
            ('id "7"', {"q": "b"}, "t", "p"), (-3, {"q": "c"}, "t", "p")]
    path = write_samples(tmp_path, "m", "task", DATE, docs, {"none": [
        ("r", {"acc": 1.0}), ("r", {"acc": 0.0, "odd": {"a": 1, "filter": "x"}}), ("r", {"acc": True})]})
    lines = path.read_text(encoding="utf-8").splitlines()
    assert _sample_tail(lines[1]) is None  # a nested "filter" after the real one: decoded whole
    for line in (lines[0], lines[2]):
        full, tail = json.loads(line), _sample_tail(line)
        assert tail is not None
        for key in ("doc_id", "filter", "metrics", "acc"):
            assert tail[key] == full[key]


def test_list_of_table_files_reads_as_their_concatenation(tmp_path):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 10), "item": np.tile(range(10), 3),
                       "score": rng.integers(0, 2, 30)})
    paths = []
    for system, part in df.groupby("system"):
        paths.append(tmp_path / f"{system}.csv")
        part.to_csv(paths[-1], index=False)
    got, want = read_scores(paths), read_scores(df)
    assert got.systems == want.systems
    for s in got.systems:
        assert np.array_equal(got.arrays()[1][s], want.arrays()[1][s])
    df.iloc[:5].to_csv(tmp_path / "a_again.csv", index=False)  # rows of 'a' twice
    with pytest.raises(ValueError, match=r"differ in the file they come from"):
        read_scores([*paths, tmp_path / "a_again.csv"])
    pd.DataFrame({"system": ["d"], "item": [1], "score": [1], "group": [1]}).to_csv(
        tmp_path / "d.csv", index=False)
    with pytest.raises(ValueError, match=r"do not all have the same columns.*\['group'\]"):
        read_scores([*paths, tmp_path / "d.csv"])
