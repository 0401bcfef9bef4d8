"""``python -m selfattention.induction``: train the copying model with the book's settings and write weights.npz."""

from .training import STEPS, WEIGHTS, save, train

result = train()
save(result)
print(f"trained {STEPS} steps in {result['seconds']:.1f} s; wrote {WEIGHTS}")
