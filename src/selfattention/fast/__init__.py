"""The fast layer: the same attention as the reference, computed for speed.

The chapters read :mod:`selfattention.attention`, where attention is the
formula and nothing else. What the benchmark and the timed pages run is
here, tested equal to the reference up to rounding:

* :func:`scaled_dot_product_attention` -- plain attention with the
  reference's arguments, answers and errors: the whole table of weights,
  filled a block of query rows at a time, on every core
  (:mod:`selfattention.fast.attention`);
* :func:`blockwise_attention` -- exact attention that never holds the
  whole table: keys in blocks, with an online softmax
  (:mod:`selfattention.fast.blockwise`);
* :mod:`selfattention.fast.scores` -- the scores of one tile, and the
  bound that lets softmax skip subtracting a row's maximum;
* :mod:`selfattention.fast.normal` -- the normal distribution's Φ from a
  table of Taylor series, equal to ``math.erfc`` to rounding and vectorised:
  the float64 :func:`~selfattention.gelu` and the writer's training use it;
* :mod:`selfattention.fast.threads` -- the thread pool, with NumPy's BLAS
  held to one thread (threadpoolctl) while it runs.

Examples
--------
>>> import numpy as np
>>> from selfattention import attention, fast
>>> x = [[2, 0], [1, 1], [0, 2]]
>>> ref = attention.scaled_dot_product_attention(x, x, x)
>>> bool(np.allclose(fast.scaled_dot_product_attention(x, x, x), ref, rtol=0, atol=1e-15))
True
>>> bool(np.allclose(fast.blockwise_attention(x, x, x, block_size=2), ref, rtol=0, atol=1e-15))
True
"""

from .attention import scaled_dot_product_attention
from .blockwise import blockwise_attention

__all__ = ["blockwise_attention", "scaled_dot_product_attention"]
