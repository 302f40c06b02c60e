"""Three views of one comparison: forest plot, p-value heatmap, letters
====================================================================

Five systems on a 3-class task of 1,500 items, compared pairwise on macro-F1
with the paired permutation p-value, the BCa interval of each difference and
Holm's correction (:func:`sigtest.compare`'s default). Each figure is saved
with a plain ``fig.savefig(path)``: the figures use constrained layout, so
long system names stay inside the image.

* :func:`sigtest.plotting.plot_comparison` - every pair's difference and
  interval, significant pairs (after correction) in colour;
* :func:`sigtest.plotting.plot_pvalue_heatmap` - the adjusted p-values of all
  pairs in significance levels, as scikit-posthocs' sign plot;
* :func:`sigtest.plotting.plot_letters` - the systems by score with their
  compact letter display (same letter: no significant difference).

Run: ``python examples/plot_comparison_views.py``
"""

import tempfile
from pathlib import Path

import numpy as np

from sigtest import compare
from sigtest.plotting import plot_comparison, plot_letters, plot_pvalue_heatmap

rng = np.random.default_rng(0)
n = 1500
y = rng.integers(0, 3, n)
skill = {"bow_logistic_regression": 0.70, "bilstm_crf_glove": 0.76, "cnn": 0.765,
         "roberta_base_finetuned": 0.83, "roberta_large_finetuned": 0.845}
predictions = {name: np.where(rng.random(n) < q, y, rng.integers(0, 3, n))
               for name, q in skill.items()}
result = compare(y, predictions, metrics="f1_macro", random_state=0)
print(result)

out = Path(tempfile.mkdtemp())
ax = plot_comparison(result)
ax.figure.savefig(out / "forest.png")

# %%
# The adjusted p-values behind the colours of the forest plot:
ax = plot_pvalue_heatmap(result)
ax.figure.savefig(out / "heatmap.png")

# %%
# And the summary a table in a paper usually carries:
ax = plot_letters(result)
ax.figure.savefig(out / "letters.png")
print(result.letters())
print("saved:", ", ".join(sorted(p.name for p in out.iterdir())))
