"""Learning where to look: the loss of one head, its gradient, and gradient descent.

The smallest case the book trains has two words, ``apple = [1, 0]`` and
``sweet = [0, 1]``, one head and one target: sweet's output should be
``[1, 0]``, all apple. With ``W_K = W_V = I`` and
``W_Q = [[0, 0], [c, 0]]`` one number ``c`` decides how much sweet looks at
apple (:func:`~selfattention.apple_sweet_loss`, :func:`~selfattention.apple_sweet_gradient`,
:func:`~selfattention.descend`). The general case trains the full ``2 x 2`` matrices
``W_Q``, ``W_K`` and ``W_V`` with their analytic gradients
(:func:`~selfattention.head_loss_and_gradients`, :func:`~selfattention.train_head`,
:func:`~selfattention.training_run`).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import as_float_array, check_positive_int
from .head import attention_head

#: The two words of the example, in order (rows of :func:`~selfattention.apple_sweet`).
APPLE_SWEET = ("apple", "sweet")
#: The word whose output the loss compares with the target (sweet, row 1).
SWEET = 1
#: The learning rate of the book's gradient descent on ``c`` and on the matrices.
LEARNING_RATE = 1.0
#: The matrices a head has, in the order the functions take them.
MATRICES = ("w_q", "w_k", "w_v")
#: Steps of gradient descent in each "Go deeper" run.
RUN_STEPS = 1000
#: The four "Go deeper" runs: what is trained, and where it starts ("identity" or a seed).
RUNS = {
    1: {"train": ("w_q", "w_k"), "start": "identity"},
    2: {"train": ("w_q", "w_k", "w_v"), "start": "identity"},
    3: {"train": ("w_q", "w_k", "w_v"), "start": 1},
    4: {"train": ("w_q", "w_k", "w_v"), "start": 2},
}


def apple_sweet():
    """The two words and sweet's target output.

    Returns
    -------
    x : numpy.ndarray, shape (2, 2)
        apple = ``[1, 0]`` and sweet = ``[0, 1]``, one per row.
    target : numpy.ndarray, shape (2,)
        What sweet's output should be: ``[1, 0]``, apple itself.

    Examples
    --------
    >>> x, target = apple_sweet()
    >>> x.tolist(), target.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [1.0, 0.0])
    """
    x = np.array([[1.0, 0.0],     # apple
                  [0.0, 1.0]])    # sweet
    target = np.array([1.0, 0.0])  # (2,): sweet should become apple
    return x, target


def query_matrix(c):
    """The one-number query matrix ``W_Q = [[0, 0], [c, 0]]``.

    Sweet ``[0, 1]`` reads the second row, so its query is ``[c, 0]``;
    apple ``[1, 0]`` reads the first row and asks for nothing.

    Parameters
    ----------
    c : float
        The one learned number.

    Returns
    -------
    numpy.ndarray, shape (2, 2)

    Raises
    ------
    TypeError
        If ``c`` is not a real number.
    ValueError
        If ``c`` is NaN or infinite.

    Examples
    --------
    >>> query_matrix(0.5)
    array([[0. , 0. ],
           [0.5, 0. ]])
    """
    c = _real(c, "c")
    return np.array([[0.0, 0.0],
                     [c, 0.0]])


def apple_sweet_loss(c) -> dict:
    """Sweet's weight on apple, its output and the loss, for the number ``c``.

    Runs the head with ``W_Q = [[0, 0], [c, 0]]`` and ``W_K = W_V = I`` on
    apple and sweet, then compares sweet's output with the target ``[1, 0]``:
    ``loss = (out_x - 1)^2 + (out_y - 0)^2``.

    Parameters
    ----------
    c : float
        The number in ``W_Q``.

    Returns
    -------
    dict
        ``weight`` (sweet's weight on apple), ``output`` (sweet's output,
        shape (2,)) and ``loss`` (a float).

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.learning.query_matrix`.

    Examples
    --------
    At ``c = 0`` sweet's two scores are equal, so it takes half of each word:

    >>> r = apple_sweet_loss(0.0)
    >>> r["weight"], r["output"].tolist(), r["loss"]
    (0.5, [0.5, 0.5], 0.5)
    """
    x, target = apple_sweet()
    eye = np.eye(2)
    out, weights = attention_head(x, query_matrix(c), eye, eye, return_weights=True)  # (2, 2), (2, 2)
    output = out[SWEET]                                  # (2,) sweet's output
    loss = float(((output - target) ** 2).sum())         # (out_x - 1)^2 + (out_y - 0)^2
    return {"weight": float(weights[SWEET, 0]), "output": output, "loss": loss}


def apple_sweet_gradient(c) -> float:
    """The analytic derivative ``d loss / d c`` of :func:`~selfattention.apple_sweet_loss`.

    Sweet's scores are ``[c / sqrt(2), 0]``, so its weight on apple is
    ``w = sigmoid(c / sqrt(2))`` and its output ``[w, 1 - w]``. The loss is
    ``2 (1 - w)^2``, and by the chain rule

    ``d loss / d c = -4 (1 - w) * w (1 - w) / sqrt(2) = -2 sqrt(2) w (1 - w)^2``.

    Parameters
    ----------
    c : float
        The number in ``W_Q``.

    Returns
    -------
    float
        Negative for every ``c``: raising ``c`` always lowers the loss.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.learning.query_matrix`.

    Examples
    --------
    >>> round(apple_sweet_gradient(0.0), 4)
    -0.3536
    """
    w = apple_sweet_loss(c)["weight"]                   # sigmoid(c / sqrt(2))
    return float(-2.0 * np.sqrt(2.0) * w * (1.0 - w) ** 2)


def steepest_c() -> float:
    """The ``c`` where the loss is steepest: sweet's weight on apple is ``1/3`` there.

    A step of gradient descent moves ``c`` by ``learning_rate * 2 sqrt(2) w (1 - w)^2``.
    Its derivative in ``w`` is ``2 sqrt(2) (1 - w)(1 - 3 w)``, zero at ``w = 1/3``:
    the steps grow while ``w < 1/3`` and shrink after it. With
    ``w = sigmoid(c / sqrt(2))`` that is ``c = sqrt(2) ln(w / (1 - w)) = -sqrt(2) ln 2``.

    Returns
    -------
    float
        ``-sqrt(2) ln 2``, about ``-0.98``.

    Examples
    --------
    >>> c = steepest_c()
    >>> round(c, 4), round(apple_sweet_loss(c)["weight"], 12)
    (-0.9803, 0.333333333333)
    >>> abs(apple_sweet_gradient(c)) > max(abs(apple_sweet_gradient(c - 0.01)), abs(apple_sweet_gradient(c + 0.01)))
    True
    """
    return float(-np.sqrt(2.0) * np.log(2.0))


def gradient_step(c, learning_rate=LEARNING_RATE) -> float:
    """One step of gradient descent on ``c``: ``c - learning_rate * d loss / d c``.

    Parameters
    ----------
    c : float
        Where the step starts.
    learning_rate : float, default :data:`~selfattention.learning.LEARNING_RATE`
        How far to move per unit of gradient; positive.

    Returns
    -------
    float
        The new ``c``.

    Raises
    ------
    TypeError
        If ``c`` or ``learning_rate`` is not a real number.
    ValueError
        If either is not finite, or ``learning_rate`` is not positive.

    Examples
    --------
    >>> round(gradient_step(0.0), 4)
    0.3536
    """
    lr = _learning_rate(learning_rate)
    c = _real(c, "c")
    return c - lr * apple_sweet_gradient(c)


def descend(c0=0.0, steps=200, learning_rate=LEARNING_RATE):
    """Gradient descent on ``c`` from ``c0``: every ``c`` it visits.

    Parameters
    ----------
    c0 : float, default 0.0
        The start.
    steps : int, default 200
        How many steps to take (a positive integer).
    learning_rate : float, default :data:`~selfattention.learning.LEARNING_RATE`
        As in :func:`~selfattention.gradient_step`.

    Returns
    -------
    numpy.ndarray, shape (steps + 1,)
        ``c`` before the first step, then after each step.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.gradient_step`, or if ``steps`` is not a positive integer.

    Examples
    --------
    >>> descend(0.0, 3).round(3)
    array([0.   , 0.354, 0.658, 0.917])
    """
    steps = check_positive_int(steps, "steps")
    lr = _learning_rate(learning_rate)
    path = [_real(c0, "c0")]
    for _ in range(steps):
        path.append(gradient_step(path[-1], lr))
    return np.array(path)


def head_loss_and_gradients(w_q, w_k, w_v, x=None, target=None, word=SWEET) -> dict:
    """The loss of one head on one word, and its analytic gradient for each matrix.

    Every vector is a row, as in chapter 5's "Go deeper" box. Forward:
    ``q = x[word] W_Q`` (1, d_k), ``K = X W_K`` (L, d_k), ``V = X W_V`` (L, d_v),
    ``z = q K^T / sqrt(d_k)`` (1, L), ``w = softmax(z)`` (1, L), ``out = w V``
    (1, d_v) and ``loss = |out - target|^2``. Backward, by the chain rule from
    the end: ``g_out = 2 (out - target)``, ``g_V = w^T g_out`` (an outer product,
    (L, d_v)), ``g_w = g_out V^T`` (1, L), ``g_z = w * (g_w - g_w w^T)``
    (softmax), ``g_q = g_z K / sqrt(d_k)`` (1, d_k), ``g_K = g_z^T q / sqrt(d_k)``
    (L, d_k); then ``dW_Q = x[word]^T g_q``, ``dW_K = X^T g_K`` and
    ``dW_V = X^T g_V``.

    Parameters
    ----------
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.
    w_v : array_like, shape (d_model, d_v)
        Value matrix.
    x : array_like, shape (L, d_model), optional
        The words; apple and sweet by default.
    target : array_like, shape (d_v,), optional
        The output wanted for ``word``; ``[1, 0]`` by default.
    word : int, default :data:`~selfattention.learning.SWEET`
        The row of ``x`` whose output is compared with ``target``.

    Returns
    -------
    dict
        ``loss`` (float), ``weights`` (the word's weights, shape (L,)),
        ``output`` (shape (d_v,)), and ``w_q``, ``w_k``, ``w_v``: the
        gradient of the loss for each matrix, each of that matrix's shape.

    Raises
    ------
    TypeError
        If an input is not numeric, or ``word`` is not an integer.
    ValueError
        If the shapes do not fit together, ``word`` is not a row of ``x``,
        or an input has NaN or inf.

    Examples
    --------
    The one-number case, ``c = 0``: the gradient for the entry ``W_Q[1, 0]``
    is ``d loss / d c``.

    >>> import numpy as np
    >>> g = head_loss_and_gradients(query_matrix(0.0), np.eye(2), np.eye(2))
    >>> g["loss"], round(float(g["w_q"][1, 0]), 4)
    (0.5, -0.3536)
    """
    if x is None:
        x = apple_sweet()[0]
    if target is None:
        target = apple_sweet()[1]
    x = as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (L, d_model), got {x.shape}")
    if isinstance(word, bool) or not isinstance(word, numbers.Integral):
        raise TypeError(f"word must be an integer row of x, got {word!r}")
    if not 0 <= word < x.shape[0]:
        raise ValueError(f"word must be a row of x, from 0 to {x.shape[0] - 1}, got {word}")
    w_q, w_k, w_v = (as_float_array(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    out_all, w_all = attention_head(x, w_q, w_k, w_v, return_weights=True)  # checks every shape
    target = as_float_array(target, "target")
    if target.shape != (w_v.shape[-1],):
        raise ValueError(f"target must have shape (d_v,) = ({w_v.shape[-1]},) to match w_v {w_v.shape}, "
                         f"got {target.shape}")
    d_k = w_q.shape[1]
    q = x[word] @ w_q                       # (d_k,)   the word's query
    k = x @ w_k                             # (L, d_k)
    v = x @ w_v                             # (L, d_v)
    weights = w_all[word]                   # (L,)     softmax(k q / sqrt(d_k))
    out = out_all[word]                     # (d_v,)   weights @ v
    loss = float(((out - target) ** 2).sum())
    g_out = 2.0 * (out - target)            # (d_v,)
    g_v = np.outer(weights, g_out)          # (L, d_v)
    g_w = v @ g_out                         # (L,)
    g_z = weights * (g_w - weights @ g_w)   # (L,)     through the softmax
    g_q = k.T @ g_z / np.sqrt(d_k)          # (d_k,)
    g_k = np.outer(g_z, q) / np.sqrt(d_k)   # (L, d_k)
    return {"loss": loss, "weights": weights, "output": out,
            "w_q": np.outer(x[word], g_q),  # (d_model, d_k)
            "w_k": x.T @ g_k,               # (d_model, d_k)
            "w_v": x.T @ g_v}               # (d_model, d_v)


def start_matrices(start) -> dict:
    """Where a training run starts: three identity matrices, or three seeded random ones.

    Parameters
    ----------
    start : "identity" or int
        ``"identity"``, or the seed of :func:`numpy.random.default_rng`;
        each entry is then drawn from a standard normal distribution.

    Returns
    -------
    dict
        ``w_q``, ``w_k``, ``w_v``: each a new ``(2, 2)`` array.

    Raises
    ------
    TypeError
        If ``start`` is neither ``"identity"`` nor an integer.

    Examples
    --------
    >>> start_matrices("identity")["w_v"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> start_matrices(1)["w_q"].round(2).tolist()
    [[0.35, 0.82], [0.33, -1.3]]
    """
    if isinstance(start, str) and start == "identity":
        return {name: np.eye(2) for name in MATRICES}
    if isinstance(start, bool) or not isinstance(start, numbers.Integral):
        raise TypeError(f"start must be 'identity' or an integer seed, got {start!r}")
    drawn = np.random.default_rng(int(start)).standard_normal((3, 2, 2))  # (3 matrices, 2, 2)
    return {name: drawn[i] for i, name in enumerate(MATRICES)}


def train_head(w_q, w_k, w_v, *, train=MATRICES, steps=RUN_STEPS, learning_rate=LEARNING_RATE) -> dict:
    """Gradient descent on the matrices named in ``train``; the others stay fixed.

    Every step moves each trained matrix against its gradient from
    :func:`~selfattention.head_loss_and_gradients` (apple and sweet, target ``[1, 0]``).

    Parameters
    ----------
    w_q, w_k, w_v : array_like, shape (2, 2)
        The starting matrices (not changed: the function works on copies).
    train : sequence of str, default all three, keyword-only
        Which of ``"w_q"``, ``"w_k"``, ``"w_v"`` to train.
    steps : int, default :data:`~selfattention.learning.RUN_STEPS`, keyword-only
        How many steps.
    learning_rate : float, default :data:`~selfattention.learning.LEARNING_RATE`, keyword-only
        As in :func:`~selfattention.gradient_step`.

    Returns
    -------
    dict
        ``w_q``, ``w_k``, ``w_v`` after training; ``losses``, shape
        ``(steps + 1,)`` (before the first step, then after each);
        ``weights``, the ``(2, 2)`` attention map after training (row: the
        word that looks); ``loss``, the final loss.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.head_loss_and_gradients` and :func:`~selfattention.gradient_step`, or if
        ``train`` is empty or names an unknown matrix.

    Examples
    --------
    Train only ``W_V``: the loss falls, and the weights never move.

    >>> import numpy as np
    >>> r = train_head(np.eye(2), np.eye(2), np.eye(2), train=["w_v"], steps=200)
    >>> bool(r["losses"][0] > r["loss"]), r["weights"].round(3)[1].tolist()
    (True, [0.33, 0.67])
    """
    train = [train] if isinstance(train, str) else list(train)
    if not train or any(name not in MATRICES for name in train) or len(set(train)) != len(train):
        raise ValueError(f"train must name some of {list(MATRICES)}, each once, got {train}")
    steps = check_positive_int(steps, "steps")
    lr = _learning_rate(learning_rate)
    mats = {name: as_float_array(w, name).astype(np.float64).copy()
            for name, w in zip(MATRICES, (w_q, w_k, w_v))}
    losses = []
    for _ in range(steps):
        g = head_loss_and_gradients(mats["w_q"], mats["w_k"], mats["w_v"])
        losses.append(g["loss"])
        for name in train:
            mats[name] -= lr * g[name]
    final = head_loss_and_gradients(mats["w_q"], mats["w_k"], mats["w_v"])
    losses.append(final["loss"])
    x = apple_sweet()[0]
    _, weights = attention_head(x, mats["w_q"], mats["w_k"], mats["w_v"], return_weights=True)  # (2, 2)
    return {**mats, "losses": np.array(losses), "weights": weights, "loss": final["loss"]}


def training_run(number, *, steps=RUN_STEPS, learning_rate=LEARNING_RATE) -> dict:
    """One of the four "Go deeper" runs of :data:`~selfattention.learning.RUNS`, trained from its start.

    Parameters
    ----------
    number : int
        1 (``W_Q`` and ``W_K``, ``W_V = I``), 2 (all three from the
        identity), 3 or 4 (all three from the random starts of seeds 1 and 2).
    steps, learning_rate
        As in :func:`~selfattention.train_head`.

    Returns
    -------
    dict
        What :func:`~selfattention.train_head` returns, plus ``number``, ``train``,
        ``start`` and ``sweet_on_apple`` (sweet's weight on apple after
        training).

    Raises
    ------
    ValueError
        If ``number`` is not a key of :data:`~selfattention.learning.RUNS`.

    Examples
    --------
    >>> r = training_run(1, steps=50)
    >>> r["train"], r["start"], r["sweet_on_apple"] > 0.9
    (('w_q', 'w_k'), 'identity', True)
    """
    if number not in RUNS or isinstance(number, bool):
        raise ValueError(f"number must be one of the runs {list(RUNS)}, got {number!r}")
    spec = RUNS[number]
    start = start_matrices(spec["start"])
    result = train_head(start["w_q"], start["w_k"], start["w_v"], train=spec["train"], steps=steps,
                        learning_rate=learning_rate)
    return {**result, "number": number, "train": spec["train"], "start": spec["start"],
            "sweet_on_apple": float(result["weights"][SWEET, 0])}


def _real(value, name: str) -> float:
    """``value`` as a finite float, or a clear TypeError / ValueError."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def _learning_rate(value) -> float:
    lr = _real(value, "learning_rate")
    if lr <= 0:
        raise ValueError(f"learning_rate must be positive, got {lr}")
    return lr


__all__ = [
    "APPLE_SWEET", "LEARNING_RATE", "MATRICES", "RUNS", "RUN_STEPS", "SWEET", "apple_sweet",
    "apple_sweet_gradient", "apple_sweet_loss", "descend", "gradient_step",
    "head_loss_and_gradients", "query_matrix", "start_matrices", "steepest_c", "train_head", "training_run",
]
