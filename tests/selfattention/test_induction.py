"""The copying model: its task, its gradient, its training run (stepper and train), the shipped files, its KV cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from selfattention.induction import circuits, designs, gradients, model, task, training
from selfattention.induction.generation import continue_sequence

DATA = Path(__file__).parent / "data" / "induction_reference.npz"
#: Steps the stepper and train() both take in the equality test.
PREFIX = 200


@pytest.fixture(scope="module")
def shipped():
    return training.load()


@pytest.fixture(scope="module")
def prefix():
    """The first PREFIX steps of the book's run, once by stepping a Run and once by train()."""
    with threadpool_limits(limits=1):                  # as train() does: one BLAS thread, the same bits
        run = training.Run()
        steps = [run.step() for _ in range(PREFIX)]
        checkpoint = run.checkpoint()
    trained = training.train(steps=PREFIX, schedule_steps=training.STEPS)
    return {"run": run, "steps": steps, "checkpoint": checkpoint, "trained": trained}


# --- the task -------------------------------------------------------------------------------------

def test_every_marked_prediction_is_determined_by_its_key():
    for b in (task.copying_batch(200, np.random.default_rng(1)), task.classic_mix(200, np.random.default_rng(2))):
        rows, t = np.nonzero(b.second)
        assert (b.tokens[rows, t + 1] == b.tokens[rows, b.key[rows, t]]).all()      # the next symbol is copied
        assert (b.tokens[rows, t] == b.tokens[rows, b.key[rows, t] - 1]).all()      # after the same symbol
        assert not (b.first & b.second).any()
        assert (b.key[~b.second] == -1).all()


def test_copies_stand_anywhere_with_any_gap():
    b = task.copying_batch(2000, np.random.default_rng(3))
    rows, t = np.nonzero(b.second)
    distance = t + 1 - b.key[rows, t]
    assert distance.min() == 2 and distance.max() >= 28
    assert t.min() == 2 and t.max() == task.N_POSITIONS - 2
    assert np.mean(b.second.sum(axis=1) > 0) > 0.99


def test_a_classic_batch_repeats_k_symbols_at_once_at_its_offset():
    k, offset = 5, 11
    b = task.classic_batch(k, offset, 40, np.random.default_rng(0))
    np.testing.assert_array_equal(b.tokens[:, offset:offset + k], b.tokens[:, offset + k:offset + 2 * k])
    for row in range(40):
        assert np.flatnonzero(b.first[row]).tolist() == list(range(offset, offset + k - 1))
        assert np.flatnonzero(b.second[row]).tolist() == list(range(offset + k, offset + 2 * k - 1))
    t = np.arange(offset + k, offset + 2 * k - 1)
    np.testing.assert_array_equal(b.key[:, t], np.broadcast_to(t - k + 1, (40, k - 1)))
    others = np.delete(b.tokens, np.s_[offset + k:offset + 2 * k], axis=1)
    assert len(np.unique(others)) == task.VOCAB                   # the rest is random symbols, all 52 of them


def test_a_classic_mix_draws_k_and_offset_for_each_sequence():
    b = task.classic_mix(300, np.random.default_rng(5))
    k = b.second.sum(axis=1) + 1
    start = b.first.argmax(axis=1)
    assert k.min() == task.CLASSIC_SHORTEST and k.max() == task.N_POSITIONS // 2
    assert start.min() == 0 and (start + 2 * k <= task.N_POSITIONS).all()


def test_symbols_keep_their_case():
    assert task.symbols_to_tokens("aA zZ").tolist() == [26, 0, 51, 25]
    assert task.tokens_to_symbols(task.symbols_to_tokens("Induction")) == "Induction"


# --- the model and its gradient -------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [model.SIZES._replace(positions=p) for p in model.DESIGNS]
                         + [model.SIZES._replace(heads=h, positions=p) for h, p in (((1, 2), "qk0"), ((2, 2), "qk"),
                                                                                   ((1, 1), "stream"))],
                         ids=lambda s: f"{s.positions}-{s.heads}")
def test_every_parameter_matches_finite_differences(sizes):
    tokens = task.copying_batch(3, np.random.default_rng(0)).tokens
    assert gradients.check_gradients(model.init_params(3, sizes), tokens, sizes=sizes, per_parameter=6) < 1e-8


def test_forward_pass_matches_pytorch():
    # The reference (scripts/make_induction_reference.py) is the "qk" design with two heads in each layer
    # and its parameters stacked by layer: the same model at other sizes.
    with np.load(DATA) as f:
        ref = {k: f[k] for k in f.files}
    sizes = model.Sizes(vocab=16, n_positions=24, d_model=32, heads=(2, 2), d_head=16, positions="qk")
    params = {"W_E": ref["W_E"], "W_pos": ref["W_pos"], "W_U": ref["W_U"],
              **{f"{w}{layer}": ref[w][layer] for layer in range(2) for w in ("W_Q", "W_K", "W_V", "W_O")}}
    logits, trace = model.forward(params, ref["tokens"], sizes=sizes)
    np.testing.assert_allclose(logits, ref["logits"], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.stack([t["weights"] for t in trace]), ref["weights"], rtol=1e-10, atol=1e-12)
    ablated, _ = model.forward(params, ref["tokens"], sizes=sizes, ablate=[tuple(p) for p in ref["ablate"]])
    np.testing.assert_allclose(ablated, ref["logits_ablated"], rtol=1e-10, atol=1e-10)


def test_positions_enter_where_the_design_says():
    # One symbol repeated: every position's stream is the same, except for what position adds.
    tokens = np.full((1, 8), 3)
    for positions, layer0, layer1 in (("qk0", True, False), ("qk", True, True), ("stream", True, True)):
        sizes = model.SIZES._replace(positions=positions)
        _, trace = model.forward(model.init_params(0, sizes), tokens, sizes=sizes)
        for layer, sees in ((0, layer0), (1, layer1)):
            q = trace[layer]["q"][0, 0]                               # (n, d_head)
            assert (not np.allclose(q[0], q[5])) == sees, (positions, layer)
    _, trace = model.forward(model.init_params(0), tokens)
    np.testing.assert_allclose(trace[1]["x"][0, 0], trace[1]["x"][0, 5])  # qk0: position never enters the stream


def test_ablating_a_head_changes_only_what_it_adds():
    params, tokens = model.init_params(0), task.copying_batch(2, np.random.default_rng(0)).tokens
    _, full = model.forward(params, tokens)
    _, cut = model.forward(params, tokens, ablate=[(1, 0)])
    np.testing.assert_array_equal(full[1]["x"], cut[1]["x"])          # layer 0 untouched
    np.testing.assert_allclose(cut[1]["x_out"], cut[1]["x"])           # the only layer-1 head adds nothing


# --- training: the stepper and train() ----------------------------------------------------------

def test_the_stepper_is_the_training_run_bit_for_bit(prefix):
    trained = prefix["trained"]
    for key in training.STEP_KEYS:
        np.testing.assert_array_equal([s[key] for s in prefix["steps"]], trained["history"][key], err_msg=key)
    assert training.digest(prefix["run"].params) == training.digest(trained["params"])
    checkpoint = training._stack([prefix["checkpoint"]], model.SIZES)       # the lists as train() stacks them
    for key in training.CHECKPOINT_KEYS:
        np.testing.assert_array_equal(checkpoint[key], trained["checkpoints"][key][-1:], err_msg=key)


def test_a_short_retraining_repeats_the_shipped_run(prefix, shipped):
    """The same seed repeats the shipped run: bit for bit on a CPU of the same kind, within a few
    units of the last place on another. NumPy's ``exp`` and ``log`` and OpenBLAS pick their kernels by
    the CPU (AVX2 or AVX-512), and those round differently in the last bit (seen on this project's
    CI machine: 2 of the first 25 losses differ by 4.4e-16)."""
    trained = prefix["trained"]
    np.testing.assert_allclose(trained["history"]["loss"], shipped["history"]["loss"][:PREFIX], rtol=1e-13, atol=0)
    at = np.searchsorted(shipped["checkpoints"]["step"], trained["checkpoints"]["step"])
    for key in training.CHECKPOINT_KEYS:
        np.testing.assert_allclose(trained["checkpoints"][key], shipped["checkpoints"][key][at], rtol=1e-10,
                                   atol=1e-12, err_msg=key)


def test_a_step_reports_the_repeated_and_the_rest_loss_of_its_batch(prefix):
    last = prefix["steps"][-1]
    assert set(last) == set(training.STEP_KEYS) and last["step"] == PREFIX
    assert all(isinstance(v, float) for k, v in last.items() if k != "step")    # plain numbers for the browser
    first = prefix["steps"][0]
    assert abs(first["repeated_loss"] - first["rest_loss"]) < 0.5                # untrained: no copying yet
    # the training loss is the mean over both parts
    run = training.Run(steps=10)
    batch = task.copying_batch(training.BATCH, np.random.default_rng([training.SEED, 1]))
    step = run.step()
    share = batch.second.mean()
    assert step["loss"] == pytest.approx(share * step["repeated_loss"] + (1 - share) * step["rest_loss"], rel=1e-12)


def test_a_checkpoint_is_plain_json_with_one_score_per_head(prefix):
    import json

    c = prefix["checkpoint"]
    assert json.loads(json.dumps(c)) == c
    assert [len(layer) for layer in c["induction"]] == list(model.HEADS)
    assert c["step"] == PREFIX and c["repeated_loss"] < c["first_loss"]


def test_the_seed_decides_the_run():
    a, b = training.train(steps=2, eval_every=2), training.train(steps=2, eval_every=2, seed=1)
    assert training.digest(a["params"]) != training.digest(b["params"])


def test_a_run_stops_at_its_last_step():
    run = training.Run(steps=1, n_held_out=2)
    run.step()
    with pytest.raises(RuntimeError, match="all its 1 steps"):
        run.step()
    with pytest.raises(ValueError, match="shorter than the 5 steps"):
        training.train(steps=5, schedule_steps=4)


# --- the shipped files ----------------------------------------------------------------------------

def test_the_shipped_meta_matches_the_modules(shipped):
    meta = shipped["meta"]
    assert shipped["sizes"] == model.SIZES and shipped["task"] == task.TASK
    assert meta["sizes"]["heads"] == list(model.HEADS) and meta["sizes"]["positions"] == model.POSITIONS
    assert meta["task"]["symbols"] == task.SYMBOLS and meta["sizes"]["vocab"] == task.VOCAB
    t = meta["training"]
    assert (t["seed"], t["steps"], t["batch"], t["learning_rate"], t["betas"], t["eps"]) == (
        training.SEED, training.STEPS, training.BATCH, training.LEARNING_RATE, list(training.BETAS), training.EPS)
    assert t["final_learning_rate"] == pytest.approx(training.LEARNING_RATE * training.FINAL_SHARE)
    assert meta["history"]["eval_every"] == training.EVAL_EVERY
    assert meta["parameters"] == 33280 and meta["digest"] == training.digest(shipped["params"])
    assert len(shipped["history"]["loss"]) == training.STEPS
    np.testing.assert_array_equal(shipped["checkpoints"]["step"],
                                  np.arange(0, training.STEPS + 1, training.EVAL_EVERY))


def test_the_shipped_files_are_read_as_package_data(shipped):
    assert training.digest(training.load(training.WEIGHTS)["params"]) == training.digest(shipped["params"])
    results = designs.load_experiment()
    assert list(results["designs"]) == list(model.DESIGNS)
    assert results["designs"]["qk0"]["summary"]["digest"] == training.digest(shipped["params"])
    assert results["designs"]["qk0"]["checkpoints"]["step"].tolist() == shipped["checkpoints"]["step"].tolist()


def test_the_shipped_heads_are_a_previous_token_head_and_an_induction_head(shipped):
    named = circuits.named_heads(shipped["params"], task.classic_mix(128, np.random.default_rng(0)))
    assert named == {"previous": (0, 0), "induction": (1, 0)}
    for k, offset in ((4, 0), (4, 12), (8, 3), (12, 7), (16, 0)):
        batch = task.classic_batch(k, offset, 64, np.random.default_rng(k * 100 + offset))
        m = circuits.scores_and_losses(shipped["params"], batch)
        assert m["induction"][1, 0] >= 0.6 and m["second"] <= m["first"] / 4, (k, offset)


# --- key parts and the KV cache -------------------------------------------------------------------

@pytest.mark.parametrize("positions", model.DESIGNS)
def test_key_parts_add_up_to_the_score(positions, shipped):
    sizes = model.SIZES._replace(positions=positions)
    params = shipped["params"] if positions == "qk0" else model.init_params(1, sizes)
    parts = circuits.key_parts(params, task.symbols_to_tokens("XqBcdePBcd"), query=8, key=4, head=0, sizes=sizes)
    total = parts.pop("total")
    assert np.isclose(sum(parts.values()), total, rtol=1e-12, atol=1e-12)
    assert ("position" in parts) == (positions != "qk0")               # qk0: no position in layer 1's keys
    assert {"embedding", "head 0.0", "head 0.1"} <= set(parts)


def test_the_layer_0_heads_carry_the_induction_heads_match(shipped):
    # Query 8 ("c", after "B") on key 4 ("d", after the first "c", two after the first "B"): the match is
    # through what the layer-0 heads moved into key 4 (the symbols before it), not through its own symbol.
    tokens = task.symbols_to_tokens("XqBcdePBcd")
    parts = circuits.key_parts(shipped["params"], tokens, query=8, key=4, head=0)
    moved = parts["head 0.0"] + parts["head 0.1"]
    assert min(parts["head 0.0"], parts["head 0.1"]) > max(parts["embedding"], 0)
    assert moved > 0.9 * parts["total"]
    others = [circuits.key_parts(shipped["params"], tokens, query=8, key=k, head=0)["total"]
              for k in range(9) if k != 4]
    assert parts["total"] > max(others) + 2                           # the key it should read scores highest


@pytest.mark.parametrize("positions", model.DESIGNS)
def test_the_kv_cache_gives_the_full_pass(positions, shipped):
    sizes = model.SIZES._replace(positions=positions)
    params = shipped["params"] if positions == "qk0" else model.init_params(2, sizes)
    out = continue_sequence(params, "QwXattentionatt", 6, sizes=sizes)
    tokens = task.symbols_to_tokens(out["text"])
    logits, trace = model.forward(params, tokens[:-1], sizes=sizes)
    np.testing.assert_allclose(out["logits"], logits[0, 14:], rtol=1e-12, atol=1e-12)
    assert task.tokens_to_symbols(logits[0, 14:].argmax(axis=-1)) == out["text"][15:]
    for step, weights in enumerate(out["weights"]):
        t = 14 + step                                                  # the row that chose symbol t + 1
        for layer in range(model.LAYERS):
            np.testing.assert_allclose(weights[layer], trace[layer]["weights"][0, :, t, : t + 1], atol=1e-12)


def test_the_shipped_model_copies_what_it_has_seen_once(shipped):
    assert continue_sequence(shipped["params"], "QwXattentionatt", 6)["text"] == "QwXattentionattention"


# --- bad input --------------------------------------------------------------------------------------

def test_bad_input_is_named():
    params = model.init_params(0)
    bad = dict(params, W_O1=params["W_O1"][:16])
    with pytest.raises(ValueError, match=r"W_O1 must have shape \(32, 64\), got \(16, 64\)"):
        model.forward(bad, [0, 1])
    with pytest.raises(ValueError, match=r"missing \['W_Q1'\]"):
        model.forward({k: v for k, v in params.items() if k != "W_Q1"}, [0, 1])
    with pytest.raises(ValueError, match="'!1'"):
        task.symbols_to_tokens("AB1!")
    with pytest.raises(ValueError, match="symbols 0 to 51"):
        model.forward(params, [0, 52])
    with pytest.raises(ValueError, match=r"no head \(1, 1\): layers 0 to 1 have \(2, 1\) heads"):
        model.forward(params, [0, 1], ablate=[(1, 1)])
    with pytest.raises(ValueError, match="positions must be one of"):
        model.forward(params, [0, 1], sizes=model.SIZES._replace(positions="everywhere"))
    with pytest.raises(ValueError, match="does not fit in 32 positions"):
        task.classic_batch(9, 15, 1, np.random.default_rng(0))
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        task.copying_batch(2, 0)
    with pytest.raises(ValueError, match="cannot see key 5"):
        circuits.key_parts(params, [0, 1, 2, 3, 4, 5], query=4, key=5, head=0)
    with pytest.raises(ValueError, match="32 positions"):
        continue_sequence(params, "AB" * 10, 13)
    with pytest.raises(ValueError, match="must agree"):
        training.Run(sizes=model.SIZES._replace(vocab=26))
