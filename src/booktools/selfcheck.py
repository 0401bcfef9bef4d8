"""Self-checks: small questions a page asks, with answers the package computed.

Each function returns an :class:`~booktools.html.HTMLBlock` that a page cell
displays. The markup holds the question, the hints and the answer (in a JSON
data block, never executed); ``_static/sa/selfcheck.js`` makes it
interactive. Without JavaScript the reader still sees the question and can
open the answer. Each block also carries a Markdown version of itself, which
the chapter's notebook shows.

Four kinds: :func:`number_check`, :func:`choose_check`, :func:`shape_check`
and :func:`predict_check`; :func:`skip_test` groups a few of them at the
start of a chapter. The rules that make a check teach, and that these
functions enforce:

* Hints are graduated: a number or shape check takes two or more hints, and
  each wrong try shows the next one.
* A number or shape check can name the wrong answers a reader is likely to
  give, each with a diagnosis ("4 is cat · cat").
* Each wrong option of a choice has its own hint. The options are shuffled
  in an order fixed by the check's id, and the right option may not be the
  longest one. :func:`balance_problems` checks a whole page at build time.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence

from .formatting import fmt
from .html import HTMLBlock, esc, json_data

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_KIND_LABEL = {
    "number": "a number",
    "choose": "choose one",
    "shape": "a shape",
    "predict": "predict first",
}


def _check_id(check_id: str) -> str:
    if not isinstance(check_id, str) or not _ID.match(check_id):
        raise ValueError(
            f"check_id must be lowercase letters, digits and hyphens, got {check_id!r}"
        )
    return check_id


def _check_text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value


def _check_hints(hints) -> list[str]:
    """Graduated hints: at least two, each different, shown one per wrong try."""
    if isinstance(hints, str) or not isinstance(hints, Sequence):
        raise TypeError(f"hints must be a list of at least 2 strings, got {type(hints).__name__}")
    hints = [_check_text(h, "each hint") for h in hints]
    if len(hints) < 2:
        raise ValueError(f"hints must hold at least 2 graduated hints (the second says more), got {len(hints)}")
    if len(set(hints)) != len(hints):
        raise ValueError("hints must all differ: each wrong try should say something new")
    return hints


def _sentence(text: str) -> str:
    """``text`` ending with one full stop (or its own ? or !)."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


def format_answer(answer: float, decimals: int | None = None) -> str:
    """How a number check shows its answer: whole numbers with thousands separators.

    Examples
    --------
    >>> format_answer(1_000_000.0), format_answer(0.3333333, 3), format_answer(2.0), format_answer(8.88e-16)
    ('1,000,000', '0.333', '2', '8.88e-16')
    """
    if decimals is not None:
        return fmt(answer, decimals)
    if answer == int(answer) and abs(answer) < 1e15:
        return f"{int(answer):,}"
    return f"{answer:.6g}"


def _order(check_id: str, n: int) -> list[int]:
    """A shuffled order of ``n`` options, fixed by the check's id (reproducible builds).

    Examples
    --------
    >>> sorted(_order("x", 4)) == [0, 1, 2, 3] and _order("x", 4) == _order("x", 4)
    True
    """
    keys = [hashlib.sha256(f"{check_id}/{i}".encode()).hexdigest() for i in range(n)]
    return sorted(range(n), key=keys.__getitem__)


def _block(check_id: str, kind: str, question: str, form: str, data: dict,
           answer_html: str, markdown: str, fold: bool = False) -> HTMLBlock:
    """Assemble the common markup around one question's form."""
    qid = f"{check_id}-q"
    markup = (
        f'<section class="sa-check" id="check-{check_id}" data-check-id="{check_id}" '
        f'data-kind="{kind}" data-fold="{str(bool(fold)).lower()}" aria-labelledby="{qid}">'
        f'<p class="sa-check-kind">Self-check · {_KIND_LABEL[kind]}</p>'
        f'<p class="sa-q" id="{qid}">{esc(question)}</p>'
        f'{form}'
        f'<p class="sa-feedback" role="status" aria-live="polite"></p>'
        f'<details class="sa-answer"><summary>Answer</summary>'
        f'<p>{answer_html}</p></details>'
        f'{json_data({"kind": kind, **data}, "sa-check-data")}'
        f"</section>"
    )
    return HTMLBlock(markup, markdown=markdown)


def _answer_html(shown: str, more: str = "") -> str:
    """"The answer is: **shown**." followed by an explanation, as HTML."""
    tail = f" {esc(_sentence(more))}" if more.strip() else ""
    return f"The answer is: <strong>{esc(shown)}</strong>.{tail}"


def _markdown(kind: str, question: str, shown: str, more: str = "",
              options: Sequence[str] = (), hints: Sequence[str] = ()) -> str:
    """The check for a notebook: the question, the options, and folded hints and answer."""
    lines = [f"**Self-check ({_KIND_LABEL[kind]}).** {question}", ""]
    lines += [f"- {text}" for text in options]
    if options:
        lines.append("")
    for i, hint in enumerate(hints, 1):
        lines += [f"<details><summary>Hint {i}</summary>", "", hint, "", "</details>", ""]
    tail = f" {_sentence(more)}" if more.strip() else ""
    lines += ["<details><summary>Answer</summary>", "", f"The answer is: **{shown}**.{tail}", "",
              "</details>"]
    return "\n".join(lines)


def _text_form(check_id: str, label: str, inputmode: str) -> str:
    return (
        f'<form class="sa-form" novalidate>'
        f'<label for="{check_id}-input">{esc(label)}</label> '
        f'<input id="{check_id}-input" name="answer" type="text" inputmode="{inputmode}" '
        f'autocomplete="off" spellcheck="false"> '
        f'<button type="submit" class="sa-submit">Check</button>'
        f"</form>"
    )


def _radio_form(check_id: str, choices: Sequence[str], legend_id: str, submit: str) -> str:
    items = "".join(
        f'<label class="sa-choice"><input type="radio" name="{check_id}" value="{i}"> '
        f"{esc(text)}</label>"
        for i, text in enumerate(choices)
    )
    return (
        f'<form class="sa-form" novalidate><fieldset aria-labelledby="{legend_id}">{items}</fieldset>'
        f'<button type="submit" class="sa-submit">{esc(submit)}</button></form>'
    )


def _options(check_id: str, right, wrong) -> tuple[list[str], int, list[str | None]]:
    """Shuffle the right option among the wrong ones; give each wrong one its hint.

    Returns the options in page order, the index of the right one, and the
    hint of each option (None for the right one).
    """
    right = _check_text(right, "right")
    if not isinstance(wrong, Mapping) or len(wrong) < 1:
        raise TypeError("wrong must be a dict {wrong option: its own hint} with at least one entry")
    items = [(right, None)]
    for option, hint in wrong.items():
        items.append((_check_text(option, "each wrong option"), _check_text(hint, f"the hint for {option!r}")))
    texts = [t.strip() for t, _ in items]
    if len(set(texts)) != len(texts):
        raise ValueError("the options must all differ")
    longest_wrong = max(len(t) for t in texts[1:])
    if len(texts[0]) > longest_wrong:
        raise ValueError(
            f"the right option is the longest ({len(texts[0])} characters against at most "
            f"{longest_wrong}): a reader could pick it without thinking. Shorten it or "
            f"lengthen a wrong one: {right!r}"
        )
    order = _order(check_id, len(items))
    options = [items[i][0] for i in order]
    hints = [items[i][1] for i in order]
    return options, order.index(0), hints


def _diagnoses(diagnoses, accepts, convert, same) -> list[list]:
    """The diagnoses as ``[value, text]`` pairs, refusing any two that a reader's answer cannot tell apart.

    ``diagnoses`` is a dict or a list of ``(value, text)`` pairs. Build a
    list when the values are computed: a dict literal keeps only the last
    of two equal keys, silently, and its diagnosis would never fire.
    """
    if diagnoses is None:
        return []
    if isinstance(diagnoses, Mapping):
        items = list(diagnoses.items())
    elif isinstance(diagnoses, Sequence) and not isinstance(diagnoses, str) and all(
            isinstance(p, Sequence) and not isinstance(p, str) and len(p) == 2 for p in diagnoses):
        items = [tuple(p) for p in diagnoses]
    else:
        raise TypeError("diagnoses must be a dict or a list of pairs (likely wrong answer, what it shows)")
    out = []
    for value, text in items:
        _check_text(text, f"the diagnosis of {value!r}")
        if accepts(value):
            raise ValueError(f"the diagnosed wrong answer {value!r} would be accepted as right")
        for earlier, earlier_text in out:
            if same(convert(value), earlier):
                raise ValueError(f"two diagnoses collide at {value!r}: a reader who answers it would only "
                                 f"ever get one of them ({earlier_text!r} and {text!r})")
        out.append([convert(value), text])
    return out


def too_few_decimals(typed: str, answer: float, decimals: int | None) -> bool:
    """Whether ``typed`` is the right ``answer`` rounded to fewer decimals than the ``decimals`` asked for.

    ``selfcheck.js`` applies the same rule (``tooFewDecimals``) and then
    shows the check's ``fewer_decimals`` hint, which says how many
    decimals are asked for. An answer in scientific notation never counts,
    and neither does one the check accepts: "0.5" for an answer of 0.50
    asked with 2 decimals is exact, not rounded.

    Examples
    --------
    >>> too_few_decimals("0.12", 0.125, 3), too_few_decimals("0.73", 0.731, 3), too_few_decimals("0.7", 0.731, 2)
    (True, True, True)
    >>> too_few_decimals("0.125", 0.125, 3), too_few_decimals("0.11", 0.125, 3), too_few_decimals("0.12", 0.125, None)
    (False, False, False)
    >>> too_few_decimals("0.5", 0.5, 2), too_few_decimals("2", 2.0, 3)
    (False, False)
    """
    if decimals is None:
        return False
    text = re.sub(r"[\s_,\u00a0\u202f]+", "", typed.strip().replace("\u2212", "-"))
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", text):
        return False
    shown = len(text.split(".")[1]) if "." in text else 0
    if shown >= decimals:
        return False
    gap = abs(float(text) - answer)
    if gap <= 0.5 * 10.0 ** (-decimals) * (1 + 1e-9):
        return False  # within the check's own tolerance: accepted, not rounded
    return gap <= 0.5 * 10.0 ** (-shown) * (1 + 1e-9)


def number_check(check_id: str, question: str, answer: float, *, hints: Sequence[str],
                 diagnoses: Mapping[float, str] | Sequence[tuple[float, str]] | None = None,
                 decimals: int | None = None, atol: float | None = None,
                 rtol: float = 0.0, explain: str = "", fold: bool = False) -> HTMLBlock:
    """A question whose answer is a number, accepted within a tolerance.

    The reader may write ``1.72``, ``1.720``, ``.5``, ``-0.35``, ``8.88e-16``
    or ``1,000,000``. With ``decimals=d`` an answer counts if it is within
    half a unit of the ``d``-th decimal of ``answer``; otherwise within
    ``max(atol, rtol * |answer|)``.

    Parameters
    ----------
    check_id : str
        Unique on the page: lowercase letters, digits and hyphens.
    question : str
        The question, in plain text.
    answer : float
        The right answer, computed by the package on the page.
    hints : sequence of str
        Two or more graduated hints: the first wrong try shows the first,
        the second try the second (which should say more), and so on.
    diagnoses : dict of float to str, or list of (float, str), optional
        Likely wrong answers and what each one shows, e.g.
        ``{4: "That is cat · cat: check which two words you multiplied."}``.
        A wrong answer within the check's tolerance of one of them gets its
        diagnosis instead of the next hint. When the values are computed,
        give a list of pairs: two values that collide then raise (a dict
        literal would silently keep only the last).
    decimals : int, optional
        Ask for this many decimals. An answer that is right but rounded to
        fewer decimals (0.12 for 0.125) is told how many are asked for; an
        exact one written with fewer (0.5 for 0.50) is accepted.
    atol, rtol : float, optional
        Absolute and relative tolerance (used when ``decimals`` is None).
    explain : str, optional
        A sentence shown with the answer.
    fold : bool, default False
        Fold what follows in the section until the check is answered.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        If ``answer`` is not finite, no tolerance is given, fewer than two
        hints are given, a diagnosed answer would count as right, two
        diagnosed answers are within the tolerance of each other, or the id
        or a text is empty or malformed.
    TypeError
        If ``hints`` is a single string or ``diagnoses`` is not a dict or
        a list of pairs.

    Examples
    --------
    >>> block = number_check("raw-score", "What is cat · dog?", 2.0, atol=1e-9,
    ...                      hints=["Multiply position by position, then add.",
    ...                             "cat = [2, 0], dog = [1, 1]: 2 × 1 + 0 × 1."],
    ...                      diagnoses={4: "That is cat · cat."})
    >>> 'data-kind="number"' in block.markup
    True
    """
    check_id = _check_id(check_id)
    answer = float(answer)
    if not math.isfinite(answer):
        raise ValueError(f"answer must be finite, got {answer}")
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
            raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
        atol = 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)
        rtol = 0.0
        label = ("Your answer (a whole number)" if decimals == 0 else
                 f"Your answer ({decimals} decimal{'' if decimals == 1 else 's'})")
    else:
        if atol is None and rtol <= 0:
            raise ValueError("give decimals, atol or rtol: a number check needs a tolerance")
        atol = 0.0 if atol is None else float(atol)
        if atol < 0 or rtol < 0 or not math.isfinite(atol) or not math.isfinite(rtol):
            raise ValueError(f"atol and rtol must be finite and >= 0, got atol={atol}, rtol={rtol}")
        label = "Your answer"
    shown = format_answer(answer, decimals)
    tol = max(atol, rtol * abs(answer))
    hints = _check_hints(hints)
    data = {"answer": answer, "atol": atol, "rtol": float(rtol), "shown": shown, "hints": hints,
            "diagnoses": _diagnoses(diagnoses, lambda v: abs(float(v) - answer) <= tol, float,
                                    lambda a, b: abs(a - b) <= max(atol, rtol * max(abs(a), abs(b))))}
    if decimals is not None:
        data["decimals"] = decimals
        data["fewer_decimals"] = (f"That is the right number rounded to fewer decimals: give {decimals} "
                                  f"decimal{'s' if decimals != 1 else ''}, as asked.")
    question = _check_text(question, "question")
    return _block(check_id, "number", question, _text_form(check_id, label, "decimal"), data,
                  _answer_html(shown, explain), _markdown("number", question, shown, explain, hints=hints),
                  fold)


def choose_check(check_id: str, question: str, right: str, wrong: Mapping[str, str], *,
                 hint: str = "", explain: str = "", fold: bool = False) -> HTMLBlock:
    """A question with several options; one is right, each wrong one has its own hint.

    The options appear in an order shuffled by ``check_id``: the same on every
    build, and different from one check to the next.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    right : str
        The right option. It may not be longer than every wrong one.
    wrong : dict of str to str
        Each wrong option and the hint for a reader who picks it: name the
        misconception it stands for.
    hint : str, optional
        More help, shown from the second wrong try on, after the hint of the
        option picked.
    explain : str, optional
        A sentence shown with the answer.
    fold : bool, default False
        Fold what follows in the section until the check is answered.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        If the right option is strictly the longest, two options are the
        same, or a text is empty.
    TypeError
        If ``wrong`` is not a dict of options to hints.

    Examples
    --------
    >>> block = choose_check("sum", "What does each row of weights add up to?", "1",
    ...                      {"0": "Every weight is positive.", "3": "That is the number of words."})
    >>> block.markup.count('type="radio"')
    3
    """
    check_id = _check_id(check_id)
    question = _check_text(question, "question")
    options, answer, hints = _options(check_id, right, wrong)
    data = {"answer": answer, "options": options, "hints": hints, "hint": hint.strip(),
            "shown": right}
    form = _radio_form(check_id, options, f"{check_id}-q", "Check")
    return _block(check_id, "choose", question, form, data, _answer_html(right, explain),
                  _markdown("choose", question, right, explain, options=options), fold)


def shape_check(check_id: str, question: str, answer: Sequence[int], *, hints: Sequence[str],
                diagnoses: Mapping[tuple, str] | None = None, explain: str = "",
                fold: bool = False) -> HTMLBlock:
    """A question whose answer is an array shape.

    The reader may write ``(5, 5)``, ``5x5``, ``5 × 5``, ``[5, 5]`` or ``5, 5``.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    answer : sequence of int
        The right shape, e.g. ``q.shape`` computed on the page.
    hints : sequence of str
        Two or more graduated hints, as in :func:`number_check`.
    diagnoses : dict of tuple to str, or list of (tuple, str), optional
        Likely wrong shapes and what each one shows, e.g.
        ``{(4, 5): "Rows and columns are swapped."}``; a list of pairs
        refuses two equal shapes.
    explain : str, optional
        A sentence shown with the answer.
    fold : bool, default False
        Fold what follows in the section until the check is answered.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        If ``answer`` is empty or holds a negative or non-integer size, or
        the hints or diagnoses are malformed.

    Examples
    --------
    >>> block = shape_check("qk", "Shape of Q @ K.T?", (5, 5),
    ...                     hints=["Rows of Q, rows of K.", "Q is (5, 2) and K is (5, 2)."])
    >>> '"answer": [5, 5]' in block.markup
    True
    """
    check_id = _check_id(check_id)

    def sizes_of(shape):
        sizes = list(shape)
        if not sizes or any(isinstance(s, bool) or int(s) != s or s < 0 for s in sizes):
            raise ValueError(f"a shape must hold non-negative integers, got {shape!r}")
        return [int(s) for s in sizes]

    sizes = sizes_of(answer)
    shown = "(" + ", ".join(map(str, sizes)) + ("," if len(sizes) == 1 else "") + ")"
    hints = _check_hints(hints)
    data = {"answer": sizes, "hints": hints, "shown": shown,
            "diagnoses": _diagnoses(diagnoses, lambda s: sizes_of(s) == sizes, sizes_of, lambda a, b: a == b)}
    question = _check_text(question, "question")
    return _block(check_id, "shape", question, _text_form(check_id, "Your shape, e.g. (2, 3)", "text"),
                  data, _answer_html(shown, explain),
                  _markdown("shape", question, shown, explain, hints=hints), fold)


def predict_check(check_id: str, question: str, right: str, wrong: Mapping[str, str], *,
                  reveal: str, explain: str = "", fold: bool = False) -> HTMLBlock:
    """Commit to a guess first, then see the result and whether the guess was right.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    right : str
        What really happens. It may not be longer than every wrong option.
    wrong : dict of str to str
        Each wrong outcome and what a reader who guessed it overlooked.
    reveal : str
        The result, computed on the page; shown only after the guess.
    explain : str, optional
        A sentence shown with the answer.
    fold : bool, default False
        Fold what follows in the section until the check is answered.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError, TypeError
        As in :func:`choose_check`, or if ``reveal`` is empty.

    Examples
    --------
    >>> block = predict_check("grow", "What happens to c?", "It grows",
    ...                       {"It shrinks": "Both factors are positive."}, reveal="c grew from 0 to 4.1.")
    >>> 'data-kind="predict"' in block.markup
    True
    """
    check_id = _check_id(check_id)
    question = _check_text(question, "question")
    reveal = _check_text(reveal, "reveal")
    options, answer, hints = _options(check_id, right, wrong)
    data = {"answer": answer, "options": options, "hints": hints, "reveal": reveal, "shown": right}
    more = f"{_sentence(reveal)} {explain}".strip()
    form = _radio_form(check_id, options, f"{check_id}-q", "Commit my guess")
    return _block(check_id, "predict", question, form, data, _answer_html(right, more),
                  _markdown("predict", question, right, more, options=options), fold)


def skip_test(checks: Sequence[HTMLBlock], *, title: str = "Already know this? Take the skip test"
              ) -> HTMLBlock:
    """A short test at a chapter's start: pass it and the chapter counts as done.

    Passing it also unfolds every fold of the chapter. A question whose
    answer the reader chose to see does not count.

    Parameters
    ----------
    checks : sequence of HTMLBlock
        Three to five self-checks made by the functions of this module.
    title : str, optional
        The heading of the box.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        If there are fewer than 3 or more than 5 checks, or one is not a
        self-check.

    Examples
    --------
    >>> qs = [number_check(f"s{i}", "1 + 1?", 2, atol=0, hints=["Count.", "One and one."])
    ...       for i in range(3)]
    >>> 'class="sa-skip-test"' in skip_test(qs).markup
    True
    """
    checks = list(checks)
    if not 3 <= len(checks) <= 5:
        raise ValueError(f"a skip test has 3 to 5 questions, got {len(checks)}")
    if not all(isinstance(c, HTMLBlock) and 'class="sa-check"' in c.markup for c in checks):
        raise ValueError("skip_test takes self-checks made by booktools.selfcheck")
    body = "".join(c.markup for c in checks)
    intro = (f"Answer all {len(checks)} questions correctly and this chapter is marked as done. "
             "A question whose answer you show does not count.")
    markup = (
        f'<aside class="sa-skip-test" aria-label="{esc(title)}">'
        f'<details><summary>{esc(title)}</summary>'
        f"<p>{esc(intro)}</p>"
        f"{body}"
        f'<p class="sa-skip-result" role="status" aria-live="polite"></p>'
        f"</details></aside>"
    )
    markdown = "\n\n".join([f"<details><summary>{esc(title)}</summary>", intro]
                             + [c.markdown for c in checks] + ["</details>"])
    return HTMLBlock(markup, markdown=markdown)


_DATA = re.compile(r'<script type="application/json" class="sa-check-data">(.*?)</script>', re.S)


def check_data(html: str) -> list[dict]:
    """The data of every self-check in a page's HTML, in page order.

    Examples
    --------
    >>> [d["kind"] for d in check_data(choose_check("a", "q?", "b", {"c": "h"}).markup)]
    ['choose']
    """
    return [json.loads(m.group(1).replace("<\\/", "</")) for m in _DATA.finditer(html)]


def balance_problems(html: str) -> list[str]:
    """What makes the choices of a page guessable without thinking.

    Two rules for choose and predict checks: the right option is never
    strictly the longest, and when a page has three or more such checks their
    right options are not all in the same place.

    Examples
    --------
    >>> page = "".join(choose_check(f"c{i}", "q?", "right", {"wrong": "h", "other": "h"}).markup
    ...                for i in range(3))
    >>> balance_problems(page)
    []
    """
    problems = []
    choices = [d for d in check_data(html) if d.get("kind") in ("choose", "predict")]
    for d in choices:
        lengths = [len(t.strip()) for t in d["options"]]
        right = lengths[d["answer"]]
        if all(right > n for i, n in enumerate(lengths) if i != d["answer"]):
            problems.append(f"the right option is the longest: {d['shown']!r}")
    positions = {d["answer"] for d in choices}
    if len(choices) >= 3 and len(positions) == 1:
        problems.append(f"all {len(choices)} choice checks have their right option in place "
                        f"{positions.pop() + 1}: reorder some")
    return problems
