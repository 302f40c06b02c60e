"""The header rule of a one-column file converts each distinct value once: the same
verdict and message as converting every line (the former code, written out here)."""

import numpy as np
import pandas as pd
import pytest

from sigtest._cli import io


def _every_line(path, cells):
    """The former one-column branch of ``_detect_header``: every line converted."""
    n = cells.shape[0]
    if n < 2:
        return
    first, rest = cells[0], cells[1:]
    col, head = rest[:, 0], first[0]
    num = pd.to_numeric(pd.Series(cells[:, 0].ravel()), errors="coerce").to_numpy(np.float64)
    if n >= 3 and np.isnan(num[0]) and not np.isnan(num[1:]).any():
        raise io._header_error(path, f"line 1 ({str(head)!r}) is not a number, the other "
                                     f"{n - 1} rows are")
    distinct = np.unique(col)
    if (n - 1 >= io._MIN_ROWS_LABEL_HEADER
            and len(distinct) <= min(io._MAX_DISTINCT_LABELS, (n - 1) // 5)
            and head not in set(distinct.tolist())):
        raise io._header_error(path, f"line 1 ({str(head)!r}) never occurs again, while the "
                                     f"other {n - 1} rows hold only {len(distinct)} distinct "
                                     "labels")


def _verdict(check, cells):
    try:
        check("f.txt", cells)
    except ValueError as exc:
        return str(exc)
    return None


def _columns():
    rng = np.random.default_rng(0)
    heads = ["label", "1", "0.5", "x", "", "nan", "1e3", "pos", "007"]
    bodies = [rng.integers(0, 3, 200).astype(str), rng.choice(["pos", "neg", "neu"], 200),
              rng.permutation(200).astype(str), rng.random(60).round(3).astype(str),
              np.array(["1", "2"]), np.array(["a"] * 9), rng.integers(0, 3, 40).astype(str),
              np.array(["1", "x"] * 30), np.array(["label"] + ["1"] * 50)]
    for body in bodies:
        yield body[:1]
        for head in heads:
            yield np.concatenate([[head], body])


@pytest.mark.parametrize("column", list(_columns()), ids=lambda c: f"{c[0]!r}-{len(c)}")
def test_header_rule_equals_every_line_converted(column):
    cells = np.asarray(column, dtype=str)[:, None]
    got = _verdict(lambda p, c: io._detect_header(p, c, False), cells)
    assert got == _verdict(_every_line, cells)
