r"""Planning a comparison: power, minimum detectable effect and sample size by simulation.

``sigtest.power`` answers "was (or will) my test set be big enough?" for a
corpus-level metric, from a pilot: the gold labels and the predictions of the
baseline A on some items. It simulates test sets drawn from the pilot and a
candidate B that is better than A by ``effect`` (in the population the pilot
represents), runs the significance test on every simulated pair, and counts
how often the test detects B (Card, Henderson, Khandelwal, Jia, Mahowald &
Jurafsky 2020, "With Little Power Comes Great Responsibility", EMNLP).
:func:`minimum_detectable_effect` and :func:`sample_size` solve the inverse
questions by a monotone search on the same simulation.

The perturbation model (how B is built from A; see the docstring of
:func:`power` and ``docs/planning.md``) keeps A and B as correlated as real
systems are: B agrees with A on most items and differs on a *discordant*
share of them.

Speed: every simulated test set is a vector of counts over a fixed set of
rows (hard labels: cells ``(true, A, B)``; soft outputs: pilot items in one
of three versions), so each simulated pair goes to the test as compressed
:class:`~sigtest.PairedData` (the engine's cell compression) and the test
runs on a few rows whatever the number of items.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np

from sigtest._workflows.compare.plan import _pos_label_params
from sigtest._engine.intervals import ConfidenceInterval, clopper_pearson
from sigtest._engine.paired import check_metric_params, prepare_paired
from sigtest._engine.rng import GOLDEN, check_seed, resample_keys, splitmix64
from sigtest.metrics import Metric, get_metric
from sigtest.metrics._common import union_labels
from sigtest.utils import warn_external
from sigtest.utils._param_validation import lazy, validate_params

__all__ = ["PowerResult", "minimum_detectable_effect", "power", "sample_size"]

#: default number of permutations of the default test (PairedPermutation)
DEFAULT_TEST_RESAMPLES = 1000
#: default discordance of the soft model (share of items whose output B changes)
DEFAULT_SOFT_DISCORDANCE = 1.0
#: default step of the soft model (share of probability mass moved per changed item)
DEFAULT_SOFT_STEP = 0.2
#: background churn of the hard default: B breaks this share of min(acc, 1 - acc) items
DEFAULT_CHURN = 0.25
_TWO53 = 2.0 ** -53


# ----------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PowerResult:
    r"""Result of :func:`power`, :func:`minimum_detectable_effect` and :func:`sample_size`.

    Parameters
    ----------
    power : float
        Simulated power: the share of the ``n_simulations`` simulated
        comparisons in which the test rejects at ``alpha`` with B better
        than A (for a two-sided test, rejections with B worse are counted in
        ``wrong_sign_rate`` instead).
    power_interval : ConfidenceInterval
        Clopper-Pearson interval of the power at ``interval_level``: the
        Monte Carlo uncertainty of the estimate (not of the pilot).
    effect : float
        True improvement of B over A in metric units, oriented (positive: B
        better; for a loss, B's loss is lower by ``effect``). NaN when
        :func:`minimum_detectable_effect` found no reachable effect with the
        target power.
    n_items : int
        Size of each simulated test set. ``-1`` when :func:`sample_size`
        found no size up to its limit.
    alpha : float
        Level of the test.
    n_simulations : int
        Number of simulated comparisons.
    metric : str
        Metric name.
    test : str
        Name of the test (``SignificanceTest.name``).
    alternative : str
        The test's alternative (``"two-sided"`` or ``"greater"``).
    score_a : float
        Pilot score of A (the population value of the simulation).
    score_b : float
        Population score of the simulated B: ``score_a + effect`` (oriented).
    model : dict
        Parameters of the perturbation model (``kind``, ``discordance``,
        ``p_fix``/``p_break`` for hard labels, ``p_up``/``p_down``/``step``
        for soft outputs).
    n_rejected : int
        Number of simulations in which the test detected B better.
    wrong_sign_rate : float
        Share of simulations in which the test rejected with B observed
        worse (type S errors, Gelman & Carlin 2014; 0 for one-sided tests).
    target_power : float or None
        The power asked of :func:`minimum_detectable_effect` or
        :func:`sample_size`; ``None`` for :func:`power`.
    solved_for : {"power", "effect", "n_items"}
        The quantity the call computed.
    interval_level : float
        Level of ``power_interval``.
    random_state : int
        Integer seed of the simulation (same seed: bit-identical result).
    search : tuple
        ``(value, power)`` pairs evaluated by the search (empty for
        :func:`power`).
    effect_interval : ConfidenceInterval or None
        For :func:`minimum_detectable_effect`: the Monte Carlo interval of
        the minimum detectable effect at ``interval_level`` (the
        binomial interval of a quantile, read off ``search``; see
        ``docs/planning.md``; NaN ends when ``effect`` is NaN). ``None``
        for :func:`power` and :func:`sample_size`, whose ``effect`` is given.

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> a = np.where(rng.random(500) < 0.8, y, 1 - y)
    >>> res = sigtest.power(y, a, effect=0.05, n_simulations=200, random_state=0)
    >>> res.solved_for, res.n_items, 0 <= res.power <= 1
    ('power', 500, True)
    """

    power: float
    power_interval: ConfidenceInterval
    effect: float
    n_items: int
    alpha: float
    n_simulations: int
    metric: str
    test: str
    alternative: str
    score_a: float
    score_b: float
    model: dict
    n_rejected: int
    wrong_sign_rate: float
    target_power: float | None = None
    solved_for: str = "power"
    interval_level: float = 0.95
    random_state: int | None = None
    search: tuple = field(default=(), repr=False)
    effect_interval: ConfidenceInterval | None = None

    def to_dict(self):
        """The result as a plain dict (the intervals as ``power_low``/``power_high``...).

        Returns
        -------
        dict
            Every field; ``power_interval`` split into ``power_low`` and
            ``power_high``, ``effect_interval`` into ``effect_low`` and
            ``effect_high`` (``None`` when there is none); ``search`` as a
            list of ``[value, power]``.
        """
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "power_interval":
                out["power_low"], out["power_high"] = float(value.low), float(value.high)
            elif name == "effect_interval":
                out["effect_low"], out["effect_high"] = (
                    (None, None) if value is None else (float(value.low), float(value.high)))
            elif name == "search":
                out["search"] = [list(v) for v in value]
            elif name == "model":
                out["model"] = dict(value)
            else:
                out[name] = value
        return out

    def __str__(self):
        lo, hi = self.power_interval
        level = f"{100 * self.interval_level:g}%"
        head = {
            "power": "Power",
            "effect": "Minimum detectable effect",
            "n_items": "Sample size",
        }[self.solved_for]
        lines = [f"{head} ({self.test}, {self.alternative}, alpha={self.alpha:g}, "
                 f"{self.metric})"]
        if self.solved_for == "effect":
            if math.isnan(self.effect):
                lines.append(f"  no reachable effect is detected with power "
                             f">= {self.target_power:g} on {self.n_items} items")
            else:
                elo, ehi = self.effect_interval
                lines.append(f"  with {self.n_items} items, an improvement of "
                             f"{self.effect:+.4g} is detected with power "
                             f"{self.power:.3f} (target {self.target_power:g}); "
                             "smaller ones are likely to be missed")
                lines.append(f"  minimum detectable effect {self.effect:+.4g} "
                             f"[{elo:+.4g}, {ehi:+.4g}] ({level} Monte Carlo interval, "
                             f"{self.n_simulations} simulations)")
        elif self.solved_for == "n_items":
            if self.n_items < 0:
                lines.append(f"  no test-set size within the search limit reaches power "
                             f"{self.target_power:g} for {self.effect:+.4g}")
            else:
                lines.append(f"  {self.n_items} items detect {self.effect:+.4g} with power "
                             f"{self.power:.3f} (target {self.target_power:g})")
        lines.append(f"  power {self.power:.3f} [{lo:.3f}, {hi:.3f}] ({level} Monte Carlo "
                     f"interval, {self.n_simulations} simulations)")
        lines.append(f"  effect {self.effect:+.4g}: {self.score_a:.4g} -> {self.score_b:.4g} "
                     f"on {self.n_items} items")
        model = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in self.model.items())
        lines.append(f"  model: {model}")
        if self.wrong_sign_rate > 0:
            lines.append(f"  wrong-sign rejections: {self.wrong_sign_rate:.3f}")
        return "\n".join(lines)


def mde_interval(search, target, n_simulations, level=0.95):
    r"""Monte Carlo interval of a minimum detectable effect, from its search.

    With common random numbers, simulation :math:`s` detects B (for a test
    monotone in the discordant counts; nearly so for Monte Carlo tests)
    from an effect :math:`\delta_s` on, so the simulated power at
    :math:`\delta` is the empirical distribution function of the
    :math:`S` independent thresholds :math:`\delta_s`, and the minimum
    detectable effect is their ``target`` quantile. The distribution-free
    interval of a quantile :math:`q` is between two order statistics
    (Conover 1999, sec. 3.2):

    .. math:: [\delta_{(l)}, \delta_{(u)}], \quad
              l = F^{-1}_{S,q}\big(\tfrac{1-c}{2}\big), \;
              u = F^{-1}_{S,q}\big(\tfrac{1+c}{2}\big) + 1,

    with :math:`F^{-1}_{S,q}` the quantile function of Binomial(:math:`S,
    q`): :math:`\delta_{(j)}` is the effect at which the simulated power
    reaches :math:`j / S`. It is read off the evaluated ``(effect, power)``
    points of the search (made non-decreasing) by linear interpolation;
    :math:`0` below the smallest evaluated power, the largest evaluated
    effect above the largest one.

    Parameters
    ----------
    search : sequence of (float, float)
        The evaluated ``(effect, power)`` points.
    target : float
        The target power :math:`q`.
    n_simulations : int
        :math:`S`.
    level : float, default=0.95
        :math:`c`.

    Returns
    -------
    ConfidenceInterval

    References
    ----------
    W. J. Conover (1999). Practical Nonparametric Statistics, 3rd ed.,
    Wiley, sec. 3.2 (confidence interval for a quantile).
    """
    from scipy.stats import binom

    tail = (1.0 - level) / 2.0
    points = sorted(search)
    effects = np.array([0.0] + [e for e, _ in points])
    powers = np.maximum.accumulate(np.array([0.0] + [p for _, p in points]))
    ends = []
    for j in (binom.ppf(tail, n_simulations, target),
              binom.ppf(1.0 - tail, n_simulations, target) + 1):
        share = min(float(j), n_simulations) / n_simulations
        k = int(np.searchsorted(powers, share, side="left"))  # first power >= share
        if k >= len(powers):
            ends.append(float(effects[-1]))
        elif k == 0 or powers[k] == powers[k - 1]:
            ends.append(float(effects[k]))
        else:
            w = (share - powers[k - 1]) / (powers[k] - powers[k - 1])
            ends.append(float(effects[k - 1] + w * (effects[k] - effects[k - 1])))
    return ConfidenceInterval(*ends)


# ----------------------------------------------------------------------------
# the simulator: pilot -> universe rows -> simulated counts -> PairedData
# ----------------------------------------------------------------------------
def _uniforms(words):
    return (words >> np.uint64(11)).astype(np.float64) * _TWO53


class _Simulator:
    """Pilot data, perturbation model and the simulation of compressed pairs.

    Rows of the *universe*: hard labels, one row per (pilot cell ``(t, a)``,
    outcome ``b``) with ``b`` in {``a``, the gold (fix), each wrong label
    (break)}; soft outputs, one row per (pilot item, version) with version
    in {A's output, moved toward the gold, moved away}. Every simulated test
    set is a count vector over these rows. The expected column sums of B are
    linear in the two transition probabilities ``(p_plus, p_minus)``
    (hard: fix and break; soft: up and down).
    """

    def __init__(self, y_true, pred_a, metric, *, labels, discordance, step, metric_params):
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
            self._init_hard(y_true, pred_a, labels, discordance, metric_params)
        elif metric.input_type == "proba":
            self.kind = "soft"
            self._init_soft(y_true, pred_a, labels, discordance, step, metric_params)
        else:
            raise ValueError(
                f"The 'metric' parameter: power supports hard-label and probability "
                f"metrics; {metric.name!r} is a {metric.input_type!r} metric."
            )
        self.score_a = float(self.universe.values(self.sums_a))

    # ---------------------------------------------------------------- hard
    def _init_hard(self, y_true, pred_a, labels, discordance, metric_params):
        # validation (lengths, kinds, labels) through the one input path
        pilot = prepare_paired(y_true, pred_a, pred_a, self.metric, labels=labels,
                               compress=True, **metric_params)
        label_set = np.asarray(pilot.params["labels"])
        yt = np.asarray(y_true).ravel()
        ya = np.asarray(pred_a).ravel()
        K = label_set.shape[0]
        index = {v: i for i, v in enumerate(label_set.tolist())}
        try:
            t_code = np.array([index[v] for v in yt.tolist()], dtype=np.int64)
            a_code = np.array([index[v] for v in ya.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise ValueError(f"The 'labels' parameter misses the label {exc.args[0]!r} of "
                             "y_true or pred_a.") from None
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
    def _init_soft(self, y_true, pred_a, labels, discordance, step, metric_params):
        step = DEFAULT_SOFT_STEP if step is None else step
        if (isinstance(step, bool) or not isinstance(step, Real) or not math.isfinite(step)
                or not 0 < step <= 1):
            raise ValueError(f"The 'step' parameter must be a real in (0, 1]. Got {step!r} "
                             "instead.")
        self.step = float(step)
        pilot = prepare_paired(y_true, pred_a, pred_a, self.metric, labels=labels,
                               compress=False, **metric_params)
        P = np.asarray(y_true, dtype=np.float64)
        Q = np.asarray(pred_a, dtype=np.float64)
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


# ----------------------------------------------------------------------------
# running the simulations
# ----------------------------------------------------------------------------
def _offsets(words):
    return (np.arange(1, words + 1, dtype=np.uint64) * GOLDEN)


def _test_seed(key):
    return int(splitmix64(np.uint64(key) ^ np.uint64(0xD1B54A32D192ED03)) >> np.uint64(32))


def _run_chunk(sim, test, keys, n, s, alpha):
    """``(rejected with B better, rejected with B worse)`` per simulation of ``keys``."""
    offsets = _offsets(sim.words_per_item * n)
    better = np.zeros(len(keys), dtype=bool)
    worse = np.zeros(len(keys), dtype=bool)
    names = test.get_params(deep=False)
    has_n_jobs, has_seed = "n_jobs" in names, "random_state" in names
    if has_n_jobs:
        test.set_params(n_jobs=1)
    with warnings.catch_warnings():
        # degenerate simulated pairs (B = A) give p = 1 with a warning: expected here
        warnings.simplefilter("ignore")
        for i, key in enumerate(keys):
            data = sim.paired(sim.counts(key, n, s, offsets), n)
            if has_seed:
                test.set_params(random_state=_test_seed(key))
            res = test.test_paired(data)
            if res.pvalue <= alpha:
                better[i] = res.statistic > 0
                worse[i] = res.statistic < 0
    return better, worse


def _simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, desc):
    from sigtest.utils._estimator import clone

    n_sims = len(keys)
    workers = _n_workers(n_jobs)
    n_chunks = max(1, min(n_sims, 4 * workers if workers > 1 else 1))
    if verbose:
        n_chunks = max(n_chunks, min(n_sims, 50))
    bounds = np.linspace(0, n_sims, n_chunks + 1).astype(int)
    chunks = [keys[bounds[i]:bounds[i + 1]] for i in range(n_chunks)]
    chunks = [c for c in chunks if len(c)]
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_sims, desc=desc, leave=False)
    try:
        if workers == 1:
            out = []
            for c in chunks:
                out.append(_run_chunk(sim, clone(test), c, n, s, alpha))
                if bar is not None:
                    bar.update(len(c))
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=workers, return_as="generator")
            out = []
            for c, r in zip(chunks, parallel(delayed(_run_chunk)(sim, clone(test), c, n, s,
                                                                 alpha) for c in chunks)):
                out.append(r)
                if bar is not None:
                    bar.update(len(c))
    finally:
        if bar is not None:
            bar.close()
    better = np.concatenate([o[0] for o in out])
    worse = np.concatenate([o[1] for o in out])
    return int(better.sum()), int(worse.sum())


def _n_workers(n_jobs):
    if isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError("The 'n_jobs' parameter must be None, an int >= 1 or <= -1 "
                         f"(joblib's rule). Got {n_jobs!r} instead.")
    if n_jobs is None or n_jobs == 1:
        return 1
    import os

    cpus = os.cpu_count() or 1
    return max(1, min(cpus, n_jobs) if n_jobs > 0 else cpus + 1 + n_jobs)


# ----------------------------------------------------------------------------
# shared argument handling
# ----------------------------------------------------------------------------
_COMMON = {
    "y_true": ["array-like"],
    "pred_a": ["array-like"],
    "metric": [str, Metric],
    "test": [None, str, lazy.HasMethods(["test_paired"])],
    "n_items": [None, lazy.Interval(Integral, 2, None, closed="left")],
    "alpha": [lazy.Interval(Real, 0, 1, closed="neither")],
    "n_simulations": [lazy.Interval(Integral, 1, None, closed="left")],
    "random_state": [None, lazy.Interval(Integral, 0, 2**32 - 1, closed="both"),
                     np.random.SeedSequence, np.random.Generator, np.random.RandomState],
    "discordance": [None, lazy.Interval(Real, 0, 1, closed="right")],
    "step": [None, lazy.Interval(Real, 0, 1, closed="right")],
    "labels": ["array-like", None],
    "n_jobs": [None, Integral],
    "verbose": ["boolean"],
    "interval_level": [lazy.Interval(Real, 0, 1, closed="neither")],
}


def _check_effect(effect):
    if (isinstance(effect, bool) or not isinstance(effect, Real)
            or not math.isfinite(effect) or effect < 0):
        raise ValueError(
            "The 'effect' parameter must be a finite real >= 0: the improvement of B over A "
            f"in metric units (oriented: for a loss, the reduction). Got {effect!r} instead."
        )
    return float(effect)


def _setup(y_true, pred_a, metric, test, n_items, random_state, discordance, step, labels,
           metric_params, caller):
    metric = get_metric(metric)
    check_metric_params(metric, metric_params, caller=caller)
    sim = _Simulator(y_true, pred_a, metric, labels=labels, discordance=discordance,
                     step=step, metric_params=metric_params)
    test = _check_test(test)
    n = sim.n_pilot if n_items is None else int(n_items)
    seed = check_seed(random_state)
    return metric, sim, test, n, seed


def _check_test(test):
    from sigtest.tests_ import PairedPermutation, get_test

    if test is None:
        return PairedPermutation(n_resamples=DEFAULT_TEST_RESAMPLES)
    test = get_test(test)
    alternative = getattr(test, "alternative", "two-sided") or "two-sided"
    if alternative not in ("two-sided", "greater"):
        raise ValueError(
            f"The 'test' parameter has alternative={alternative!r}; power is the probability "
            "of detecting that B is better, which needs alternative='two-sided' or 'greater'."
        )
    return test


def _result(sim, metric, test, n, effect, s, alpha, n_sims, counts, seed, level, *,
            target=None, solved_for="power", search=()):
    better, worse = counts
    effect_interval = None
    if solved_for == "effect":
        effect_interval = (mde_interval(search, target, n_sims, level)
                           if math.isfinite(effect) else ConfidenceInterval(math.nan, math.nan))
    return PowerResult(
        power=better / n_sims,
        power_interval=clopper_pearson(better, n_sims, level),
        effect=effect,
        n_items=int(n),
        alpha=float(alpha),
        n_simulations=int(n_sims),
        metric=metric.name,
        test=type(test).name or type(test).__name__,
        alternative=getattr(test, "alternative", "two-sided") or "two-sided",
        score_a=sim.score_a,
        score_b=(sim.score_a + effect if metric.greater_is_better else sim.score_a - effect)
        if not math.isnan(effect) else math.nan,
        model=sim.model(s) if s is not None else {},
        n_rejected=better,
        wrong_sign_rate=worse / n_sims,
        target_power=target,
        solved_for=solved_for,
        interval_level=float(level),
        random_state=seed,
        search=tuple(search),
        effect_interval=effect_interval,
    )



# ----------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------
@validate_params({**_COMMON, "effect": [Real]}, prefer_skip_nested_validation=True)
def power(y_true, pred_a, *, effect, metric="accuracy", test=None, n_items=None, alpha=0.05,
          n_simulations=1000, random_state=None, discordance=None, step=None, labels=None,
          n_jobs=None, verbose=False, interval_level=0.95, **metric_params):
    r"""Power of a paired test to detect a system better than the pilot's by ``effect``.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Simulates ``n_simulations`` comparisons on test sets of ``n_items`` items
    drawn with replacement from the pilot ``(y_true, pred_a)``, each with a
    candidate B built from A by the perturbation model below so that B's
    population ``metric`` is A's plus ``effect``, runs ``test`` on each pair,
    and returns the share in which it rejects at ``alpha`` with B better
    (Card et al. 2020, Algorithm 1):

    .. math:: \widehat{\text{power}} = \frac{1}{S}\sum_{s=1}^S
              \mathbf 1\big[p_s \le \alpha \text{ and } \hat\delta_s > 0\big]

    with its Clopper-Pearson Monte Carlo interval.

    **Perturbation model, hard labels.** Items where A is wrong: B predicts
    the gold label with probability ``p_fix``, else A's label. Items where
    A is right: B predicts a wrong label with probability ``p_break`` (the
    label drawn from A's own confusions on that gold class), else the gold.
    The *discordance* (share of items on which A and B differ in
    correctness) is :math:`d = p_{fix} e + p_{break}(1 - e)`, with
    :math:`e` A's pilot error rate, and for accuracy the effect is
    :math:`\delta = p_{fix} e - p_{break}(1 - e)`. With ``discordance=None``
    B breaks a background churn of :math:`\tfrac14\min(e, 1-e)` of the items
    and fixes as many of A's errors as the effect needs (so for accuracy
    :math:`d = \delta + \tfrac12\min(e, 1-e)`; once every error is fixed,
    the churn shrinks); with ``discordance=d`` the share of fixes among the
    discordant items is what moves. For accuracy B's expected score is A's
    plus ``effect`` exactly; for other metrics (F1, precision, ...) the
    position along the model's one-parameter path is found by bisection on
    the metric of the expected statistics over the pilot (the population
    value of B), which the model moves monotonically.

    **Perturbation model, soft outputs** (probability metrics). A share
    ``discordance`` (default 1: every item) of the items changes: each
    moves toward the gold, :math:`B = (1-\lambda)Q + \lambda P`, with
    probability :math:`p_{up} = t\,d`, or away from it, :math:`B =
    (1-\lambda)Q + \lambda e_w` (:math:`w` A's most probable wrong class),
    with probability :math:`p_{down} = (1 - t)\,d`; :math:`\lambda` is
    ``step`` (default 0.2) and :math:`t` is found by bisection as above.

    Each simulated test set is a vector of counts over the model's rows
    (cells), tested as compressed :class:`~sigtest.PairedData`. Simulation
    ``s`` draws from its own counter-based stream (keys from
    ``SeedSequence(random_state)``), so the result is bit-identical for any
    ``n_jobs``, and the same ``random_state`` gives common random numbers
    across effects and sizes (used by :func:`minimum_detectable_effect` and
    :func:`sample_size`).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        Pilot gold labels (or true distributions for probability metrics).
    pred_a : array-like
        Pilot predictions of the baseline A (labels or probabilities).
    effect : float
        True improvement of B over A in metric units, ``>= 0`` (for a loss,
        the reduction of the loss).
    metric : str or Metric, default="accuracy"
        A registered hard-label or probability metric with statistics.
    test : None, str or SignificanceTest, default=None
        The test to run on every simulated pair; ``None``:
        ``PairedPermutation(n_resamples=1000)`` (two-sided). Its
        ``alternative`` must be ``"two-sided"`` or ``"greater"``.
    n_items : int, default=None
        Size of each simulated test set (``>= 2``); ``None``: the pilot's size.
    alpha : float, default=0.05
        Level of the test.
    n_simulations : int, default=1000
        Number of simulated comparisons.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the simulation.
    discordance : float in (0, 1], default=None
        Share of items on which A and B differ (hard: in correctness; soft:
        items whose output changes). ``None``: the defaults above.
    step : float in (0, 1], default=None
        Soft outputs only: the share of probability mass moved (``None``: 0.2).
    labels : array-like, default=None
        Label set of hard-label metrics (default: the pilot's labels).
    n_jobs : int, default=None
        Worker processes (joblib) for the simulations; results do not depend on it.
    verbose : bool, default=False
        Show a progress bar (tqdm).
    interval_level : float, default=0.95
        Level of the Monte Carlo interval of the power.
    **metric_params
        Passed to the metric (e.g. ``zero_division=0.0``, ``pos_label=1``).

    Returns
    -------
    PowerResult
        ``power``, ``power_interval``, ``effect``, ``n_items``, ``model``, ...

    Raises
    ------
    ValueError
        ``effect`` negative or not reachable under the model (e.g. accuracy
        + effect > 1), ``n_items < 2``, ``alpha`` outside (0, 1), a test with
        ``alternative="less"``, a metric without statistics; the message
        names the parameter.
    TypeError
        An unknown keyword (neither a parameter nor a metric keyword).

    See Also
    --------
    minimum_detectable_effect : Smallest effect detected with a given power.
    sample_size : Smallest test set giving a given power.

    Notes
    -----
    The simulation treats the pilot as the population: its items are
    resampled, so the power is that of a test set like the pilot's. A
    two-sided test's rejections with B observed worse are not power; their
    share is ``wrong_sign_rate``. At ``effect=0`` the power is the test's
    rejection rate with B better: its size for ``alternative="greater"``,
    half of it for a two-sided test.

    References
    ----------
    D. Card, P. Henderson, U. Khandelwal, R. Jia, K. Mahowald, D. Jurafsky
    (2020). With Little Power Comes Great Responsibility. EMNLP.
    A. Gelman, J. Carlin (2014). Beyond power calculations: assessing type S
    (sign) and type M (magnitude) errors. Perspectives on Psychological
    Science 9(6).
    C. J. Clopper, E. S. Pearson (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4).

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 1000)
    >>> a = np.where(rng.random(1000) < 0.8, y, (y + 1) % 3)
    >>> res = sigtest.power(y, a, effect=0.03, n_simulations=200, random_state=0)
    >>> round(res.model["p_fix"], 3) > 0, bool(0.3 < res.power < 1)
    (True, True)
    """
    effect = _check_effect(effect)
    metric, sim, test, n, seed = _setup(y_true, pred_a, metric, test, n_items, random_state,
                                        discordance, step, labels, metric_params, "power")
    s = sim.solve(effect)
    keys = resample_keys(seed, n_simulations)
    counts = _simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, "power")
    return _result(sim, metric, test, n, effect, s, alpha, n_simulations, counts, seed,
                   interval_level)


# the parameters minimum_detectable_effect and sample_size share, documented once
_SEARCH_PARAMETERS = """\
    alpha : float, default=0.05
        Level of the test.
    n_simulations : int, default=1000
        Simulations per evaluated point of the search.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed, shared by every evaluation (common random numbers).
    discordance : float in (0, 1], default=None
        As in :func:`power`.
    step : float in (0, 1], default=None
        As in :func:`power` (soft outputs only).
    labels : array-like, default=None
        As in :func:`power`.
    n_jobs : int, default=None
        As in :func:`power`.
    verbose : bool, default=False
        Progress bars (tqdm), one per evaluation.
    interval_level : float, default=0.95
        Level of the Monte Carlo interval of the power.
"""


def _search_doc(func):
    """Put the shared parameter descriptions into ``func``'s docstring."""
    func.__doc__ = func.__doc__.replace("    {search_parameters}\n", _SEARCH_PARAMETERS)
    return func


def _check_target(power_):
    if (isinstance(power_, bool) or not isinstance(power_, Real)
            or not math.isfinite(power_) or not 0 < power_ < 1):
        raise ValueError(f"The 'power' parameter must be a real in (0, 1). Got {power_!r} "
                         "instead.")
    return float(power_)


@validate_params({**_COMMON, "power": [Real], "tol": [None, lazy.Interval(Real, 0, None,
                                                                          closed="neither")]},
                 prefer_skip_nested_validation=True)
@_search_doc
def minimum_detectable_effect(y_true, pred_a, *, power=0.8, metric="accuracy", test=None,
                              n_items=None, alpha=0.05, n_simulations=1000, random_state=None,
                              discordance=None, step=None, labels=None, n_jobs=None,
                              verbose=False, interval_level=0.95, tol=None, **metric_params):
    r"""Smallest improvement over the pilot system that ``test`` detects with the given power.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Bisection on the effect :math:`\delta \in [0, \delta_{max}]`
    (:math:`\delta_{max}`: the largest effect the perturbation model of
    :func:`power` reaches on the pilot) for the smallest :math:`\delta`
    with simulated power :math:`\ge` ``power``. Every evaluation uses the
    same ``random_state``, hence the same simulated test sets and test
    seeds (common random numbers): as :math:`\delta` grows the items B
    fixes form a growing set and those it breaks a shrinking one, so the
    simulated power is non-decreasing in :math:`\delta` for tests whose
    decision is monotone in the discordant counts (McNemar, the exact
    permutation test on accuracy), and nearly so for Monte Carlo tests.

    Parameters
    ----------
    y_true, pred_a : array-like
        The pilot (see :func:`power`).
    power : float, default=0.8
        Target power, in (0, 1).
    metric : str or Metric, default="accuracy"
        As in :func:`power`.
    test : None, str or SignificanceTest, default=None
        As in :func:`power` (``None``: ``PairedPermutation(n_resamples=1000)``).
    n_items : int, default=None
        Size of the simulated test sets (``None``: the pilot's size).
    {search_parameters}
    tol : float, default=None
        Stop when the bracket of the effect is narrower than ``tol``;
        ``None``: :math:`\delta_{max} / 256` (8 bisection steps; finer
        steps are below the Monte Carlo resolution of the power unless
        ``n_simulations`` is large).
    **metric_params
        Passed to the metric.

    Returns
    -------
    PowerResult
        ``effect`` (the minimum detectable effect; NaN with a warning when
        even :math:`\delta_{max}` has less power), ``power`` (simulated at
        that effect), ``search`` (the evaluated ``(effect, power)``).

    Raises
    ------
    ValueError
        ``power`` outside (0, 1) and the errors of :func:`power`.

    Warns
    -----
    UserWarning
        When no reachable effect has the target power.

    See Also
    --------
    power : Power of a test against a given effect.
    sample_size : Smallest test set giving a given power.

    References
    ----------
    D. Card et al. (2020). With Little Power Comes Great Responsibility. EMNLP.

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.8, y, 1 - y)
    >>> res = sigtest.minimum_detectable_effect(y, a, n_simulations=60, random_state=0)
    >>> bool(0.01 < res.effect < 0.2), res.power >= 0.8
    (True, True)
    """
    target = _check_target(power)
    metric, sim, test, n, seed = _setup(y_true, pred_a, metric, test, n_items, random_state,
                                        discordance, step, labels, metric_params,
                                        "minimum_detectable_effect")
    keys = resample_keys(seed, n_simulations)
    hi = sim.max_effect()
    tol = hi / 256 if tol is None else float(tol)
    search = []
    cache = {}

    def evaluate(effect):
        s = sim.solve(effect)
        counts = _simulate(sim, test, keys, n, s, alpha, n_jobs, verbose,
                           f"effect {effect:.4g}")
        cache[effect] = (s, counts)
        search.append((float(effect), counts[0] / n_simulations))
        return counts[0] / n_simulations

    if hi <= 0 or evaluate(hi) < target:
        warn_external(
            f"minimum_detectable_effect: even the largest effect the model reaches on this "
            f"pilot ({hi:.4g}) is detected with power below {target:g} on {n} items; "
            "effect is NaN (use more items or a larger discordance).", UserWarning)
        s, counts = cache.get(hi, (None, (0, 0)))
        return _result(sim, metric, test, n, math.nan, s, alpha, n_simulations, counts,
                       seed, interval_level, target=target, solved_for="effect",
                       search=search)
    lo = 0.0
    # at effect 0 the power is the test's size (about alpha / 2 or alpha):
    # evaluated only when the target is that low
    if target <= 2 * alpha and evaluate(lo) >= target:
        hi = lo
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if evaluate(mid) >= target:
            hi = mid
        else:
            lo = mid
    s, counts = cache[hi]
    return _result(sim, metric, test, n, float(hi), s, alpha, n_simulations, counts, seed,
                   interval_level, target=target, solved_for="effect", search=search)


@validate_params({**_COMMON, "effect": [Real], "power": [Real],
                  "max_n_items": [None, lazy.Interval(Integral, 2, None, closed="left")]},
                 prefer_skip_nested_validation=True)
@_search_doc
def sample_size(y_true, pred_a, *, effect, power=0.8, metric="accuracy", test=None,
                alpha=0.05, n_simulations=1000, random_state=None, discordance=None,
                step=None, labels=None, n_jobs=None, verbose=False, interval_level=0.95,
                max_n_items=None, **metric_params):
    r"""Smallest test set on which ``test`` detects an improvement of ``effect`` with the given power.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Search over the number of items :math:`n`: doubling from the pilot's
    size (or halving towards 2) to bracket the answer, then bisection on
    integers until the bracket is within 1 % (or one item). Every
    evaluation uses the same ``random_state``: simulated test set ``s`` of
    size :math:`n` is the first :math:`n` items of one stream (common
    random numbers), so a larger test set adds items to a smaller one and
    the simulated power is nearly monotone in :math:`n` (exactly only up to
    the sawtooth of discrete tests).

    Parameters
    ----------
    y_true, pred_a : array-like
        The pilot (see :func:`power`).
    effect : float
        The improvement to detect (metric units, ``>= 0``).
    power : float, default=0.8
        Target power, in (0, 1).
    metric : str or Metric, default="accuracy"
        As in :func:`power`.
    test : None, str or SignificanceTest, default=None
        As in :func:`power` (``None``: ``PairedPermutation(n_resamples=1000)``).
    {search_parameters}
    max_n_items : int, default=None
        Largest size tried; ``None``: 100 times the pilot's size.
    **metric_params
        Passed to the metric.

    Returns
    -------
    PowerResult
        ``n_items`` (the sample size; ``-1`` with a warning when
        ``max_n_items`` has less power), ``power`` at that size, ``search``.

    Raises
    ------
    ValueError
        ``power`` outside (0, 1) and the errors of :func:`power`.

    Warns
    -----
    UserWarning
        When ``max_n_items`` items do not reach the target power.

    See Also
    --------
    power : Power of a test against a given effect.
    minimum_detectable_effect : Smallest effect detected with a given power.

    References
    ----------
    D. Card et al. (2020). With Little Power Comes Great Responsibility. EMNLP.

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> res = sigtest.sample_size(y, a, effect=0.05, n_simulations=60, random_state=0)
    >>> bool(300 < res.n_items < 5000), res.power >= 0.8
    (True, True)
    """
    effect = _check_effect(effect)
    target = _check_target(power)
    metric, sim, test, n0, seed = _setup(y_true, pred_a, metric, test, None, random_state,
                                         discordance, step, labels, metric_params,
                                         "sample_size")
    s = sim.solve(effect)
    keys = resample_keys(seed, n_simulations)
    limit = 100 * sim.n_pilot if max_n_items is None else int(max_n_items)
    search = []
    cache = {}

    def evaluate(n):
        counts = _simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, f"n={n}")
        cache[n] = counts
        search.append((int(n), counts[0] / n_simulations))
        return counts[0] / n_simulations

    n = max(2, min(n0, limit))
    if evaluate(n) >= target:
        hi = n
        lo = 1
        while hi > 2:
            cand = max(2, hi // 2)
            if evaluate(cand) >= target:
                hi = cand
                if cand == 2:
                    break
            else:
                lo = cand
                break
    else:
        lo = n
        hi = None
        while lo < limit:
            cand = min(limit, 2 * lo)
            if evaluate(cand) >= target:
                hi = cand
                break
            lo = cand
        if hi is None:
            warn_external(
                f"sample_size: {limit} items (max_n_items) detect {effect:+.4g} with power "
                f"below {target:g}; n_items is -1.", UserWarning)
            return _result(sim, metric, test, -1, effect, s, alpha, n_simulations,
                           cache[lo], seed, interval_level, target=target,
                           solved_for="n_items", search=search)
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        if evaluate(mid) >= target:
            hi = mid
        else:
            lo = mid
    return _result(sim, metric, test, hi, effect, s, alpha, n_simulations, cache[hi], seed,
                   interval_level, target=target, solved_for="n_items", search=search)


# ----------------------------------------------------------------------------
# ComparisonResult.minimum_detectable_effects
# ----------------------------------------------------------------------------
def comparison_mde_table(frame, inputs, *, alpha, n_runs, n_groups, power=0.8, test=None,
                         n_simulations=1000, random_state=None, discordance=None, step=None,
                         n_jobs=None, verbose=False, tol=None):
    """The minimum detectable effect of every non-significant row of a comparison.

    One :func:`minimum_detectable_effect` per distinct (baseline ``system_a``,
    metric) among the non-significant rows, with the system's predictions as
    the pilot on the comparison's items; its seed comes from
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
    options = inputs["options"]
    if options.get("sample_weight") is not None:
        raise ValueError("minimum_detectable_effects does not support sample_weight.")
    target = _check_target(power)
    alpha = float(alpha)
    base_seed = check_seed(random_state)
    targets, runs, classes = inputs["targets"], inputs["runs"], inputs["classes"]
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
            if options.get("labels") is not None and metric.input_type == "labels":
                kw["labels"] = options["labels"]
            if metric.input_type == "labels":  # compare's pos_label, or its default 1
                given = options.get("pos_label")
                kw.update(_pos_label_params(
                    metric, {} if given is None else {"pos_label": given},
                    union_labels(y, pred, options.get("labels"))))
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
