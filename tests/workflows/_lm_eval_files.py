"""lm-evaluation-harness ``--log_samples`` files, written as the harness writes them.

The record of one document and filter is built as in ``lm_eval/evaluator.py``
(``evaluate``: ``doc_id, doc, target, arguments, resps, filtered_resps, filter,
metrics, doc_hash, prompt_hash, target_hash``, then ``example.update(metrics)``,
one key per metric), for every filter in turn (the outer loop), and written
as in ``lm_eval/loggers/evaluation_tracker.py`` (``save_results_samples``:
``arguments`` as ``{"gen_args_i": {"arg_j": ...}}``, ``target`` as ``str``,
``json.dumps(sample, ensure_ascii=False)`` per line, appended to
``<output>/<model, "/" as "__">/samples_<task>_<date>.jsonl`` with
``date = datetime.isoformat()`` and ``:`` as ``-``). Checked against
EleutherAI/lm-evaluation-harness at commit 4e7e0d47f33b.
"""

import hashlib
import json
import re


def _hash(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()  # lm_eval.utils.hash_string


def sanitize_model_name(name):
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)  # lm_eval.utils.sanitize_model_name


def write_samples(out, model, task, date, docs, filters):
    """Write the samples file of one model and task; return its path.

    ``docs``: list of ``(doc_id, doc, target, prompt)``; ``filters``:
    ``{filter: [(response, {metric: value}) per doc]}``.
    """
    folder = out / sanitize_model_name(model)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{date}.jsonl"
    with open(path, "a", encoding="utf-8") as fh:
        for filter_key, per_doc in filters.items():
            for (doc_id, doc, target, prompt), (response, metrics) in zip(docs, per_doc):
                example = {
                    "doc_id": doc_id,
                    "doc": doc,
                    "target": target,
                    "arguments": [(prompt, {"until": ["Question:"], "do_sample": False})],
                    "resps": [[response]],
                    "filtered_resps": [response.split()[-1] if filter_key != "none"
                                       else response],
                    "filter": filter_key,
                    "metrics": list(metrics.keys()),
                    "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)),
                    "prompt_hash": _hash(prompt),
                    "target_hash": _hash(str(target)),
                }
                example.update(metrics)
                arguments = {}  # save_results_samples
                for i, arg in enumerate(example["arguments"]):
                    arguments[f"gen_args_{i}"] = {f"arg_{j}": tmp for j, tmp in enumerate(arg)}
                example["arguments"] = arguments
                example["target"] = str(example["target"])
                fh.write(json.dumps(example, ensure_ascii=False) + "\n")
    return path
