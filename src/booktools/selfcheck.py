"""Self-checks: small questions a page asks, with answers the package computed.

Each function returns an :class:`~booktools.html.HTMLBlock` that a page cell
displays. The markup holds the question, a hint for wrong answers and the
answer (in a JSON data block, never executed); ``_static/sa/selfcheck.js``
makes it interactive. Without JavaScript the reader still sees the question
and can open the answer.

Four kinds: :func:`number_check`, :func:`choose_check`, :func:`shape_check`
and :func:`predict_check`; :func:`skip_test` groups a few of them at the
start of a chapter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

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


def _block(check_id: str, kind: str, question: str, form: str, data: dict,
           answer_text: str, explain: str = "", fold: bool = False) -> HTMLBlock:
    """Assemble the common markup around one question's form."""
    qid = f"{check_id}-q"
    more = f" {esc(explain)}" if explain else ""
    markup = (
        f'<section class="sa-check" id="check-{check_id}" data-check-id="{check_id}" '
        f'data-kind="{kind}" data-fold="{str(bool(fold)).lower()}" aria-labelledby="{qid}">'
        f'<p class="sa-check-kind">Self-check · {_KIND_LABEL[kind]}</p>'
        f'<p class="sa-q" id="{qid}">{esc(question)}</p>'
        f'{form}'
        f'<p class="sa-feedback" role="status" aria-live="polite"></p>'
        f'<details class="sa-answer"><summary>Answer</summary>'
        f'<p><strong>{esc(answer_text)}</strong>{more}</p></details>'
        f'{json_data(data, "sa-check-data")}'
        f"</section>"
    )
    return HTMLBlock(markup)


def _check_choices(choices: Sequence[str], answer) -> list[str]:
    choices = [_check_text(c, "each choice") for c in choices]
    if len(choices) < 2:
        raise ValueError(f"choices must hold at least 2 entries, got {len(choices)}")
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(choices):
        raise ValueError(f"answer must be an index from 0 to {len(choices) - 1}, got {answer!r}")
    return choices


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


def number_check(check_id: str, question: str, answer: float, *, hint: str,
                 decimals: int | None = None, atol: float | None = None,
                 rtol: float = 0.0, explain: str = "", fold: bool = False) -> HTMLBlock:
    """A question whose answer is a number, accepted within a tolerance.

    The reader may write ``1.72``, ``1.720``, ``.5``, ``-0.35`` or
    ``8.88e-16``. With ``decimals=d`` an answer counts if it is within half a
    unit of the ``d``-th decimal of ``answer``; otherwise within
    ``max(atol, rtol * |answer|)``.

    Parameters
    ----------
    check_id : str
        Unique on the page: lowercase letters, digits and hyphens.
    question : str
        The question, in plain text.
    answer : float
        The right answer, computed by the package on the page.
    hint : str
        Shown after a wrong answer.
    decimals : int, optional
        Ask for this many decimals.
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
        If ``answer`` is not finite, no tolerance is given, or the id or a
        text is empty or malformed.

    Examples
    --------
    >>> block = number_check("raw-score", "What is cat · dog?", 2.0, atol=1e-9,
    ...                      hint="Multiply position by position, then add.")
    >>> 'data-kind="number"' in block.markup
    True
    """
    check_id = _check_id(check_id)
    answer = float(answer)
    if not math.isfinite(answer):
        raise ValueError(f"answer must be finite, got {answer}")
    if decimals is not None:
        if decimals < 0:
            raise ValueError(f"decimals must be >= 0, got {decimals}")
        atol = 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)
        shown = fmt(answer, decimals)
        label = f"Your answer ({decimals} decimals)"
    else:
        if atol is None and rtol <= 0:
            raise ValueError("give decimals, atol or rtol: a number check needs a tolerance")
        atol = 0.0 if atol is None else float(atol)
        shown = f"{answer:.6g}"
        label = "Your answer"
    data = {"answer": answer, "atol": atol, "rtol": float(rtol), "shown": shown,
            "hint": _check_text(hint, "hint")}
    return _block(check_id, "number", _check_text(question, "question"),
                  _text_form(check_id, label, "decimal"), data, shown, explain, fold)


def choose_check(check_id: str, question: str, choices: Sequence[str], answer: int, *,
                 hint: str, hints: Sequence[str | None] | None = None,
                 explain: str = "", fold: bool = False) -> HTMLBlock:
    """A question with several choices, shown in the given order; one is right.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    choices : sequence of str
        At least two choices, shown in this order.
    answer : int
        Index of the right choice.
    hint : str
        Shown after a wrong answer.
    hints : sequence of str or None, optional
        A hint per choice, shown when that wrong choice is picked instead of
        ``hint``.
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
        If there are fewer than two choices, ``answer`` is out of range, or
        ``hints`` has the wrong length.

    Examples
    --------
    >>> block = choose_check("sum", "What does each row of weights add up to?",
    ...                      ["0", "1", "3"], 1, hint="Softmax divides by the total.")
    >>> block.markup.count('type="radio"')
    3
    """
    check_id = _check_id(check_id)
    choices = _check_choices(choices, answer)
    if hints is not None and len(hints) != len(choices):
        raise ValueError(f"hints must have one entry per choice ({len(choices)}), got {len(hints)}")
    data = {"answer": answer, "hint": _check_text(hint, "hint"),
            "hints": list(hints) if hints is not None else None, "shown": choices[answer]}
    form = _radio_form(check_id, choices, f"{check_id}-q", "Check")
    return _block(check_id, "choose", _check_text(question, "question"), form, data,
                  choices[answer], explain, fold)


def shape_check(check_id: str, question: str, answer: Sequence[int], *, hint: str,
                explain: str = "", fold: bool = False) -> HTMLBlock:
    """A question whose answer is an array shape.

    The reader may write ``(5, 5)``, ``5x5``, ``5 × 5``, ``[5, 5]`` or ``5, 5``.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    answer : sequence of int
        The right shape, e.g. ``q.shape`` computed on the page.
    hint : str
        Shown after a wrong answer.
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
        If ``answer`` is empty or holds a negative or non-integer size.

    Examples
    --------
    >>> block = shape_check("qk", "Shape of Q @ K.T?", (5, 5), hint="Rows of Q, rows of K.")
    >>> '"answer": [5, 5]' in block.markup
    True
    """
    check_id = _check_id(check_id)
    sizes = list(answer)
    if not sizes or any(isinstance(s, bool) or int(s) != s or s < 0 for s in sizes):
        raise ValueError(f"answer must be a shape of non-negative integers, got {answer!r}")
    sizes = [int(s) for s in sizes]
    shown = "(" + ", ".join(map(str, sizes)) + ("," if len(sizes) == 1 else "") + ")"
    data = {"answer": sizes, "hint": _check_text(hint, "hint"), "shown": shown}
    return _block(check_id, "shape", _check_text(question, "question"),
                  _text_form(check_id, "Your shape, e.g. (2, 3)", "text"), data, shown, explain, fold)


def predict_check(check_id: str, question: str, choices: Sequence[str], answer: int, *,
                  reveal: str, hint: str = "", explain: str = "", fold: bool = False) -> HTMLBlock:
    """Commit to a guess first, then see the result and whether the guess was right.

    Parameters
    ----------
    check_id, question : str
        As in :func:`number_check`.
    choices : sequence of str
        Possible outcomes, shown in this order.
    answer : int
        Index of what really happens.
    reveal : str
        The result, computed on the page; shown only after the guess.
    hint : str, optional
        Shown with the result when the guess was wrong.
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
        As in :func:`choose_check`, or if ``reveal`` is empty.

    Examples
    --------
    >>> block = predict_check("grow", "What happens to c?", ["grows", "shrinks"], 0,
    ...                       reveal="c grew from 0 to 4.1.")
    >>> 'data-kind="predict"' in block.markup
    True
    """
    check_id = _check_id(check_id)
    choices = _check_choices(choices, answer)
    data = {"answer": answer, "hint": hint, "reveal": _check_text(reveal, "reveal"),
            "shown": choices[answer]}
    form = _radio_form(check_id, choices, f"{check_id}-q", "Commit my guess")
    return _block(check_id, "predict", _check_text(question, "question"), form, data,
                  f"{choices[answer]}. {reveal}", explain, fold)


def skip_test(checks: Sequence[HTMLBlock], *, title: str = "Already know this? Take the skip test"
              ) -> HTMLBlock:
    """A short test at a chapter's start: pass it and the chapter counts as done.

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
    >>> qs = [number_check(f"s{i}", "1 + 1?", 2, atol=0, hint="Count.") for i in range(3)]
    >>> 'class="sa-skip-test"' in skip_test(qs).markup
    True
    """
    checks = list(checks)
    if not 3 <= len(checks) <= 5:
        raise ValueError(f"a skip test has 3 to 5 questions, got {len(checks)}")
    if not all(isinstance(c, HTMLBlock) and 'class="sa-check"' in c.markup for c in checks):
        raise ValueError("skip_test takes self-checks made by booktools.selfcheck")
    body = "".join(c.markup for c in checks)
    markup = (
        f'<aside class="sa-skip-test" aria-label="{esc(title)}">'
        f'<details><summary>{esc(title)}</summary>'
        f'<p>Answer all {len(checks)} questions correctly and this chapter is marked as done.</p>'
        f"{body}"
        f'<p class="sa-skip-result" role="status" aria-live="polite"></p>'
        f"</details></aside>"
    )
    return HTMLBlock(markup)
