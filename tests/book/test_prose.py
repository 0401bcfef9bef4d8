"""The prose states no number by hand: numbers are glued, bounds are rounded the safe way.

Rule 1 of the project: a number that comes out of a computation is glued into
the prose at build time. These tests keep it true:

- no number is typed into the prose of ``book/*.md`` (figure captions and alt
  text included), outside code, math, labels and the short allow-list below;
- after "at most", "over", "about" and their kin, a glued number comes from
  ``booktools.bounds`` (a preformatted string, so no format spec);
- every glued key is used in the prose, and no key is glued twice.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from tests.book.pages import BOOK, source_pages
from tests.book.prose import NUMBER, prose_lines

# Numbers that may stand in prose, each with why. A number is allowed when it
# lies inside a match of one of these patterns on its prose line.
ALLOW: list[tuple[str, str]] = [
    (r"\b(?:adds?|add) up to 1\b|\bsums? to 1\b", "the defining property of a row of softmax weights"),
    (r"\bweight (?:is |of )?exactly 0\b|\bexactly 0\b", "a blocked score's weight: the definition of a mask"),
    (r"\bweights? to 0\b", "a mask's definition, as above"),
    (r"^#+ Step \d\b", "section names: the three steps of the chapter"),
    (r"\bCC BY 4\.0\b", "the name of a licence"),
    (r"\b\d+-bit\b", "the name of a number format (16-bit, 32-bit floats)"),
    (r"\b(?:heads|layers|tokens) from 0\b|\bcounting \[CLS\] as 0\b", "how the book numbers layers, heads and tokens"),
    (r"car becomes \[5, 5\]|\[5, 5\]", "the input of a lab preset, named by its button"),
    (r"FlashAttention-2", "the name of a method (a cited paper)"),
    (r"\bGPT-2\b|\bLlama 2\b", "the names of two models (cited papers)"),
    (r"\blayers? [01]\b|\bhead [01]\.[01]\b|\b[01]\.(?=\{glue:text\})",
     "the names of the copying model's two layers and of its heads, l.a (two-heads-that-copy)"),
    (r"\blog 16\b", "the uniform guess over the copying task's 16 symbols, named as a formula; its value is glued"),
    (r"\bposition 0\b", "positions count from 0: the first position's name"),
]
_ALLOW = [re.compile(p) for p, _ in ALLOW]

# Words after which a number is a bound or an approximation (see booktools.bounds).
BOUND_WORDS = (r"at most|no more than|more than|less than|fewer than|at least|over|under|below|above|within|"
               r"up to|about|nearly|almost|roughly|around")
BOUND_ROLE = re.compile(r"\b(" + BOUND_WORDS + r")\s+(?:±\s*|\[\s*)?\{glue(?::text)?\}`([^`]+)`", re.I)
GLUE_USE = re.compile(r"\{glue(?::\w*)?\}`([^`:]+)(?::[^`]*)?`|\{glue:figure\}\s+(\S+)")


def typed_numbers(path: Path) -> list[str]:
    """Each number typed into the prose of a page, outside the allow-list, as 'line: number: text'."""
    found = []
    for pl in prose_lines(path):
        allowed = [m.span() for p in _ALLOW for m in p.finditer(pl.text)]
        for m in NUMBER.finditer(pl.text):
            if not any(a <= m.start() and m.end() <= b for a, b in allowed):
                found.append(f"{path.name}:{pl.lineno}: {m.group(0)!r} in {pl.raw.strip()[:100]!r}")
    return found


def prose_text(path: Path) -> str:
    """The raw prose of a page, roles kept, as one string (a role may follow a line break)."""
    return " ".join(pl.raw.strip() for pl in prose_lines(path))


@pytest.mark.parametrize("path", source_pages(), ids=lambda p: p.name)
def test_no_number_is_typed_into_prose(path):
    found = typed_numbers(path)
    assert found == [], ("numbers typed into prose: glue them from a cell (booktools.gluing, "
                         "booktools.bounds), or add a reasoned pattern to ALLOW:\n" + "\n".join(found))


def test_the_scanner_sees_prose_captions_and_alt_text_but_not_code(tmp_path):
    page = tmp_path / "demo.md"
    page.write_text(
        "---\nkernelspec:\n  name: python3\n---\n\n(ch-demo)=\n# Demo\n\n"
        "The weight is 0.768 here, and {glue:text}`w:.3f` there; $x = 2.5$ and `f(3)`.\n\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: A figure of 16 tokens.\n"
        "  image:\n    alt: Three 16 by 16 grids.\n---\nplot(16, 0.5)\n```\n\n"
        ":::{dropdown} Go deeper: 3 ways\n:icon: light-bulb\n\nEvery row adds up to 1.\n:::\n",
        encoding="utf-8")
    numbers = [line.split(": ")[1].split(" in ")[0] for line in typed_numbers(page)]
    assert numbers == ["'0.768'", "'16'", "'16'", "'16'", "'3'"]


@pytest.mark.parametrize("path", source_pages(), ids=lambda p: p.name)
def test_numbers_after_bound_words_come_from_booktools_bounds(path):
    # An integer format (":d", ":,d") shows a whole number exactly; any other format rounds.
    wrong = [f"{m.group(1)} {{glue:text}}`{m.group(2)}`" for m in BOUND_ROLE.finditer(prose_text(path))
             if ":" in m.group(2) and not m.group(2).endswith("d")]
    assert wrong == [], (f"{path.name}: a number after a bound word is formatted in the role; glue it "
                         "with booktools.bounds.glue_bound instead (rounded up after 'at most', down "
                         "after 'over'):\n" + "\n".join(wrong))


# --- Glued keys, read from the notebooks that the build executed -------------------------------
# myst-nb moves glue outputs out of the notebooks it writes, so they are read from the
# execution cache, matched to each page's current code cells.

@functools.cache
def executed(built_book: Path) -> dict[str, list[tuple[str, str]]]:
    """For each notebook page, (key, value as text/plain) of every glue call, in order."""
    import runpy

    from jupyter_cache import get_cache
    from myst_nb.core.read import read_myst_markdown_notebook

    root = Path(__file__).resolve().parents[2]
    cache = get_cache(runpy.run_path(str(root / "conf.py"))["nb_execution_cache_path"])
    out = {}
    for page in source_pages():
        text = page.read_text(encoding="utf-8")
        if "kernelspec:" not in text[:600]:
            continue
        nb = read_myst_markdown_notebook(text)
        if re.search(r"^\s*execution_mode:\s*force", text[:text.index("\n---", 3)], re.M):
            # A page that runs on every build is not cached: run it here (it must be quick).
            from nbclient import NotebookClient

            NotebookClient(nb, timeout=120, kernel_name="python3",
                           resources={"metadata": {"path": str(BOOK)}}).execute()
        else:
            nb = cache.get_cache_bundle(cache.match_cache_notebook(nb).pk).nb   # KeyError: not executed
        glued = []
        for cell in nb.cells:
            for o in cell.get("outputs", []):
                name = o.get("metadata", {}).get("scrapbook", {}).get("name")
                if name:
                    data = o.get("data", {})
                    value = next((v for k, v in data.items() if k.endswith("text/plain")), "")
                    glued.append((name, "".join(value) if isinstance(value, list) else value))
        out[page.stem] = glued
    return out


@pytest.mark.book
def test_every_glued_key_is_used_in_the_prose(built_book):
    notebooks = executed(built_book)
    assert sum(len(g) for g in notebooks.values()) > 100, "no glued keys found: is the cache read?"
    unused = []
    for page in source_pages():
        if page.stem not in notebooks:
            continue
        used = {a or b for a, b in GLUE_USE.findall(page.read_text(encoding="utf-8"))}
        unused += [f"{page.name}: {key}" for key, _ in notebooks[page.stem] if key not in used]
    assert unused == [], "glued but never used in the prose:\n" + "\n".join(sorted(set(unused)))


@pytest.mark.book
def test_no_key_is_glued_twice(built_book):
    twice = []
    for stem, glued in executed(built_book).items():
        values: dict[str, set[str]] = {}
        counts: dict[str, int] = {}
        for key, value in glued:
            values.setdefault(key, set()).add(value)
            counts[key] = counts.get(key, 0) + 1
        twice += [f"{stem}: {key} glued {counts[key]} times ({sorted(values[key])})"
                  for key in counts if counts[key] > 1]
    assert twice == [], "a key glued twice may mean two things:\n" + "\n".join(twice)


@pytest.mark.book
def test_bounds_in_prose_are_glued_as_text_by_booktools_bounds(built_book):
    notebooks = executed(built_book)
    not_text = []
    for page in source_pages():
        if page.stem not in notebooks:
            continue
        values = dict(notebooks[page.stem])
        for m in BOUND_ROLE.finditer(prose_text(page)):
            key, _, spec = m.group(2).partition(":")
            if spec.endswith("d"):
                continue  # a whole number, shown exactly
            # bounds.glue_bound glues a str: its text/plain is a quoted number such as '1.5e-04'
            if not re.fullmatch(r"'[-\d.,e+]+'", values.get(key, "")):
                not_text.append(f"{page.name}: {m.group(1)} {key} = {values.get(key)!r}")
    assert not_text == [], "glue these with booktools.bounds.glue_bound:\n" + "\n".join(not_text)


# Sentences the reviews found wrong, retired in the second edition: (page, pattern, why).
RETIRED = [
    ("queries-keys-values.md", r"looked at dog exactly\s+as much as dog looked at cat",
     "A4-1: symmetric scores, not symmetric weights"),
    ("queries-keys-values.md", r"without\s+being looked at as much", "A4-1"),
    ("queries-keys-values.md", r"once \$W_Q\$ and \$W_K\$ differ", "A4-8: the condition is W_Q W_K^T"),
    ("queries-keys-values.md", r"bug hides until the matrices differ", "A4-8"),
    ("queries-keys-values.md", r"query's size|word's size", "A3-1: d_k is a length, not a size"),
    ("words-are-islands.md", r"In the last round the word that decides", "A1-1: it holds in every round"),
    ("words-are-islands.md", r"a reader that only looks back could not decide", "A1-2: chapter 8"),
    ("words-are-islands.md", r"does not resolve \"it\" in general", "A1-7: weights are not a readout"),
    ("why-not-left-to-right.md", r"digits fit in it\. But", "A2-1: about half the strings come out wrong"),
    ("why-not-left-to-right.md", r"weight that does not depend on distance", "A2-2"),
    ("why-not-left-to-right.md", r"would not change the\s+weights either", "A2-3: shuffling reorders them"),
    ("why-divide-by-sqrt-dk.md", r"the model gets almost no signal", "R2-1: that is the gradient to the scores"),
    ("why-divide-by-sqrt-dk.md", r"small, not zero: learning slows down", "R2-1: the query's gradient grows"),
    ("why-divide-by-sqrt-dk.md", r"cat keeps \{fmt\(w_low\[0\], 3\)\}", "R2-2: it prints 1.000"),
    ("why-divide-by-sqrt-dk.md", r"because the weights are drawn at random at that scale", "R2-3: not BERT's 0.02"),
    ("causal-masking.md", r"must be written in place of a blocked score, not added", "R2-4: HF adds it"),
    ("self-and-cross-attention.md", r"it would lose the two kept tokens", "R2-6: it keeps key 0"),
    ("self-and-cross-attention.md", r"Each token would see only itself and none", "R2-6: eye(3, 5) pairs 2 with 0"),
    ("self-and-cross-attention.md", r"each word sees only the words before it", "R2-7: and itself"),
    ("where-each-word-stands.md", r"with the frequencies of equation", "R2-9: RoPE's exponent uses d_k"),
    ("where-each-word-stands.md", r"permuting the columns of its \$W_Q\$ and \$W_K\$ once\.", "R2-10: per head"),
    ("where-each-word-stands.md", r"Counting positions from one: the first word", "R2-11: RoPE sees only m - n"),
    ("where-each-word-stands.md", r"the paper takes the slopes|the paper's rule by hand", "R2-12: the authors' code"),
    ("where-each-word-stands.md", r"Every real model therefore adds", "R2-13: NoPE decoders"),
    ("where-each-word-stands.md", r"of the kind \{doc\}`causal-masking` teaches", "R2-14"),
    ("where-each-word-stands.md", r"P\\,W P\^\\top|2\^\(−8i/h\)", "R2-15, W-10: one letter per idea"),
    ("where-each-word-stands.md", r"to within \{glue:text\}`(gap_shuffle|same_layout)`", "W-9: the gap is 0.0"),
    ("weighted-average.md", r"no weight is ever exactly 0", "A3-2: in exact arithmetic only"),
    ("weighted-average.md", r"a long vector wins every dot product", "A3-3"),
    ("weighted-average.md", r"and the symmetry goes\s+away", "A3-4: it can go away"),
    ("glossary.md", r"hands over once it is chosen", "A4-7: every value is blended by its weight"),
    ("words-are-islands.md", r"purple for negative", "R1-1: PuOr is orange at the negative end"),
    ("words-are-islands.md", r"every word looks at every other word", "R1-2: itself included"),
    ("why-not-left-to-right.md", r"with every other word directly", "R1-2: itself included"),
    ("why-not-left-to-right.md", r"summary instead flattens out", "R1-4: tanh RNNs explode too"),
    ("why-not-left-to-right.md", r"many trained heads do look mostly at nearby", "R1-5: some heads, Clark et al."),
    ("why-not-left-to-right.md", r"fading of the second problem more than the size", "R1-8: not separated"),
    ("weighted-average.md", r"the biggest score takes most of the weight", "R1-10: the largest share"),
    ("weighted-average.md", r"output in self-attention\?", "R1-11: from chapter 4 on, of the values"),
    ("weighted-average.md", r"mixes length and direction|twice as long|undo longer", "R1-9: length is a count"),
    ("queries-keys-values.md", r"length squared", "R1-9: the norm squared"),
    ("queries-keys-values.md", r"That is why a model runs several heads", "R1-12: several softmaxes"),
    ("queries-keys-values.md", r"how much word \$a\$ looks at word \$b\$", "R1-13: that is the weight"),
    ("queries-keys-values.md", r"That is a different number unless", "R1-14: it can be the same"),
    ("queries-keys-values.md", r"a word matches itself best", "R1-15: cat and car, not every word"),
    ("learning-where-to-look.md", r"the numbers training changes: \$W_Q\$", "R1-17: a real model has more"),
    ("learning-where-to-look.md", r"keeps them from doing so", "R1-18: it removes the growth with d_k"),
    ("one-word-at-a-time.md", r"token that makes\s+the sequence \$t\$ tokens long",
     "R4-1: the step that reads t tokens picks token t + 1"),
    ("one-word-at-a-time.md", r"new token's own row counts too|new token also scores its own key",
     "R4-1: the token being picked has no row yet"),
    ("one-word-at-a-time.md", r"writes token number", "R4-1, W-11"),
    ("one-word-at-a-time.md", r"as the sequence reaches", "R4-1: Figure 13.1's caption"),
    ("one-word-at-a-time.md", r"own slice of the numbers", "R4-6: a head reads the whole token vector"),
    ("one-word-at-a-time.md", r"doubles the cached time but\s+quadruples", "R4-5, W-13: only asymptotically"),
    ("one-word-at-a-time.md", r"so that each weight read\s+from memory serves", "R4-4: batching shares the "
     "matrices' reads, not the cache's"),
    ("one-word-at-a-time.md", r"Between the two, a server", "R4-22: chunks and guesses are not a third phase"),
    ("one-word-at-a-time.md", r"kv\\_heads", "the MathML of \\text{kv\\_heads} shows the backslash"),
    ("the-whole-block.md", r"The book trains one head only", "T5-13: two-heads-that-copy trains a model too"),
    ("the-whole-block.md", r"on fixed or pretrained weights", "T5-13"),
    ("the-whole-block.md", r"the smooth function SiLU", "T5-15: SiLU and GELU are defined with a formula"),
    ("glossary.md", r"The weights of a row are positive", "T5-22: a masked weight is 0"),
    ("glossary.md", r"GPT-2 and Llama \(as RMSNorm\)", "T5-24: GPT-2 uses a layer norm"),
    ("testing.md", r"one test module per package module", "T5-26: sub-packages share test modules"),
    ("testing.md", r"Every comparison states its tolerance", "T5-25: some use NumPy's default"),
    ("weighted-average.md", r"The cat chased the dog", "T1-14: mutual looking, which a symmetric table allows"),
    ("queries-keys-values.md", r"The cat chased the dog", "T1-17"),
    ("why-divide-by-sqrt-dk.md", r"about 4 times more gradient without", "T2-9: the median row gets far less"),
    ("why-divide-by-sqrt-dk.md", r"does not starve the parameters", "T2-9"),
    ("causal-masking.md", r"padding rows would average the padding", "T2-15: a large finite mask added in float64 "
     "leaves the forbidden keys read"),
    ("where-each-word-stands.md", r"positions 32 apart only", "T3-4: the similarity comes in waves"),
    ("where-each-word-stands.md", r"fades with distance from it", "T3-4"),
    ("several-heads.md", r"a PyTorch model's file are the package's matrices", "T3-13: only nn.MultiheadAttention "
     "stacks and transposes"),
    ("one-word-at-a-time.md", r"only asymptotically, as n grows", "T4-12: the cause would make the factor smaller"),
]


@pytest.mark.parametrize(("page", "pattern", "why"), RETIRED, ids=[f"{p}:{w.split(':')[0]}" for p, _, w in RETIRED])
def test_a_retired_wrong_sentence_does_not_come_back(page, pattern, why):
    text = " ".join((BOOK / page).read_text(encoding="utf-8").split())
    assert not re.search(pattern, text), f"{page}: {why}"
