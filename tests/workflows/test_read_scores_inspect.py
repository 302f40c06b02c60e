"""read_scores of inspect_ai logs, from a real inspect_ai evaluation run offline.

Two mock models (``mockllm/<name>`` with custom outputs, so that they differ)
answer two tasks on a small in-memory dataset, 2 epochs each; the logs are
written in a temporary folder, read with inspect_ai's reader (``.eval`` and
``.json``) and without it (``.json``), and every model's mean score is
checked against the accuracy inspect_ai itself reports in the log. inspect_ai
counts tokens with tiktoken, which downloads its encoding on first use: the
mock models get a local counter (``count_text_tokens`` patched), so the run
needs no network.
"""

import json
import math
import shutil
import sys

import numpy as np
import pytest

from sigtest import read_scores
from sigtest._workflows.harness_logs import inspect_value

# inspect_ai's own deprecation notices while it runs (not sigtest's)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
N_QUESTIONS = 6
SKIP = "inspect-ai is not installed (pip install inspect-ai; it is in sigtest's test extra)"


def _answers(every):
    """The mock model's outputs: right unless the question's number is a multiple of
    ``every``, and wrong on every other call for the question 1 (epochs differ)."""
    from inspect_ai.model import ModelOutput

    calls = {}

    def output(input, tools, tool_choice, config):
        n = int(input[-1].text.split()[-1])
        calls[n] = calls.get(n, 0) + 1
        wrong = n % every == 0 or (n == 1 and calls[n] % 2 == 0)
        return ModelOutput.from_content(model="mockllm", content=str(n + 1 if wrong else n))
    return output


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """Folder of .eval logs (2 models x 2 tasks, 2 epochs) and the same logs as .json."""
    pytest.importorskip("inspect_ai", reason=SKIP)
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import get_model
    from inspect_ai.scorer import includes, match
    from inspect_ai.solver import generate

    folder = tmp_path_factory.mktemp("inspect")
    dataset = MemoryDataset([Sample(input=f"Say {i}", target=str(i), id=f"q{i}")
                             for i in range(N_QUESTIONS)])
    tasks = [Task(dataset=dataset, solver=generate(), scorer=match(), name="say", epochs=2),
             Task(dataset=dataset, solver=generate(), scorer=[match(), includes()],
                  name="say_twice", epochs=2)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("inspect_ai.model._model.count_text_tokens", lambda text: len(text.split()))
        models = [get_model("mockllm/small", custom_outputs=_answers(2)),
                  get_model("mockllm/large", custom_outputs=_answers(3))]
        results = eval(tasks, model=models, log_dir=str(folder / "eval"), display="none")
    assert all(r.status == "success" for r in results), [r.error for r in results]
    (folder / "json").mkdir()
    for r in results:
        log = read_eval_log(r.location)
        write_eval_log(log, str(folder / "json" / (log.eval.task_id + ".json")), format="json")
    return folder, results


def _accuracy(results):
    """{(model, task, scorer): accuracy} as inspect_ai reports it in the logs."""
    return {(r.eval.model, r.eval.task, s.name): s.metrics["accuracy"].value
            for r in results for s in r.results.scores}


def _means(table, task):
    return {s: float(v.mean()) for s, v in table.arrays(task)[1].items()}


def test_eval_logs_give_the_accuracy_inspect_reports(logs):
    folder, results = logs
    table = read_scores(folder / "eval", harness="inspect", score="match")
    assert sorted(table.systems) == ["mockllm/large", "mockllm/small"]
    assert sorted(table.datasets) == ["say", "say_twice"]
    accuracy = _accuracy(results)
    for task in table.datasets:
        for model, mean in _means(table, task).items():
            assert math.isclose(mean, accuracy[model, task, "match"], rel_tol=1e-12)
        _, scores, groups = table.arrays(task)
        assert table.items(task).tolist() == sorted([f"q{i}" for i in range(N_QUESTIONS)] * 2)
        assert groups.tolist() == table.items(task).tolist()  # epochs clustered by sample
    assert _means(table, "say")["mockllm/small"] != _means(table, "say")["mockllm/large"]
    assert "2 rows per item → clustered by item" in repr(table)
    with pytest.raises(ValueError, match=r"task 'say'.*has no scorer 'includes'; its scorers "
                                         r"are \['match'\]"):
        read_scores(folder / "eval", score="includes", harness="inspect")
    twice = sorted(map(str, (folder / "eval").glob("*_say-twice_*.eval")))
    assert len(twice) == 2
    includes = read_scores(twice, score="includes")
    assert includes.datasets == ["say_twice"]
    for model, mean in _means(includes, "say_twice").items():
        assert math.isclose(mean, accuracy[model, "say_twice", "includes"], rel_tol=1e-12)


def test_json_logs_read_alike_with_and_without_inspect_reader(logs, monkeypatch):
    folder, _ = logs
    want = read_scores(folder / "eval", harness="inspect", score="match")
    with_reader = read_scores(folder / "json", harness="inspect", score="match")
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # inspect_ai's reader is gone
    without = read_scores(folder / "json", harness="inspect", score="match")
    for table in (with_reader, without):
        assert sorted(table.systems) == sorted(want.systems)
        for task in want.datasets:
            for system in want.systems:
                assert np.array_equal(table.arrays(task)[1][system],
                                      want.arrays(task)[1][system])
            assert np.array_equal(table.items(task), want.items(task))
    with pytest.raises(ImportError, match=r"\.eval\) needs inspect_ai: pip install inspect-ai"):
        read_scores(folder / "eval", harness="inspect", score="match")


def test_several_scorers_must_be_named(logs):
    folder, _ = logs
    with pytest.raises(ValueError, match=r"scorers \['match', 'includes'\]; name one"):
        read_scores(folder / "eval", harness="inspect")
    with pytest.raises(ValueError, match=r"'score' parameter 'accuracy' is none of them"):
        read_scores(folder / "eval", harness="inspect", score="accuracy")
    with pytest.raises(ValueError, match="'filter' parameter applies to harness='lm-eval'"):
        read_scores(folder / "eval", harness="inspect", score="match", filter="none")


def test_harness_detected_from_eval_files(logs):
    folder, _ = logs
    files = sorted((folder / "eval").glob("*.eval"))
    table = read_scores(files, score="match")
    assert sorted(table.datasets) == ["say", "say_twice"]


VALUES = ["C", "I", "P", "N", True, False, 1, 0, 0.25, "yes", "No", "TRUE", "false", "0.5",
          "-3", "1e2"]


def test_values_map_as_inspect_value_to_float():
    pytest.importorskip("inspect_ai", reason=SKIP)
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    for value in VALUES:
        assert inspect_value(value) == to_float(value), value
    for value in ("maybe", "nan", "inf", [1], {"a": 1}):
        assert inspect_value(value) is None  # inspect_ai: 0 with a warning
    assert math.isnan(inspect_value(None))  # no score: missing


def test_json_log_without_inspect_ai(tmp_path, monkeypatch):
    """A .json log as EvalLog serialises it (eval.model, eval.task, samples[].scores)."""
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    for model, values in (("openai/gpt-4o", ["C", "I", "C", "P"]),
                          ("anthropic/claude", ["C", "C", "I", "C"])):
        samples = [{"id": i // 2 + 1, "epoch": i % 2 + 1,
                    "scores": {"choice": {"value": v, "answer": "A"}}}
                   for i, v in enumerate(values)]
        log = {"version": 2, "status": "success", "eval": {"task": "mmlu", "model": model},
               "samples": samples}
        (tmp_path / f"{model.replace('/', '_')}.json").write_text(json.dumps(log))
    table = read_scores(tmp_path, harness="inspect")
    assert table.systems == ["anthropic/claude", "openai/gpt-4o"]
    assert table.arrays("mmlu")[1]["openai/gpt-4o"].tolist() == [1.0, 0.0, 1.0, 0.5]
    assert table.items("mmlu").tolist() == [1, 1, 2, 2]
    bad = json.loads((tmp_path / "openai_gpt-4o.json").read_text())
    bad["samples"][0]["scores"]["choice"]["value"] = "maybe"
    (tmp_path / "openai_gpt-4o.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"gives \['maybe'\] \(samples \[1\]\).*not read "
                                         r"them as 0"):
        read_scores(tmp_path, harness="inspect")
    shutil.copy(tmp_path / "openai_gpt-4o.json", tmp_path / "x.eval")
    with pytest.raises(ImportError, match="needs inspect_ai"):
        read_scores(tmp_path / "x.eval")
