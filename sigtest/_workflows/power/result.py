"""The result of the power functions, and the Monte Carlo interval of a minimum detectable effect.

:class:`PowerResult` is what :func:`sigtest.power`,
:func:`sigtest.minimum_detectable_effect` and :func:`sigtest.sample_size`
return; :func:`mde_interval` reads the interval of a minimum detectable
effect off the evaluated points of its search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sigtest._engine.intervals import ConfidenceInterval
from sigtest._results import TextSummaryMixin, renamed_fields, to_plain

__all__ = ["PowerResult", "mde_interval"]


@renamed_fields(interval_level="confidence_level")
@dataclass(frozen=True)
class PowerResult(TextSummaryMixin):
    r"""Result of :func:`power`, :func:`minimum_detectable_effect` and :func:`sample_size`.

    Parameters
    ----------
    power : float
        Simulated power: the share of the ``n_simulations`` simulated
        comparisons in which the test rejects at ``alpha`` with B better
        than A (for a two-sided test, rejections with B worse are counted in
        ``wrong_sign_rate`` instead).
    power_interval : ConfidenceInterval
        Clopper-Pearson interval of the power at ``confidence_level``: the
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
    confidence_level : float
        Level of ``power_interval`` (and of ``effect_interval``).
    random_state : int
        Integer seed of the simulation (same seed: bit-identical result).
    search : tuple
        ``(value, power)`` pairs evaluated by the search (empty for
        :func:`power`).
    effect_interval : ConfidenceInterval or None
        For :func:`minimum_detectable_effect`: the Monte Carlo interval of
        the minimum detectable effect at ``confidence_level`` (the
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
    confidence_level: float = 0.95
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
        return to_plain(out)

    def __str__(self):
        lo, hi = self.power_interval
        level = f"{100 * self.confidence_level:g}%"
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
