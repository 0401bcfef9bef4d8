"""``python -m <package>.induction``: train the proposal's model from its seed and write weights.npz beside this file."""

from pathlib import Path

from .training import SEED, STEPS, save, train

run = train()
path = Path(__file__).with_name("weights.npz")
save(run, path, settings={"steps": STEPS})
print(f"trained {STEPS} steps from seed {SEED} in {run['seconds']:.1f} s; wrote {path}")
