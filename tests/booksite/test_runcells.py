"""Which pages load the Run-button script (booksite.runcells.page_runs)."""

import pytest

from booksite.runcells import page_runs

EXERCISE_WITH_CODE = ('<div class="exercise admonition" id="ex-1"><p>Write it.</p><div class="highlight"><pre>'
                      "scores = ...\nsa.check_scores(scores)</pre></div></div>")
EXERCISE_WITHOUT_CODE = '<div class="exercise admonition" id="ex-2"><p>Guess first, then check.</p></div>'


@pytest.mark.parametrize("body, runs", [
    ('<div class="cell tag_run docutils container">', True),
    ('<div class="cell tag_remove-output tag_run docutils container">', True),   # run among other tags
    ('<div class="cell tag_run-later docutils container">', False),             # another tag
    ('<div class="cell tag_runs docutils container">', False),
    ('<div class="cell docutils container">', False),
    (EXERCISE_WITH_CODE, True),
    (EXERCISE_WITHOUT_CODE, False),
    # The only exercise has no code; a checker call later on the page is not the exercise's.
    (EXERCISE_WITHOUT_CODE + '<div class="cell docutils container"><pre>sa.check_scores(s)</pre></div>', False),
    (EXERCISE_WITHOUT_CODE + EXERCISE_WITH_CODE, True),
])
def test_page_runs_only_for_a_run_cell_or_a_code_exercise(body, runs):
    assert page_runs(body) is runs
