"""``python -m selfattention.induction [experiment]``: train the copying model, or run the positions experiment.

* no argument (``make induction-weights``): train the book's model from its seed
  (:func:`~.training.train` with its defaults) and write ``weights.npz`` beside this file;
* ``experiment`` (``make induction-experiment``): train the other two designs of
  where positions enter, ``"qk"`` and ``"stream"``, with the same seed and
  settings, side by side in two processes; summarise them with the shipped
  ``"qk0"`` run and write ``positions.npz`` (:func:`~.designs.positions_experiment`;
  each design's whole run also goes to ``_build/induction-positions/``, not shipped).

Run either with ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` (the make targets
set them) so that the numbers are the same bit for bit on the same machine.
"""

import argparse
from pathlib import Path

from . import designs, training


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m selfattention.induction", description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", choices=("train", "experiment"), default="train")
    parser.add_argument("--quiet", action="store_true", help="no line per checkpoint")
    args = parser.parse_args(argv)
    log = None if args.quiet else lambda line: print(line, flush=True)
    if args.command == "train":
        run = training.train(log=log)
        training.save(run)
        print(f"trained {training.STEPS} steps from seed {training.SEED} in {run['seconds']:.1f} s; "
              f"wrote {training.WEIGHTS} ({training.WEIGHTS.stat().st_size:,} bytes)")
    else:
        results = designs.positions_experiment(runs_dir=Path("_build") / "induction-positions", log=log)
        print(f"wrote {designs.RESULTS} ({designs.RESULTS.stat().st_size:,} bytes)")
        print("\n".join(designs.results_table(results)))


if __name__ == "__main__":   # not when a process of the experiment imports this module
    main()
