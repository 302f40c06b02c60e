"""compare under joblib's dask backend gives the same result as n_jobs=1."""

import joblib
import numpy as np
import pandas as pd
import pytest

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation, compare

pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")


def test_dask_backend_identical_to_serial():
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 3, n)
    preds = {f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
             for i, acc in enumerate((0.6, 0.7, 0.75, 0.9))}
    kw = dict(metrics=["accuracy", "f1_macro"],
              test=(PairedPermutation(n_resamples=199), BCaInterval(n_resamples=199)),
              random_state=11)
    ref = compare(y, preds, n_jobs=1, **kw).to_frame()
    # 6 systems: the shared resamples' per-system and per-range tasks go to dask too
    many = {f"t{i}": np.where(rng.random(n) < 0.6 + 0.05 * i, y, rng.integers(0, 3, n))
            for i in range(6)}
    kw_many = dict(metrics="f1_macro", random_state=12,
                   test=BergKirkpatrickBootstrap(n_resamples=199, alternative="two-sided"))
    ref_many = compare(y, many, n_jobs=1, **kw_many).to_frame()
    # threads in one process: quick to start and enough to exercise the dask
    # scheduler, task serialisation and out-of-order completion
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        with joblib.parallel_config(backend="dask"):
            got = compare(y, preds, **kw).to_frame()
            got_verbose = compare(y, preds, n_jobs=-1, verbose=True, **kw).to_frame()
            got_many = compare(y, many, **kw_many).to_frame()
    pd.testing.assert_frame_equal(ref, got, check_exact=True)
    pd.testing.assert_frame_equal(ref, got_verbose, check_exact=True)
    pd.testing.assert_frame_equal(ref_many, got_many, check_exact=True)
