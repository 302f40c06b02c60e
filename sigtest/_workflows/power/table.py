"""The minimum detectable effects of a comparison.

The table of :meth:`ComparisonResult.minimum_detectable_effects`: one
:func:`sigtest.minimum_detectable_effect` per (baseline, metric).
"""

import math
import warnings

import numpy as np

from sigtest._engine.rng import check_seed
from sigtest._workflows.power.api import check_target, minimum_detectable_effect
from sigtest.metrics import get_metric
from sigtest.metrics._common import union_labels
from sigtest.metrics._hard import pos_label_params

__all__ = ["comparison_mde_table"]


def comparison_mde_table(frame, *, targets, runs, classes, options, alpha, n_runs, n_groups,
                         power=0.8, test=None,
                         n_simulations=1000, random_state=None, discordance=None, step=None,
                         n_jobs=None, verbose=False, tol=None):
    """The minimum detectable effect of every non-significant row of a comparison.

    One :func:`minimum_detectable_effect` per distinct (baseline ``system_a``,
    metric) among the non-significant rows, with the system's predictions as
    the pilot on the comparison's items (``targets``, ``runs`` and
    ``classes`` as the comparison checked them; ``options`` its options,
    whose ``labels``, ``pos_label`` and ``sample_weight`` are read); its seed comes from
    ``random_state`` and the names (CRC-32 of ``"system\\0metric"`` as the
    spawn key), so the table does not depend on the order of the rows.
    """
    import zlib

    import pandas as pd

    if n_runs != 1 or n_groups is not None:
        raise ValueError(
            "minimum_detectable_effects needs a comparison of single runs on independent "
            "items (no runs='each', no groups=): the simulation resamples items."
        )
    if options.sample_weight is not None:
        raise ValueError("minimum_detectable_effects does not support sample_weight.")
    target = check_target(power)
    alpha = float(alpha)
    base_seed = check_seed(random_state)
    rows = frame[~frame["significant"].astype(bool)] if "significant" in frame else frame
    cache = {}
    out = []
    for _, row in rows.iterrows():
        key = (row["system_a"], row["metric"])
        if key not in cache:
            metric = get_metric(row["metric"])
            if len(runs[row["system_a"]]) != 1:
                raise ValueError(
                    "minimum_detectable_effects needs one run per system (the simulation "
                    f"resamples one system's predictions); {row['system_a']!r} has "
                    f"{len(runs[row['system_a']])}."
                )
            pred = np.asarray(runs[row["system_a"]][0])
            if metric.input_type == "labels":
                y = targets["labels"]
                if pred.ndim == 2 and pred.dtype.kind in "biuf":
                    cls = classes if classes is not None else np.unique(y)
                    pred = np.asarray(cls)[np.argmax(pred, axis=1)]
            else:
                y = targets[metric.input_type]
            kw = {}
            if options.labels is not None and metric.input_type == "labels":
                kw["labels"] = options.labels
            if metric.input_type == "labels":  # compare's pos_label, or its default 1
                given = options.pos_label
                kw.update(pos_label_params(
                    metric, {} if given is None else {"pos_label": given},
                    union_labels(y, pred, options.labels)))
            spawn = zlib.crc32(f"{key[0]}\0{key[1]}".encode())
            seed = int(np.random.SeedSequence(base_seed, spawn_key=(spawn,)).generate_state(
                1)[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                cache[key] = minimum_detectable_effect(
                    y, pred, power=target, metric=metric, test=test, alpha=alpha,
                    n_simulations=n_simulations, random_state=seed,
                    discordance=discordance, step=step if metric.input_type != "labels"
                    else None, n_jobs=n_jobs, verbose=verbose, tol=tol, **kw)
        res = cache[key]
        mde = res.effect
        low, high = res.effect_interval
        statement = (f"not significant, and this test set could not have detected less "
                     f"than {mde:+.3g} {row['metric']} (power {target:g}; Monte Carlo "
                     f"interval [{low:+.3g}, {high:+.3g}])"
                     if math.isfinite(mde) else
                     f"not significant, and no improvement the model reaches is detected "
                     f"with power {target:g} on this test set")
        out.append({"system_a": row["system_a"], "system_b": row["system_b"],
                    "metric": row["metric"], "test": row["test"], "delta": row["delta"],
                    "pvalue": row["pvalue"], "mde": mde, "mde_low": low, "mde_high": high,
                    "mde_power": res.power,
                    "power_target": target, "alpha": alpha, "n_items": res.n_items,
                    "n_simulations": res.n_simulations, "statement": statement})
    columns = ["system_a", "system_b", "metric", "test", "delta", "pvalue", "mde", "mde_low",
               "mde_high", "mde_power", "power_target", "alpha", "n_items", "n_simulations", "statement"]
    return pd.DataFrame(out, columns=columns)
