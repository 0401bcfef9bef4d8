"""python -m booktools.show_attention: the command-line explorer of all-MiniLM-L6-v2."""

import subprocess
import sys

import numpy as np
import pytest

from booktools import show_attention
from selfattention import minilm

ANIMAL_TIRED = "The animal didn't cross the street because it was too tired."
ANIMAL_WIDE = "The animal didn't cross the street because it was too wide."


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_cli_prints_top_tokens_and_writes_png(tmp_path, capsys):
    out = tmp_path / "sub" / "heat.png"
    assert show_attention.main([ANIMAL_WIDE, "--layer", "4", "--head", "0", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("layer 4, head 0: 16 tokens")
    it_line = next(line for line in text.splitlines() if line.split()[1:2] == ["it"])
    assert "street" in it_line.split("->")[1]
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_cli_mean_head_temperature_and_skip_special(tmp_path, capsys):
    out = tmp_path / "mean.png"
    args = [
        ANIMAL_TIRED,
        "--layer",
        "2",
        "--head",
        "mean",
        "--top",
        "2",
        "--skip-special",
        "--temperature",
        "2",
        "--out",
        str(out),
    ]
    assert show_attention.main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("layer 2, mean of 12 heads, temperature 2: 16 tokens")
    rows = text.splitlines()[1:17]
    assert all(row.split("->")[1].count(",") == 1 for row in rows)
    assert "[CLS]" not in "".join(row.split("->")[1] for row in rows)
    assert out.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--layer", "6"], "--layer must be in 0..5"),
        (["--head", "12"], "--head must be in 0..11"),
        (["--head", "max"], "head must be a number or 'mean'"),
        (["--temperature", "0"], "--temperature must be a positive number"),
    ],
)
def test_cli_rejects_bad_arguments(extra, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        show_attention.main(["A sentence.", "--out", str(tmp_path / "x.png"), *extra])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_cli_runs_as_a_module(tmp_path):
    out = tmp_path / "attention.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "booktools.show_attention",
            "The bank of the river.",
            "--layer",
            "1",
            "--head",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "layer 1, head 3: 8 tokens" in result.stdout
    assert out.read_bytes()[:8] == PNG_MAGIC


def test_cli_helpers():
    with pytest.raises(ValueError, match=r"weights must have shape \(L, L\)"):
        show_attention.top_attended(np.eye(3), ["a", "b"])
    with pytest.raises(ValueError, match="k must be a positive integer"):
        show_attention.top_attended(np.eye(2), ["a", "b"], k=0)
    with pytest.raises(ValueError, match="one entry per token"):
        show_attention.format_top(["a", "b"], [[("a", 1.0)]])


def test_cli_weights_are_the_model_attentions_at_temperature_1():
    from booktools.head_weights import head_weights

    enc = minilm.encode(ANIMAL_WIDE)
    np.testing.assert_allclose(head_weights(enc.scores, 4, 0), enc.attentions[4, 0], atol=1e-6)


def test_cli_heatmap_records_its_smallest_text_and_fits_a_phone(tmp_path):
    from PIL import Image

    from booktools.figures.base import SMALLEST_TEXT_KEY
    from booktools.style import PHONE_COLUMN_PX

    out = tmp_path / "heat.png"
    assert show_attention.main([ANIMAL_WIDE, "--out", str(out)]) == 0
    with Image.open(out) as im:
        px = float(im.text[SMALLEST_TEXT_KEY])
        assert px * min(1, PHONE_COLUMN_PX / im.width) >= 11
