"""``integer_ids`` matches and parses each distinct value once: the same answer as
matching and parsing every value (the former code, written out here)."""

import numpy as np
import pandas as pd
import pytest

from sigtest._workflows.score_files import _INTEGER, integer_ids


def _every_value(text):
    """The former ``integer_ids``: every value matched and parsed."""
    values = text if isinstance(text, pd.Series) else pd.Series(text, dtype=object)
    values = values.astype("str")
    if not values.str.fullmatch(_INTEGER).all():
        return None
    if getattr(values.dtype, "storage", None) == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            return pc.cast(pa.array(values.array), pa.int64()).to_numpy()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
    try:
        return values.astype(np.int64).to_numpy()
    except (ValueError, OverflowError, TypeError):
        return None


_ODD = ["007", "+3", " 4", "-0", "1.0", "x", "", "9" * 19, "9" * 20, "-" + "9" * 18,
        "9223372036854775808", "-9223372036854775808"]


def _cases():
    rng = np.random.default_rng(0)
    yield np.array([], dtype=str)
    yield rng.integers(0, 3, 10_000).astype(str)  # few labels
    yield rng.permutation(5000).astype(str)  # every id distinct
    yield rng.integers(-10**18, 10**18, 300).astype(str)
    for odd in _ODD:  # one odd value among integers, anywhere
        values = rng.integers(0, 5, 200).astype(object).astype(str).astype(object)
        values[rng.integers(0, 200)] = odd
        yield values
    late = rng.integers(0, 3, 5000).astype(str).astype(object)  # repeats, then odd
    late[4000] = "03"
    yield late
    yield np.concatenate([np.arange(1000), np.zeros(4000, dtype=int)]).astype(str)
    yield pd.Series(["1", None, "2"], dtype=object)
    yield pd.Series(["1", "2", "2"], dtype=object)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return
    yield pd.Series(rng.integers(0, 4, 500).astype(str), dtype="string[pyarrow]")
    yield pd.Series(["1", "9" * 19, "3"], dtype="string[pyarrow]")


@pytest.mark.parametrize("text", list(_cases()), ids=lambda t: f"{len(t)}")
def test_integer_ids_equal_every_value_parsed(text):
    got, want = integer_ids(text), _every_value(text)
    if want is None:
        assert got is None
    else:
        assert got.dtype == np.int64 and want.dtype == np.int64
        np.testing.assert_array_equal(got, want)
