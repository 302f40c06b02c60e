"""The simulator of power: pilot -> universe rows -> simulated counts -> PairedData.

Every simulated test set is a vector of counts over a fixed set of rows
(hard labels: cells ``(true, A, B)``; soft outputs: pilot items in one of
three versions), so each simulated pair goes to the test as compressed
:class:`~sigtest.PairedData` (the engine's cell compression) and the test
runs on a few rows whatever the number of items. The perturbation model
(how B is built from A; see :func:`sigtest.power` and
``docs/planning.md``) keeps A and B as correlated as real systems are: B
agrees with A on most items and differs on a *discordant* share of them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from numbers import Real

import numpy as np

from sigtest._engine import prepare_paired
from sigtest._engine.rng import splitmix64

__all__ = ["DEFAULT_CHURN", "DEFAULT_SOFT_DISCORDANCE", "DEFAULT_SOFT_STEP", "Simulator"]

#: default discordance of the soft model (share of items whose output B changes)
DEFAULT_SOFT_DISCORDANCE = 1.0
#: default step of the soft model (share of probability mass moved per changed item)
DEFAULT_SOFT_STEP = 0.2
#: background churn of the hard default: B breaks this share of min(acc, 1 - acc) items
DEFAULT_CHURN = 0.25
_TWO53 = 2.0 ** -53


def _uniforms(words):
    return (words >> np.uint64(11)).astype(np.float64) * _TWO53


class Simulator:
    """Pilot data, perturbation model and the simulation of compressed pairs.

    Rows of the *universe*: hard labels, one row per (pilot cell ``(t, a)``,
    outcome ``b``) with ``b`` in {``a``, the gold (fix), each wrong label
    (break)}; soft outputs, one row per (pilot item, version) with version
    in {A's output, moved toward the gold, moved away}. Every simulated test
    set is a count vector over these rows. The expected column sums of B are
    linear in the two transition probabilities ``(p_plus, p_minus)``
    (hard: fix and break; soft: up and down).
    """

    def __init__(self, y_true, y_pred_a, metric, *, labels, discordance, step, metric_params):
        self.metric = metric
        if not metric.has_statistics:
            raise ValueError(
                f"The 'metric' parameter: power needs a metric with additive statistics; "
                f"{metric.name!r} has none (only a score function)."
            )
        if metric.input_type == "labels":
            if not metric.cellwise:
                raise ValueError(
                    f"The 'metric' parameter: hard-label metric {metric.name!r} is not "
                    "cellwise (its per-item statistics depend on more than (gold, "
                    "prediction)), which the simulation of power needs."
                )
            if step is not None:
                raise ValueError("The 'step' parameter is for soft outputs (probability "
                                 "metrics); hard labels have no step.")
            self.kind = "labels"
            self._init_hard(y_true, y_pred_a, labels, discordance, metric_params)
        elif metric.input_type == "proba":
            self.kind = "soft"
            self._init_soft(y_true, y_pred_a, labels, discordance, step, metric_params)
        else:
            raise ValueError(
                f"The 'metric' parameter: power supports hard-label and probability "
                f"metrics; {metric.name!r} is a {metric.input_type!r} metric."
            )
        self.score_a = float(self.universe.values(self.sums_a))

    # ---------------------------------------------------------------- hard
    def _init_hard(self, y_true, y_pred_a, labels, discordance, metric_params):
        # validation (lengths, kinds, labels) through the one input path
        pilot = prepare_paired(y_true, y_pred_a, y_pred_a, self.metric, labels=labels,
                               compress=True, **metric_params)
        label_set = np.asarray(pilot.params["labels"])
        yt = np.asarray(y_true).ravel()
        ya = np.asarray(y_pred_a).ravel()
        K = label_set.shape[0]
        index = {v: i for i, v in enumerate(label_set.tolist())}
        try:
            t_code = np.array([index[v] for v in yt.tolist()], dtype=np.int64)
            a_code = np.array([index[v] for v in ya.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise ValueError(f"The 'labels' parameter misses the label {exc.args[0]!r} of "
                             "y_true or y_pred_a.") from None
        n = t_code.shape[0]
        cells, item_cell, counts = np.unique(t_code * K + a_code, return_inverse=True,
                                             return_counts=True)
        cell_t, cell_a = cells // K, cells % K
        correct = cell_t == cell_a
        # A's confusions: where B breaks an item of gold t, it predicts w with
        # the share of A's errors on gold t that predict w (uniform over the
        # other labels if A makes none on t)
        conf = np.zeros((K, K))
        np.add.at(conf, (cell_t[~correct], cell_a[~correct]), counts[~correct])
        rows_t, rows_a, rows_b = [], [], []
        stay_row = np.empty(cells.shape[0], dtype=np.int64)
        fix_row = np.full(cells.shape[0], -1, dtype=np.int64)
        break_keys, break_rows, break_cells, break_prob = [], [], [], []
        for j in range(cells.shape[0]):
            t, a = int(cell_t[j]), int(cell_a[j])
            stay_row[j] = len(rows_t)
            rows_t.append(t), rows_a.append(a), rows_b.append(a)
            if not correct[j]:
                fix_row[j] = len(rows_t)
                rows_t.append(t), rows_a.append(a), rows_b.append(t)
                continue
            if K < 2:
                continue
            q = conf[t].copy()
            q[t] = 0.0
            if q.sum() == 0:
                q = np.ones(K)
                q[t] = 0.0
            q /= q.sum()
            cdf = np.cumsum(q)
            for w in np.flatnonzero(q > 0):
                break_keys.append(j + (1.0 if w == np.flatnonzero(q > 0)[-1] else cdf[w]))
                break_rows.append(len(rows_t))
                break_cells.append(j)
                break_prob.append(q[w])
                rows_t.append(t), rows_a.append(a), rows_b.append(int(w))
        self.n_pilot = n
        self.item_cell = item_cell.ravel().astype(np.int64)
        self.cell_correct = correct
        self.stay_row, self.fix_row = stay_row, fix_row
        self.break_keys = np.asarray(break_keys, dtype=np.float64)
        self.break_rows = np.asarray(break_rows, dtype=np.int64)
        rows_t = label_set[np.asarray(rows_t)]
        rows_a = label_set[np.asarray(rows_a)]
        rows_b = label_set[np.asarray(rows_b)]
        self.rows = (rows_t, rows_a, rows_b)  # the values of every universe row
        self.universe = prepare_paired(rows_t, rows_a, rows_b, self.metric, labels=label_set,
                                       compress=False, **metric_params)
        sa, sb = self.universe.stats_a, self.universe.stats_b
        w = counts.astype(np.float64)
        self.sums_a = w @ sa[stay_row]
        # expected sums of B: base + p_plus * g_plus + p_minus * g_minus
        wrong = ~correct
        self.g_plus = w[wrong] @ (sb[fix_row[wrong]] - sb[stay_row[wrong]])
        g_minus = np.zeros_like(self.sums_a)
        if break_rows:
            bc = np.asarray(break_cells)
            contrib = (w[bc] * np.asarray(break_prob))[:, None] * (
                sb[np.asarray(break_rows)] - sb[stay_row[bc]])
            g_minus = contrib.sum(axis=0)
        self.g_minus = g_minus
        self.base = self.sums_a.copy()
        self.share_plus = float(w[wrong].sum() / n)   # items A gets wrong
        self.share_minus = float(w[correct].sum() / n) if K >= 2 else 0.0
        self.words_per_item = 3
        self._init_path(discordance, default_share=None)

    # ---------------------------------------------------------------- soft
    def _init_soft(self, y_true, y_pred_a, labels, discordance, step, metric_params):
        step = DEFAULT_SOFT_STEP if step is None else step
        if (isinstance(step, bool) or not isinstance(step, Real) or not math.isfinite(step)
                or not 0 < step <= 1):
            raise ValueError(f"The 'step' parameter must be a real in (0, 1]. Got {step!r} "
                             "instead.")
        self.step = float(step)
        pilot = prepare_paired(y_true, y_pred_a, y_pred_a, self.metric, labels=labels,
                               compress=False, **metric_params)
        P = np.asarray(y_true, dtype=np.float64)
        Q = np.asarray(y_pred_a, dtype=np.float64)
        if P.ndim != 2:
            raise ValueError("The 'y_true' parameter must hold one distribution per item "
                             f"(shape (n_samples, n_classes)) for metric {self.metric.name!r}.")
        n, K = Q.shape
        gold = np.argmax(P, axis=1)
        masked = Q.copy()
        masked[np.arange(n), gold] = -np.inf
        wrong = np.argmax(masked, axis=1) if K > 1 else gold
        away = np.zeros_like(Q)
        away[np.arange(n), wrong] = 1.0
        up = (1.0 - self.step) * Q + self.step * P
        down = (1.0 - self.step) * Q + self.step * away
        # rows 3i, 3i+1, 3i+2: A's output, moved toward the gold, moved away
        P3 = np.repeat(P, 3, axis=0)
        Q3 = np.repeat(Q, 3, axis=0)
        B3 = np.stack([Q, up, down], axis=1).reshape(3 * n, K)
        self.rows = (P3, Q3, B3)
        self.universe = prepare_paired(P3, Q3, B3, self.metric, labels=labels,
                                       compress=False, **metric_params)
        sa, sb = self.universe.stats_a, self.universe.stats_b
        self.sums_a = pilot.stats_a.sum(axis=0)
        self.base = sb[0::3].sum(axis=0)
        self.g_plus = (sb[1::3] - sb[0::3]).sum(axis=0)
        self.g_minus = (sb[2::3] - sb[0::3]).sum(axis=0)
        self.n_pilot = n
        self.share_plus = self.share_minus = 1.0
        self.words_per_item = 2
        del sa
        self._init_path(discordance, default_share=DEFAULT_SOFT_DISCORDANCE)

    # ---------------------------------------------------------------- path
    def _init_path(self, discordance, default_share):
        """The one-parameter path ``s -> (p_plus, p_minus)`` along which the effect grows."""
        if discordance is not None and (
                isinstance(discordance, bool) or not isinstance(discordance, Real)
                or not math.isfinite(discordance) or not 0 < discordance <= 1):
            raise ValueError("The 'discordance' parameter must be a real in (0, 1]. Got "
                             f"{discordance!r} instead.")
        if self.kind == "soft":
            d = float(default_share if discordance is None else discordance)
            self.discordance = d
            self.path = ("share", 0.0, 1.0)   # t: p_up = t d, p_down = (1 - t) d
            return
        e, a = self.share_plus, self.share_minus
        if discordance is None:
            self.discordance = None
            churn = DEFAULT_CHURN * min(a, e) if a > 0 else 0.0
            self.p_minus0 = churn / a if a > 0 else 0.0
            self.path = ("default", 0.0, 2.0 if e > 0 else 1.0)
            return
        d = float(discordance)
        self.discordance = d
        lo = max(0.0, 1.0 - a / d) if d > 0 else 0.0
        hi = min(1.0, e / d)
        if lo > hi:  # pragma: no cover - d <= 1 = a + e guarantees lo <= hi
            raise ValueError("The 'discordance' parameter is not reachable on this pilot.")
        self.path = ("share", lo, hi)

    def probabilities(self, s):
        """``(p_plus, p_minus)`` at path position ``s``."""
        kind = self.path[0]
        if self.kind == "soft":
            return s * self.discordance, (1.0 - s) * self.discordance
        if kind == "default":
            if self.share_plus == 0:
                return 0.0, self.p_minus0 * (1.0 - s)
            if s <= 1.0:
                return s, self.p_minus0
            return 1.0, self.p_minus0 * (2.0 - s)
        d, e, a = self.discordance, self.share_plus, self.share_minus
        p_plus = min(1.0, s * d / e) if e > 0 else 0.0
        p_minus = min(1.0, (1.0 - s) * d / a) if a > 0 else 0.0
        return p_plus, p_minus

    def expected_effect(self, s):
        """Oriented population effect of B at path position ``s`` (aggregate of expected sums)."""
        p_plus, p_minus = self.probabilities(s)
        sums_b = self.base + p_plus * self.g_plus + p_minus * self.g_minus
        with np.errstate(all="ignore"):
            value = float(self.universe.values(sums_b))
        return float(self.universe.orient(value - self.score_a))

    def max_effect(self):
        return self.expected_effect(self.path[2])

    def solve(self, effect):
        """Path position whose expected effect is ``effect`` (bisection; ValueError if unreachable).

        The expected sums are linear in ``s`` and each step of ``s`` moves
        items toward the gold, so the effect is non-decreasing along the
        path; 200 bisection steps reach the float resolution.
        """
        _, lo, hi = self.path
        f_lo, f_hi = self.expected_effect(lo), self.expected_effect(hi)
        scale = max(1.0, abs(self.score_a))
        tol = 1e-12 * scale
        if not (f_lo - tol <= effect <= f_hi + tol) or not math.isfinite(f_hi):
            raise ValueError(
                f"The 'effect' parameter ({effect!r}) is not reachable under the perturbation "
                f"model on this pilot: {self.metric.name} can improve on A's "
                f"{self.score_a:.6g} by at most {f_hi:.6g}"
                + (" with this discordance (raise 'discordance')" if self.discordance
                   is not None and self.kind == "labels" else "")
                + (" with this step (raise 'step' or 'discordance')" if self.kind == "soft"
                   else "")
                + "."
            )
        if effect >= f_hi:
            return hi
        if effect <= f_lo:
            return lo
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if self.expected_effect(mid) < effect:
                lo = mid
            else:
                hi = mid
        # the end whose effect is closer to the target
        return lo if abs(self.expected_effect(lo) - effect) < abs(
            self.expected_effect(hi) - effect) else hi

    def model(self, s):
        p_plus, p_minus = self.probabilities(s)
        if self.kind == "labels":
            disc = p_plus * self.share_plus + p_minus * self.share_minus
            return {"kind": "labels", "discordance": float(disc), "p_fix": float(p_plus),
                    "p_break": float(p_minus),
                    "pilot_error_rate": float(self.share_plus)}
        return {"kind": "soft", "discordance": float(self.discordance),
                "p_up": float(p_plus), "p_down": float(p_minus), "step": self.step}

    # ---------------------------------------------------------------- simulation
    def counts(self, key, n, s, offsets):
        """Row counts of one simulated test set of ``n`` items (counter-based, prefix-stable).

        Item ``i`` uses words ``3i`` (which pilot item), ``3i + 1`` (the
        uniform deciding its change) and ``3i + 2`` (the wrong label of a
        break) of the simulation's SplitMix64 stream, so the first ``n``
        items of a larger test set are the same items, and at a larger
        effect the set of fixed items grows and the set of broken ones
        shrinks (common random numbers).
        """
        p_plus, p_minus = self.probabilities(s)
        words = splitmix64(np.uint64(key) + offsets[: self.words_per_item * n])
        words = words.reshape(n, self.words_per_item)
        item = np.minimum((_uniforms(words[:, 0]) * self.n_pilot).astype(np.int64),
                          self.n_pilot - 1)
        u = _uniforms(words[:, 1])
        R = self.universe.stats_a.shape[0]
        if self.kind == "soft":
            version = np.where(u < p_plus, 1, np.where(u < p_plus + p_minus, 2, 0))
            return np.bincount(3 * item + version, minlength=R)
        cell = self.item_cell[item]
        row = self.stay_row[cell].copy()
        corr = self.cell_correct[cell]
        fixed = ~corr & (u < p_plus)
        row[fixed] = self.fix_row[cell[fixed]]
        broken = corr & (u < p_minus)
        if broken.any():
            v = _uniforms(words[broken, 2])
            pos = np.searchsorted(self.break_keys, cell[broken] + v, side="right")
            row[broken] = self.break_rows[pos]
        return np.bincount(row, minlength=R)

    def paired(self, counts, n):
        """The simulated pair as compressed :class:`~sigtest.PairedData`."""
        nz = np.flatnonzero(counts)
        c = counts[nz].astype(np.float64)
        sa = self.universe.stats_a[nz]
        sb = self.universe.stats_b[nz]
        u = self.universe
        with np.errstate(all="ignore"):
            score_a = float(u.values(c @ sa))
            score_b = float(u.values(c @ sb))
        return replace(u, params=u.resample_params, n_samples=int(n), stats_a=sa, stats_b=sb,
                       counts=c, score_a=score_a, score_b=score_b)
