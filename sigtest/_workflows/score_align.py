"""The alignment of :func:`sigtest.read_scores`: one unit per (item, sample), across systems.

:func:`align` takes the working columns of one dataset (system codes, item
ids, scores, and maybe groups and *variant* columns) and returns every
system's scores in the same unit order (sorted by item id, then by sample in
table order), the groups (the group column, or the item of repeated
samples) and the item of every unit. It works on codes and one stable sort
(O(N log N), no per-system or per-row Python loop), and refuses:

* repeated rows of one (system, item) that differ in a variant column (a
  filter, a metric, a prompt template, the file they come from): variants
  of an item are not samples of it;
* unequal numbers of repeated rows across systems, absent systems and
  missing items (unless ``on_missing="intersect"``), a group that varies
  within an item.
"""

from __future__ import annotations

import numpy as np

from sigtest.utils import plain, warn_external

__all__ = ["VARIANT_NAMES", "align", "codes", "shown"]

#: How many offending ids a message lists.
_SHOWN = 5
#: Column names (any case) that name a variant of an item rather than a sample of it.
VARIANT_NAMES = frozenset({"filter", "metric", "metric_name", "scorer", "prompt",
                           "prompt_id", "prompt_template", "template", "variant"})


def shown(values):
    """The first few ``values`` as plain Python values (no numpy reprs in messages)."""
    return plain(list(np.asarray(values, dtype=object)[:_SHOWN]))


def codes(values):
    """Sorted codes of ids (mixed types sorted as strings): independent of the row order."""
    import pandas as pd

    values = np.asarray(values)
    if values.dtype.kind in "iu" and values.size:
        low, high = int(values.min()), int(values.max())
        if high - low < 4 * values.size:  # a dense range: codes by counting, O(N)
            seen = np.zeros(high - low + 1, dtype=bool)
            seen[values - low] = True
            rank = np.cumsum(seen) - 1
            return rank[values - low], np.flatnonzero(seen).astype(values.dtype) + low
    try:
        out, uniques = pd.factorize(values, sort=True)
    except TypeError:
        out, uniques = pd.factorize(np.asarray(values).astype(str), sort=True)
    return out, np.asarray(uniques)


def _stable_order(keys, n_keys):
    """``np.argsort(keys, kind="stable")``; O(N) by counting when no key repeats."""
    counts = np.bincount(keys, minlength=n_keys)
    if counts.size and counts.max() > 1:
        return np.argsort(keys, kind="stable")
    position = np.cumsum(counts) - 1  # the place of the only row of every key
    order = np.empty(keys.size, dtype=np.int64)
    order[position[keys]] = np.arange(keys.size)
    return order


def _check_variants(keys, sorted_keys, variants, context):
    """Repeated rows of one (system, item) must agree in every variant column."""
    import pandas as pd

    systems, item_ids, n_sys, where = context
    for name, (values, hint) in variants.items():
        var_code, _ = pd.factorize(values)
        width = int(var_code.max()) + 2
        pairs = np.unique(keys * width + (var_code + 1))
        owner, count = np.unique(pairs // width, return_counts=True)
        if not (count > 1).any():
            continue
        key = owner[np.argmax(count > 1)]
        found = list(dict.fromkeys(plain(list(np.asarray(values, dtype=object)[keys == key]))))
        n_bad = int((count > 1).sum())
        message = (
            f"{where}the rows of {n_bad} (system, item) pair(s) differ in {hint[0]}: system "
            f"{systems[key % n_sys]!r}, item {shown([item_ids[key // n_sys]])[0]!r} has rows "
            f"of {found[:_SHOWN]}. They are variants of the item, not repeated samples of it "
            f"(which would mix them into one score); {hint[1].replace('{first}', repr(found[0]))}"
        )
        raise ValueError(message[0].upper() + message[1:])


def _unequal_counts(lengths, run_item, run_sys, istarts, complete, context):
    systems, item_ids, _, where = context
    cmin = np.minimum.reduceat(lengths, istarts)
    cmax = np.maximum.reduceat(lengths, istarts)
    unequal = np.flatnonzero(complete & (cmin != cmax))
    if unequal.size == 0:
        return
    ends = np.r_[istarts[1:], len(run_item)]
    detail = "; ".join(
        f"item {shown([item_ids[i]])[0]!r}: "
        + ", ".join(f"{systems[run_sys[j]]}={int(lengths[j])}" for j in range(istarts[i], ends[i]))
        for i in unequal[:_SHOWN])
    raise ValueError(
        f"{where}the systems have different numbers of rows (samples) for "
        f"{unequal.size} item(s): {detail}. Repeated rows of an item are its "
        "samples and every system needs the same number of them."
    )


def _missing_items(complete, run_item, run_sys, present_codes, on_missing, context):
    systems, item_ids, _, where = context
    if on_missing == "error":
        details = []
        for k in present_codes:
            has = np.zeros(complete.size, dtype=bool)
            has[run_item[run_sys == k]] = True
            if not has.all():
                details.append(f"{systems[k]}: {shown(item_ids[np.flatnonzero(~has)])}")
        raise ValueError(
            f"{where}items are missing for some systems ({'; '.join(details)}); every system "
            "must score the same items. Pass on_missing='intersect' to keep only the items "
            "every system scored."
        )


def _groups(group, item_code, kept, first, item_ids, where, group_col):
    """The group of every unit; a group must be constant within an item (of the ``kept``
    rows, None: all)."""
    import pandas as pd

    n_items = item_ids.size
    group = np.asarray(group)
    group_code, _ = pd.factorize(group if kept is None else group[kept])
    if kept is not None:
        item_code = item_code[kept]
    width = int(group_code.max()) + 2
    pairs = np.unique(item_code.astype(np.int64) * width + (group_code + 1))
    several = np.bincount(pairs // width, minlength=n_items) > 1
    if several.any():
        raise ValueError(
            f"{where}the group column {group_col!r} must be constant within an item (the "
            f"item lies in one cluster); items {shown(item_ids[several])} have several groups."
        )
    return group[first]


def _pivot(keys, item_code, sys_code, part, systems, item_ids, where, group_col):
    """The common case in O(N): every system scores every item once (a full pivot)."""
    n_items, n_sys = item_ids.size, len(systems)
    if keys.size != n_items * n_sys or np.bincount(keys, minlength=keys.size).max() != 1:
        return None
    grid = np.empty((n_items, n_sys))
    grid[item_code, sys_code] = part["score"]
    scores = {s: np.ascontiguousarray(grid[:, k]) for k, s in enumerate(systems)}
    groups = None
    if "group" in part:
        mine = np.flatnonzero(sys_code == 0)
        first = np.empty(n_items, dtype=np.int64)
        first[item_code[mine]] = mine
        groups = _groups(part["group"], item_code, None, first, item_ids, where, group_col)
    return scores, groups, item_ids.copy(), 0


def align(part, systems, on_missing, where, group_col, variants=None):
    """Scores of one dataset, one unit per (item, sample), aligned across systems.

    ``part``: dict of arrays ``sys`` (codes into ``systems``), ``item``,
    ``score`` and maybe ``group``; ``variants``: ``{name: (values, (what,
    what to do))}``, columns in which the rows of one (system, item) must
    agree. Returns ``(scores, groups, items, n_dropped)``.
    """
    n_sys = len(systems)
    item_code, item_ids = codes(part["item"])
    sys_code = np.asarray(part["sys"], dtype=np.int64)
    present_codes = np.flatnonzero(np.bincount(sys_code, minlength=n_sys))
    keys = item_code.astype(np.int64) * n_sys + sys_code
    fast = _pivot(keys, item_code, sys_code, part, systems, item_ids, where, group_col)
    if fast is not None:
        return fast
    order = _stable_order(keys, item_ids.size * n_sys)  # by item, system, table order
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    lengths = np.diff(np.r_[starts, sorted_keys.size])
    context = (systems, item_ids, n_sys, where)
    if variants and lengths.max() > 1:
        _check_variants(keys, sorted_keys, variants, context)
    run_item, run_sys = sorted_keys[starts] // n_sys, sorted_keys[starts] % n_sys
    istarts = np.flatnonzero(np.r_[True, run_item[1:] != run_item[:-1]])
    complete = np.diff(np.r_[istarts, run_item.size]) == present_codes.size
    _unequal_counts(lengths, run_item, run_sys, istarts, complete, context)
    absent = [systems[k] for k in range(n_sys) if k not in set(present_codes.tolist())]
    if absent and on_missing == "error":
        raise ValueError(
            f"{where}system(s) {absent} have no rows; every system must score the same "
            "items (on_missing='intersect' compares the systems present)."
        )
    if absent:
        warn_external(f"read_scores(on_missing='intersect'): {where}system(s) {absent} have "
                      "no rows and are left out there.", UserWarning)
    n_dropped = 0
    keep = None
    if not complete.all():
        _missing_items(complete, run_item, run_sys, present_codes, on_missing, context)
        keep = complete[sorted_keys // n_sys]
        n_dropped = int(keep.size - keep.sum())
        if n_dropped == keep.size:
            raise ValueError(f"{where}no item is scored by every system.")
    sorted_sys = sorted_keys % n_sys
    score = np.asarray(part["score"])
    rows = {}
    for k in present_codes:
        mine = sorted_sys == k
        rows[k] = order[mine if keep is None else mine & keep]
    scores = {systems[k]: score[rows[k]] for k in present_codes}
    first = rows[present_codes[0]]
    items = item_ids[item_code[first]]
    repeated = bool((lengths[complete[run_item]] > 1).any())
    groups = None
    if "group" in part:
        kept = None if keep is None else complete[item_code]
        groups = _groups(part["group"], item_code, kept, first, item_ids, where, group_col)
    elif repeated:
        groups = items.copy()  # the samples of an item form its cluster
    return scores, groups, items, n_dropped
