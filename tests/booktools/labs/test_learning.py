"""The "learning" lab's configuration and fixture come from the package."""

from __future__ import annotations

import pytest

import selfattention as sa
from booktools.labs import fixture
from booktools.labs.learning import BUTTONS, learning_config, learning_fixture, learning_lab, learning_shown


def test_the_fixture_follows_descend_and_starts_at_the_syllabus_numbers():
    config = learning_config()
    f = learning_fixture(config)
    by_name = {s["name"]: s for s in f["states"]}
    assert by_name["start"]["shown"]["loss"] == "0.5000" and by_name["start"]["shown"]["gradient"] == "-0.3536"
    for n in BUTTONS:
        state = by_name["1 step" if n == 1 else f"{n} steps"]
        assert state["c"] == sa.descend(0.0, n)[-1] and state["steps"] == n
    assert by_name["1 then 10 steps"]["c"] == sa.descend(sa.descend(0.0, 1)[-1], 10)[-1]
    assert by_name["slider right 5"]["c"] == 0.5 and by_name["slider left 12"]["c"] == -1.2
    assert by_name["slider End, then 10 steps"]["c"] == sa.descend(8.0, 10)[-1]
    assert by_name["200 steps, then slider Home"]["c"] == -2.0
    assert fixture("learning", config) == f


def test_shown_numbers_are_the_package_numbers_formatted():
    config = learning_config()
    got = learning_shown(1.0, 3, config)
    assert got["loss"] == f"{sa.apple_sweet_loss(1.0)['loss']:.4f}"
    assert got["step"] == f"{-sa.apple_sweet_gradient(1.0):.4f}" and got["steps"] == "3"


@pytest.mark.parametrize("kwargs, error", [({"c0": 9.0}, ValueError), ({"learning_rate": 0.0}, ValueError),
                                           ({"c0": "0"}, TypeError)])
def test_bad_configuration_is_refused(kwargs, error):
    with pytest.raises(error):
        learning_lab(**kwargs)
