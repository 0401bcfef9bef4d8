"""The one compare step of every checker: tolerance, shape tips and messages.

Every checker of :mod:`selfattention.checks` reads the reader's answer with
:func:`read_answer` and judges it with :func:`compare` (or, for a checker
that calls the reader's function, with :func:`close` and
:func:`wrong_value`). So the tolerance, the shape tips and the wording are
the same everywhere.

The tolerance
-------------
A value ``g`` counts as equal to the expected ``e`` when::

    |g - e| <= 100 * eps * (|e| + max |e|)

elementwise, where ``max |e|`` is the largest magnitude of the whole
expected array (of its finite values) and ``eps`` is the machine epsilon of
the precision the answer was computed in: float32's ``2**-23`` (about
1.2e-07) for a float32 array (what ``torch.Tensor.numpy()`` gives),
float64's ``2**-52`` (about 2.2e-16) for anything else (float64, Python
numbers, lists). So a right float32 answer is accepted (its rounding errors
are a few eps), while an answer rounded to 2 or 4 decimals, or off by 1e-3,
is not (for values up to about 10 in float32, up to about 1e10 in float64).

A float16 answer is judged with float16's rounding: ``eps`` is float16's
``2**-10`` (about 9.8e-04) and the factor 10, not 100 (float16 keeps about
three digits, so rounding its inputs alone moves a result by an eps or two;
100 of its eps would pass an answer 10% off). A float16 answer that is
right to float16's precision is accepted; one off by 1e-1 is not.

An expected ``inf`` or ``-inf`` (a masked score, say) is matched by the
same infinity only, and does not widen the tolerance of the other values.
Counts and booleans (``exact=True``) are compared exactly.

A float64 answer that misses the float64 tolerance but meets float32's, off
by about float32's rounding (at least half its eps of the largest value,
:func:`float32_sized`), was most likely computed in float32 somewhere along
the way (a float32 input divided by a float64 ``np.sqrt``, say, which NumPy 2
turns into float64). It is not accepted, since it is judged as float64, but
it gets its own message, "float32-inside", instead of a wrong value.

The diagnoses
-------------
A checker declares every message it can give in a :class:`Diagnoses`: one
id per diagnosis, with its template. :attr:`Diagnoses.ids` is what the test
``tests/selfattention/checks/test_diagnoses.py`` enumerates, so each declared
diagnosis is triggered by a test; a checker has no other way to word a
verdict.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

#: Machine epsilon of float16, float32 and float64.
EPS16 = float(np.finfo(np.float16).eps)
EPS32 = float(np.finfo(np.float32).eps)
EPS64 = float(np.finfo(np.float64).eps)
#: How many eps of the answer's precision a value may be off, relative to its own size plus the largest.
FACTOR = 100
#: The same for a float16 answer, whose eps is large: 10 of them (about 1e-2).
FACTOR16 = 10

#: The sentence every checker's docstring carries, word for word.
TOLERANCE = ("A value counts as right within 100 eps (abs(expected) + the largest abs(expected)), eps being "
             "the machine epsilon of the answer: float32's for float32 arrays (as torch's .numpy() "
             "gives), float64's otherwise; a float16 answer is judged with float16's rounding (10 of its "
             "eps), and an expected inf only by the same inf.")

#: The messages every checker of arrays shares; a checker lists those it can give.
GENERIC = {
    "not-numbers": "{name} should be a NumPy array of numbers, got {type}.",
    "shape": "{name} has shape {got} but should be {expected}: {layout}",
    "not-finite": "{name} contains NaN or inf.",
    "rounded": "Close, but rounded to {decimals} decimals: check the numbers as computed, not as printed.",
    "float32-inside": "{name} is float64 but right only to float32's precision: its values differ by what "
                      "float32's rounding gives, so part of it was probably computed in float32. Keep every "
                      "step in one dtype: all float64, or all float32 (a float32 answer is judged at float32's "
                      "precision).",
    "value": "Wrong value{where}: {got} where {expected} was expected.",
}


@dataclass(frozen=True)
class Feedback:
    """The verdict of a checker: ``ok`` and a message written for the reader.

    ``slip`` names the diagnosis that fired (one of the checker's declared
    ``Diagnoses.ids``); it is ``""`` for a right answer.

    Examples
    --------
    >>> verdict = Feedback(False, "scores has shape (2, 2) but should be (3, 3).")
    >>> bool(verdict), str(verdict)
    (False, '✗ scores has shape (2, 2) but should be (3, 3).')
    """

    ok: bool
    message: str
    slip: str = ""

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return ("✓ " if self.ok else "✗ ") + self.message

    def _repr_markdown_(self) -> str:
        return str(self)


#: Every checker's diagnoses, by the checker's name (filled as the modules are imported).
REGISTRY: dict[str, Diagnoses] = {}


class Diagnoses:
    """The messages one checker can give, each under an id.

    Parameters
    ----------
    checker : str
        The checker's name, e.g. ``"check_scores"``.
    right : str
        The template of the verdict for a right answer.
    slips : mapping of str to str
        Each diagnosis id and its template (``str.format`` fields).
    generic : iterable of str
        The ids of :data:`GENERIC` this checker can give; a slip of the
        same id rewords it.
    register : bool, default True, keyword-only
        Record them in :data:`REGISTRY`, which the tests enumerate.

    Examples
    --------
    >>> d = Diagnoses("check_demo", "Right: {n} values.", {"twice": "You doubled it."}, generic=["value"],
    ...               register=False)
    >>> d.ids
    ('value', 'twice')
    >>> print(d.right(n=3)), print(d.wrong("twice"))
    ✓ Right: 3 values.
    ✗ You doubled it.
    (None, None)
    """

    def __init__(self, checker: str, right: str, slips: Mapping[str, str],
                 generic: Iterable[str] = tuple(GENERIC), *, register: bool = True) -> None:
        generic = tuple(generic)
        unknown = set(generic) - set(GENERIC)
        if unknown:
            raise ValueError(f"unknown generic diagnoses {sorted(unknown)}; use some of {list(GENERIC)}")
        self.checker = checker
        self._right = right
        self.templates = {**{g: GENERIC[g] for g in generic if g not in slips}, **dict(slips)}
        if register:
            if checker in REGISTRY:
                raise ValueError(f"{checker} already declares its diagnoses")
            REGISTRY[checker] = self

    @property
    def ids(self) -> tuple[str, ...]:
        """The ids of every diagnosis this checker declares."""
        return tuple(self.templates)

    def fields(self, slip: str) -> set[str]:
        """The names a diagnosis's template needs."""
        return {f for _, f, _, _ in string.Formatter().parse(self.templates[slip]) if f}

    def right(self, **values) -> Feedback:
        """The verdict for a right answer."""
        return Feedback(True, self._right.format(**values))

    def text(self, slip: str, **values) -> str:
        """The message of diagnosis ``slip``."""
        if slip not in self.templates:
            raise KeyError(f"{self.checker} declares no diagnosis {slip!r}; declare it in its Diagnoses")
        return self.templates[slip].format(**values)

    def wrong(self, slip: str, **values) -> Feedback:
        """The verdict of diagnosis ``slip``."""
        return Feedback(False, self.text(slip, **values), slip)


def precision(answer: np.ndarray) -> float:
    """The machine epsilon of the precision ``answer`` was computed in.

    float16's for a float16 array, float32's for a float32 array, float64's
    for anything else.

    Examples
    --------
    >>> precision(np.ones(2, np.float32)) == EPS32, precision(np.ones(2)) == EPS64
    (True, True)
    >>> precision(np.ones(2, np.float16)) == EPS16
    True
    """
    dtype = np.asarray(answer).dtype
    if dtype.kind != "f" or dtype.itemsize > 4:
        return EPS64
    return EPS16 if dtype.itemsize <= 2 else EPS32


def tolerance(expected, eps: float) -> np.ndarray:
    """The largest difference accepted at each value: ``FACTOR * eps * (|e| + max |e|)``.

    ``FACTOR`` is 100, or :data:`FACTOR16` (10) when ``eps`` is float16's:
    float16's rounding, not 100 of its large eps. ``max |e|`` is taken over
    the finite values; an infinite value gets tolerance 0 (only the same
    infinity matches it, see :func:`close`).

    Examples
    --------
    >>> tolerance(np.array([1.0, -3.0]), EPS32).round(8)
    array([4.768e-05, 7.153e-05])
    >>> tolerance(np.array([1.0, -3.0]), EPS16).round(4)
    array([0.0391, 0.0586])
    >>> tolerance(np.array([1.0, -np.inf]), EPS64) == [200 * EPS64, 0]
    array([ True,  True])
    """
    e = np.abs(np.asarray(expected, dtype=np.float64))
    finite = np.isfinite(e)
    top = float(e[finite].max()) if finite.any() else 0.0
    factor = FACTOR16 if eps >= EPS16 else FACTOR
    return np.where(finite, factor * eps * (np.where(finite, e, 0.0) + top), 0.0)


def close(got: np.ndarray, expected, eps: float, *, exact: bool = False) -> bool:
    """Whether ``got`` equals ``expected``: same shape, every value within :func:`tolerance`.

    A value equal to the expected one counts as close, so an expected
    ``inf`` or ``-inf`` is matched by the same infinity (and only by it).

    Examples
    --------
    >>> e = np.array([2.8284271247461903])
    >>> close(e.astype(np.float32).astype(np.float64), e, EPS32), close(e.round(2), e, EPS32)
    (True, False)
    >>> close(np.float16(e), e, EPS16), close(np.float16(e + 0.1), e, EPS16)
    (True, False)
    >>> m = np.array([0.5, -np.inf])
    >>> close(m, m, EPS64), close(np.array([0.5, np.inf]), m, EPS64), close(np.array([0.5, -1e300]), m, EPS64)
    (True, False, False)
    """
    if expected is None:
        return False
    expected = np.asarray(expected)
    if np.shape(got) != expected.shape:
        return False
    if exact:
        return bool(np.array_equal(got, expected))
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.all((g == e) | (np.abs(g - e) <= tolerance(e, eps))))


def float32_sized(got: np.ndarray, expected) -> bool:
    """Whether ``got`` misses ``expected`` by what float32's rounding gives: within its tolerance, and no less.

    The largest difference is at least half a float32 eps of the largest
    value (what rounding to float32 alone can give), and every value is within
    float32's tolerance: the signature of float32 somewhere inside a float64
    answer.

    Examples
    --------
    >>> e = np.array([1.0, 2.0])
    >>> float32_sized(e + [0, 3e-7], e), float32_sized(e + [0, 1e-10], e), float32_sized(e + [0, 1e-3], e)
    (True, False, False)
    """
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if g.shape != e.shape or not close(g, e, EPS32):
        return False
    finite = np.isfinite(e)
    if not finite.any():
        return False
    return bool(np.abs(g - e)[finite].max() >= EPS32 / 2 * np.abs(e[finite]).max())


def two_numbers(got: float, expected: float) -> tuple[str, str]:
    """``got`` and ``expected`` printed with as few digits as tell them apart (4 at least).

    Examples
    --------
    >>> two_numbers(2.8284, 2.8284271247461903)
    ('2.8284', '2.82843')
    >>> two_numbers(0.5, 0.25)
    ('0.5', '0.25')
    """
    got, expected = float(got), float(expected)
    for digits in range(4, 18):
        a, b = f"{got:.{digits}g}", f"{expected:.{digits}g}"
        if a != b:
            return a, b
    return repr(got), repr(expected)


def where(index: tuple) -> str:
    """Where a value sits, in words: ``" at row 0, column 2"``, ``" at position 1"``, or ``""``.

    Examples
    --------
    >>> where((0, 2)), where((1,)), where(()), where((1, 0, 2))
    (' at row 0, column 2', ' at position 1', '', ' at index (1, 0, 2)')
    """
    index = tuple(int(i) for i in index)
    if len(index) == 2:
        return f" at row {index[0]}, column {index[1]}"
    if len(index) == 1:
        return f" at position {index[0]}"
    return f" at index {index}" if index else ""


def worst(got: np.ndarray, expected: np.ndarray, eps: float) -> tuple:
    """The index of the value furthest outside the tolerance (an equal value, an equal infinity too, is not)."""
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        excess = np.where(g == e, -np.inf, np.abs(g - e) - tolerance(e, eps))
    excess = np.where(np.isnan(excess), np.inf, excess)  # NaN, or inf against another number: as far as can be
    return np.unravel_index(int(np.argmax(excess)), np.shape(expected)) if np.ndim(expected) else ()


def wrong_value(got: np.ndarray, expected, eps: float) -> dict:
    """The fields of the "value" message: ``where``, ``got`` and ``expected`` at the worst value.

    Examples
    --------
    >>> wrong_value(np.array([1.0, 2.83]), np.array([1.0, 2.8284271]), EPS64)
    {'where': ' at position 1', 'got': '2.83', 'expected': '2.828'}
    """
    expected = np.asarray(expected, dtype=np.float64)
    index = worst(got, expected, eps)
    a, b = two_numbers(np.asarray(got)[index], expected[index])
    return {"where": where(index), "got": a, "expected": b}


def rounded_to(got: np.ndarray, expected, eps: float) -> int | None:
    """The number of decimals (0 to 8) that ``got`` is ``expected`` rounded to, or None.

    Examples
    --------
    >>> e = np.array([2.8284271, 1.0])
    >>> rounded_to(e.round(2), e, EPS64), rounded_to(e + 1e-3, e, EPS64)
    (2, None)
    """
    expected = np.asarray(expected, dtype=np.float64)
    for decimals in range(9):
        shown = np.round(expected, decimals)
        if not close(shown, expected, EPS64) and close(got, shown, eps):
            return decimals
    return None


def read_answer(value, name: str, diagnoses: Diagnoses, *, exact: bool = False):
    """The reader's answer as an array, or the "not-numbers" :class:`Feedback`.

    Strings, ``None``, objects and complex numbers are refused. With
    ``exact`` the dtype is kept (for booleans and counts); otherwise the
    array keeps float32 or float64, and anything else becomes float64.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        if value is Ellipsis or (arr.dtype == object and any(a is Ellipsis for a in arr.ravel())):
            # A starter run unedited: say so, not "got ndarray".
            return diagnoses.wrong("not-numbers", name=name,
                                   type="the placeholder ... : write your code in its place, then run the cell again")
        return diagnoses.wrong("not-numbers", name=name, type=type(value).__name__)
    if exact or arr.dtype.kind == "f":
        return arr
    return arr.astype(np.float64)


def compare(answer, expected, diagnoses: Diagnoses, *, name: str, layout: str,
            slips: Iterable[tuple] = (), shape_tips: Mapping[tuple, str] | None = None,
            tip_fields: Mapping | None = None, right: Mapping | None = None, exact: bool = False,
            fallback: Callable[[np.ndarray, float], Feedback | None] | None = None) -> Feedback:
    """Judge ``answer`` against ``expected``, in the order every checker uses.

    1. Not an array of numbers: "not-numbers".
    2. The right shape and every value within the tolerance: right.
    3. The first of ``slips``, ``(value, id, fields)`` whose value it
       equals (same shape, same tolerance; a ``None`` value is skipped):
       that diagnosis. Then, if the checker declares "rounded", the
       expected values rounded to 0 to 8 decimals: "rounded".
    4. Another shape: "shape", followed by the message of
       ``shape_tips[shape]`` (a diagnosis id) if there is one.
    5. NaN or inf where no such inf is expected: "not-finite".
    6. If the checker declares "float32-inside": a float64 answer off by
       float32's rounding (:func:`float32_sized`) gets it.
    7. ``fallback(answer, eps)``, if given and not None; otherwise "value",
       with the worst value printed with enough digits to differ.

    Parameters
    ----------
    answer
        What the reader computed.
    expected : numpy.ndarray
        The right answer, in float64 (or bool / int with ``exact``).
    diagnoses : Diagnoses
        The checker's messages.
    name : str
        The name of the answer in the messages, e.g. ``"scores"``.
    layout : str
        What the shape means, ending the "shape" message.
    slips : iterable of (array or None, str, dict)
        Typical wrong answers, with the id of their diagnosis and its fields.
    shape_tips : dict of tuple to str, optional
        For a wrong shape, the id of the diagnosis that explains it.
    tip_fields : dict, optional
        The fields of those diagnoses' templates.
    right : dict, optional
        The fields of the checker's "right" template.
    exact : bool, default False
        Compare exactly (booleans, counts).
    fallback : callable, optional
        Called with the array and its eps for a wrong value.

    Returns
    -------
    Feedback

    Examples
    --------
    >>> d = Diagnoses("check_demo", "Right.", {"doubled": "You doubled it."}, register=False)
    >>> e = np.array([1.0, 2.0])
    >>> print(compare(np.float32(e), e, d, name="x", layout="two numbers."))
    ✓ Right.
    >>> print(compare(2 * e, e, d, name="x", layout="two numbers.", slips=[(2 * e, "doubled", {})]))
    ✗ You doubled it.
    >>> print(compare(e + [0, 1e-3], e, d, name="x", layout="two numbers."))
    ✗ Wrong value at position 1: 2.001 where 2 was expected.
    >>> print(compare(e + [0, 3e-7], e, d, name="x", layout="two numbers."))  # doctest: +NORMALIZE_WHITESPACE
    ✗ x is float64 but right only to float32's precision: its values differ by what float32's rounding
    gives, so part of it was probably computed in float32. Keep every step in one dtype: all float64, or
    all float32 (a float32 answer is judged at float32's precision).
    """
    got = read_answer(answer, name, diagnoses, exact=exact)
    if isinstance(got, Feedback):
        return got
    eps = precision(got)
    if close(got, expected, eps, exact=exact):
        return diagnoses.right(**(right or {}))
    for value, slip, values in slips:
        if value is not None and close(got, value, eps, exact=exact):
            return diagnoses.wrong(slip, **values)
    if not exact and "rounded" in diagnoses.ids and got.shape == np.shape(expected):
        decimals = rounded_to(got, expected, eps)
        if decimals is not None:
            return diagnoses.wrong("rounded", decimals=decimals)
    if got.shape != np.shape(expected):
        message = diagnoses.text("shape", name=name, got=got.shape, expected=np.shape(expected), layout=layout)
        tip = (shape_tips or {}).get(got.shape)
        if tip is None:
            return Feedback(False, message, "shape")
        return Feedback(False, f"{message} {diagnoses.text(tip, **(tip_fields or {}))}", tip)
    if not exact and np.any(~np.isfinite(got) & (got != np.asarray(expected))):  # not an expected inf
        return diagnoses.wrong("not-finite", name=name)
    if not exact and eps == EPS64 and "float32-inside" in diagnoses.ids and float32_sized(got, expected):
        return diagnoses.wrong("float32-inside", name=name)
    if fallback is not None:
        verdict = fallback(got, eps)
        if verdict is not None:
            return verdict
    return diagnoses.wrong("value", **wrong_value(got, expected, eps))
