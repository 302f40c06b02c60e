"""sigtest.read_scores reads files without loss: ids are labels, names are names.

Each file is written by hand; the expected items, systems and scores are the
file's own text, and ``compare`` on the table is checked against ``compare``
on arrays built by hand from the same rows.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import read_scores


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def _csv(rows, header="system,item,score"):
    return header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _jsonl(records):
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("pair", [("01", "1"), ("007", "7"), ("1e3", "1000"), ("2.5", "2.50")])
def test_ids_that_read_as_one_number_are_two_items_in_csv(tmp_path, pair):
    a, b = pair
    path = _write(tmp_path / "s.csv", _csv([("x", a, 1), ("x", b, 0), ("y", a, 0),
                                            ("y", b, 1)]))
    table = read_scores(path)
    assert sorted(table.items().tolist()) == sorted([a, b])
    _, scores, groups = table.arrays()
    assert groups is None  # two items, not two samples of one
    by_item = dict(zip(table.items().tolist(), scores["x"].tolist()))
    assert by_item == {a: 1.0, b: 0.0}


@pytest.mark.parametrize("pair", [("01", "1"), ("007", "7"), ("1e3", "1000"), ("2.5", "2.50")])
def test_ids_that_read_as_one_number_are_two_items_in_json_lines(tmp_path, pair):
    a, b = pair
    records = [{"system": s, "item": i, "score": v}
               for s, i, v in (("x", a, 1), ("x", b, 0), ("y", a, 0), ("y", b, 1))]
    table = read_scores(_write(tmp_path / "s.jsonl", _jsonl(records)))
    assert sorted(table.items().tolist()) == sorted([a, b])
    assert table.arrays()[2] is None
    # JSON numbers written differently are different ids too (1e3 vs 1000, 2.5 vs 2.50)
    if pair in (("1e3", "1000"), ("2.5", "2.50")):
        text = "".join(f'{{"system": "{s}", "item": {i}, "score": {v}}}\n'
                       for s, i, v in (("x", a, 1), ("x", b, 0), ("y", a, 0), ("y", b, 1)))
        table = read_scores(_write(tmp_path / "n.jsonl", text))
        assert sorted(table.items().tolist()) == sorted([a, b])


def test_integer_ids_stay_integers_and_keep_the_numeric_order(tmp_path):
    rows = [(s, i, (i * 7 + k) % 3 == 0) for k, s in enumerate("ab") for i in (10, 2, 1)]
    table = read_scores(_write(tmp_path / "s.csv", _csv(rows)))
    assert table.items().dtype == np.int64 and table.items().tolist() == [1, 2, 10]
    # a JSON int and the string of the same text are one id
    records = [{"system": "a", "item": 5, "score": 1}, {"system": "b", "item": "5", "score": 0}]
    assert read_scores(_write(tmp_path / "s.jsonl", _jsonl(records))).items().tolist() == [5]


def test_numeric_looking_system_names_stay_apart(tmp_path):
    rows = [(s, q, v) for s, v in (("1", 1), ("1.0", 0), ("01", 1)) for q in ("q1", "q2")]
    table = read_scores(_write(tmp_path / "s.csv", _csv(rows)))
    assert table.systems == ["1", "1.0", "01"]
    assert table.arrays()[1]["1.0"].tolist() == [0.0, 0.0]
    records = [{"system": s, "item": "q", "score": 1} for s in (1, "1.0", "01")]
    assert read_scores(_write(tmp_path / "s.jsonl", _jsonl(records))).systems == \
        ["1", "1.0", "01"]


@pytest.mark.parametrize("word", ["NA", "None", "null", "nan", "N/A", "#N/A"])
def test_missing_value_words_are_names(tmp_path, word):
    rows = [(word, word, 1), (word, "q2", 0), ("b", word, 0), ("b", "q2", 1)]
    table = read_scores(_write(tmp_path / "s.csv", _csv(rows)))
    assert table.systems == [word, "b"]
    assert set(table.items().tolist()) == {word, "q2"}
    records = [{"system": s, "item": i, "score": v} for s, i, v in rows]
    assert read_scores(_write(tmp_path / "s.jsonl", _jsonl(records))).systems == [word, "b"]
    # an empty field or a JSON null is still missing
    with pytest.raises(ValueError, match=r"item column 'item' of the file .*values \(lines \[3\]"):
        read_scores(_write(tmp_path / "e.csv", _csv([("a", "q", 1), ("a", "", 1)])))
    records[1]["item"] = None
    with pytest.raises(ValueError, match=r"item column 'item' .* missing.*lines \[2\]"):
        read_scores(_write(tmp_path / "e.jsonl", _jsonl(records)))


@pytest.mark.parametrize("working", ["_item", "_sample", "_score", "item", "sample", "score"])
def test_user_columns_never_clash_with_working_columns(working):
    """Clusters in a column named like a working column give the clusters' p-value."""
    rng = np.random.default_rng(3)
    n_q = 8  # 8 clusters of 4 items: the permutation test's smallest p is 2 / 2**8
    clusters = np.repeat(np.arange(n_q), 4)
    a = (rng.random(n_q * 4) < 0.5).astype(float)
    b = np.clip(a + (rng.random(n_q * 4) < 0.4), 0, 1)
    cols = {"sys": np.repeat(["a", "b"], n_q * 4), "id": np.tile(np.arange(n_q * 4), 2),
            "value": np.r_[a, b]}
    cols[working] = np.tile(clusters, 2)
    df = pd.DataFrame(cols)
    table = read_scores(df, system="sys", item="id", score="value", group=working)
    _, scores, groups = table.arrays()
    np.testing.assert_array_equal(groups, clusters)
    test = sigtest.PairedPermutation(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = test.test(None, scores["a"], scores["b"], metric="mean", groups=groups).pvalue
        want = test.test(None, a, b, metric="mean", groups=clusters).pvalue
    assert got == want


@pytest.mark.parametrize("columns", [["system", "item", "score", "score"],
                                     ["system", "item", "item", "score"]])
def test_duplicate_column_names_are_named(columns):
    df = pd.DataFrame([["a", "q", 1, 1], ["b", "q", 0, 0]], columns=columns)
    twice = [c for c in columns if columns.count(c) > 1][0]
    with pytest.raises(ValueError, match=rf"several columns named \['{twice}'\]"):
        read_scores(df)


def test_duplicate_names_in_files_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"file .*s.csv' has several columns named \['score'\]"):
        read_scores(_write(tmp_path / "s.csv", "system,item,score,score\na,q,1,0\nb,q,0,1\n"))
    with pytest.raises(ValueError, match=r"names the key\(s\) \['score'\] more than once in "
                                         r"line 2"):
        read_scores(_write(tmp_path / "s.jsonl", '{"system": "a", "item": 1, "score": 1}\n'
                                                 '{"system": "b", "item": 1, "score": 1, '
                                                 '"score": 0}\n'))


def test_a_utf8_bom_is_read_in_json_lines_and_csv(tmp_path):
    records = [{"system": s, "item": "q", "score": 1} for s in "ab"]
    table = read_scores(_write(tmp_path / "s.jsonl", _jsonl(records), "utf-8-sig"))
    assert table.systems == ["a", "b"]
    assert read_scores(_write(tmp_path / "s.csv", _csv([("a", "q", 1), ("b", "q", 0)]),
                              "utf-8-sig")).systems == ["a", "b"]


def test_other_encodings_need_the_encoding_option(tmp_path):
    path = _write(tmp_path / "s.csv", _csv([("café", "q", 1), ("b", "q", 0)]), "latin-1")
    with pytest.raises(ValueError, match=r"file '.*s.csv' is not a UTF-8 text file.*encoding="):
        read_scores(path)
    assert read_scores(path, encoding="latin-1").systems == ["café", "b"]
    with pytest.raises(ValueError, match="'encoding' parameter 'klingon'"):
        read_scores(path, encoding="klingon")
    with pytest.raises(ValueError, match="'encoding' parameter applies to files"):
        read_scores(pd.DataFrame({"system": ["a"], "item": [1], "score": [1]}),
                    encoding="utf-8")


@pytest.mark.parametrize("name, text, match", [
    ("s.csv", "", r"file '.*s.csv' is empty; write a header row"),
    ("s.csv", "system,item,score\n", r"file '.*s.csv' has a header but no rows"),
    ("s.jsonl", "\n\n", r"file '.*s.jsonl' is empty; write one JSON object per line"),
    ("s.jsonl", '{"system": "a", "item": 1, "score": 1}\n{"system": "b", "item": 1\n',
     r"file '.*s.jsonl' is not valid JSON lines: line 2, column \d+"),
    ("s.json", '[{"system": "a", "item": 1, "score": 1}]',
     r"file '.*s.json' must hold one JSON object per line; line 1 holds an array.*lines=True"),
    ("s.jsonl", '{"system": "a", "item": 1, "score": 1}\n'
                '{"system": "b", "item": 1, "score": 1}, {"system": "c", "item": 1}\n',
     r"file '.*s.jsonl' is not valid JSON lines: line 2, column \d+: Extra data"),
    ("s.jsonl", '{"system": "a", "item": 1, "score": 1}\n7\n',
     r"file '.*s.jsonl' must hold one JSON object per line; line 2 holds a value that is "
     r"not an object"),
    ("s.csv", "system,item,score\na,1,1\nb,1,0,7\n",
     r"file '.*s.csv' could not be read as CSV.*line 3"),
])
def test_read_errors_name_the_file_and_what_to_do(tmp_path, name, text, match):
    with pytest.raises(ValueError, match=match):
        read_scores(_write(tmp_path / name, text))


def test_a_broken_parquet_file_is_named(tmp_path):
    pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match=r"file '.*s.parquet' could not be read as Parquet"):
        read_scores(_write(tmp_path / "s.parquet", "system,item,score\n"))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"file '.*nope.csv' does not exist"):
        read_scores(tmp_path / "nope.csv")
    (tmp_path / "d").mkdir()  # a folder is searched for tables: none there
    with pytest.raises(FileNotFoundError, match=r"folder '.*d' holds no table of scores"):
        read_scores(tmp_path / "d")


@pytest.mark.parametrize("scores, shown", [
    (["1", "0", "0.5", "1"], r"numbers written as text such as \['1', '0', '0.5', '1'\]"),
    (pd.to_datetime(["2020-01-01", "2020-01-02"] * 2), r"datetime64.*such as \['2020-01-01"),
    (pd.Categorical([1, 0, 0, 1]), r"categorical values such as \['1', '0'\]"),
    ([1 + 1j, 0, 0, 1], r"complex numbers such as \['\(1\+1j\)'"),
])
def test_scores_that_are_not_numbers_show_their_values(scores, shown):
    df = pd.DataFrame({"system": list("aabb"), "item": [1, 2, 1, 2], "score": scores})
    with pytest.raises(ValueError, match=shown):
        read_scores(df)


def test_score_text_in_files(tmp_path):
    with pytest.raises(ValueError, match=r"must hold JSON numbers; it holds strings such as "
                                         r"\['1', '0'\] \(lines \[1, 2\]\)"):
        read_scores(_write(tmp_path / "s.jsonl", _jsonl(
            [{"system": s, "item": 1, "score": v} for s, v in (("a", "1"), ("b", "0"))])))
    with pytest.raises(ValueError, match=r"must hold numbers.*it holds \['C'\] \(lines \[3\]\)"):
        read_scores(_write(tmp_path / "s.csv", _csv([("a", 1, 1), ("b", 1, "C")])))
    with pytest.raises(ValueError, match=r"1 NaN or infinite value\(s\) \(lines \[2\]"):
        read_scores(_write(tmp_path / "s.csv", _csv([("a", 1, "NA"), ("b", 1, 1)])))
    # numbers, booleans and object columns of numbers are scores
    table = read_scores(_write(tmp_path / "b.csv", _csv([("a", 1, "true"), ("b", 1, "0.25")])))
    assert [table.arrays()[1][s].item() for s in "ab"] == [1.0, 0.25]
    df = pd.DataFrame({"system": ["a", "b"], "item": [1, 1],
                       "score": pd.Series([1, 0.5], dtype=object)})
    assert read_scores(df).arrays()[1]["b"].tolist() == [0.5]
