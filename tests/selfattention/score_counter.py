"""Count the scores a real run of the tiny decoder computes, step by step.

Every attention of :mod:`selfattention.generation` (the full pass of
``decoder_forward`` and the grouped-query attention of ``decode_step``) goes
through the module's ``scaled_dot_product_attention``, once per layer and
step. :func:`counted_steps` wraps it, records the number of queries ``L``,
the number of keys ``S`` and the scores of one head (the entries its mask
lets through), and groups the calls into steps. The chapter "One word at a
time" states its counts from ``scores_per_step``; the tests compare them with
what this counter sees.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

import selfattention.generation as gen


class Step(NamedTuple):
    """One step of a run: ``L`` queries against ``S`` keys; ``scores`` of one head in one layer."""

    L: int
    S: int
    scores: int


@contextmanager
def counted_steps(model):
    """Record the steps of every run of ``model`` inside the ``with`` block into the yielded list."""
    original = gen.scaled_dot_product_attention
    calls: list[tuple[int, int, int]] = []

    def counting(q, k, v, *, mask=None, causal=False, **kwargs):
        L, S = q.shape[-2], k.shape[-2]
        assert not causal  # the decoder passes its masks explicitly
        allowed = np.ones((L, S), bool) if mask is None else np.broadcast_to(mask, (L, S))
        calls.append((L, S, int(allowed.sum())))
        return original(q, k, v, mask=mask, causal=causal, **kwargs)

    steps: list[Step] = []
    gen.scaled_dot_product_attention = counting
    try:
        yield steps
    finally:
        gen.scaled_dot_product_attention = original
        for i in range(0, len(calls), model.layers):
            layer_calls = calls[i:i + model.layers]
            assert len(set(layer_calls)) == 1, layer_calls  # every layer of a step counts the same
            steps.append(Step(*layer_calls[0]))
