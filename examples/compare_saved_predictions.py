"""Compare many systems from saved prediction files
================================================

The usual situation after a shared task or a batch of experiments: one file
of gold labels and one file of predictions per system, in the same item
order. This script writes such files (simulated: six systems on a 3-class
sentiment task of 2,000 items) to a temporary folder, reads them back as
arrays with the reader of the command line (``sigtest.cli.read_predictions``:
it refuses a header row it was not told about, and names the file in every
error), and asks :func:`sigtest.compare` which differences are real: every
pair of systems, accuracy and macro-F1 over the fixed class set ``labels``
(so a system that predicts a label the gold lacks does not change the
classes macro-F1 averages over), the paired permutation p-value with the BCa
interval of the difference (Bestgen 2022), Holm's correction. The same from
the shell::

    sigtest compare gold.txt pred_*.txt --labels negative,neutral,positive

Run: ``python examples/compare_saved_predictions.py``
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sigtest import compare
from sigtest.cli import read_predictions
from sigtest.plotting import plot_letters

LABELS = np.array(["negative", "neutral", "positive"])


def write_fake_run(folder, seed=0):
    """Gold labels and six systems' predictions as one-label-per-line text files."""
    rng = np.random.default_rng(seed)
    n = 2000
    gold = rng.choice(LABELS, n, p=[0.3, 0.2, 0.5])
    (folder / "gold.txt").write_text("\n".join(gold) + "\n")
    # each system is right with its own probability, otherwise it drifts to
    # "neutral" (a common failure mode) or to a random label
    for name, acc in [("bert", 0.86), ("roberta", 0.87), ("xlmr", 0.84),
                      ("lstm", 0.78), ("cnn", 0.77), ("bow_lr", 0.70)]:
        wrong = np.where(rng.random(n) < 0.5, "neutral", rng.choice(LABELS, n))
        pred = np.where(rng.random(n) < acc, gold, wrong)
        (folder / f"pred_{name}.txt").write_text("\n".join(pred) + "\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_fake_run(folder)
        gold = read_predictions(folder / "gold.txt")
        predictions = {
            path.stem.removeprefix("pred_"): read_predictions(path)
            for path in sorted(folder.glob("pred_*.txt"))
        }

    result = compare(gold, predictions, metrics=["accuracy", "f1_macro"], labels=LABELS,
                     correction="holm", n_jobs=2, random_state=0)
    print(result)
    print("\nScores:\n", result.system_table().round(4))
    for metric in result.metrics:
        print(f"\nLetters ({metric}):\n", result.letters(metric))
    # the tidy frame is ready for a paper table
    print("\n" + result.to_csv(float_format="%.4f")[:400] + "...")
    plot_letters(result, "f1_macro")  # the systems by score, with their letters
    plt.show()


if __name__ == "__main__":
    main()
