"""Self-checks, folds, progress, the skip test and shortcuts in a real browser."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

CHAPTER = "weighted-average.html"


def check_data(page, check_id):
    raw = page.locator(f"#check-{check_id} script.sa-check-data").text_content()
    return json.loads(raw)


def answer_text(page, check_id, text):
    box = page.locator(f"#check-{check_id}")
    box.locator("input[name=answer]").fill(text)
    box.locator("button.sa-submit").click()
    return box.locator(".sa-feedback")


def choose(page, check_id, index):
    box = page.locator(f"#check-{check_id}")
    box.locator(f"input[type=radio][value='{index}']").check()
    box.locator("button.sa-submit").click()
    return box.locator(".sa-feedback")


@pytest.fixture
def chapter(page, site_url):
    page.goto(f"{site_url}/{CHAPTER}", wait_until="domcontentloaded")
    page.wait_for_selector(".sa-progress")
    page.locator("details.sa-skip-test, .sa-skip-test details").first.evaluate("d => d.open = true")
    return page


def test_number_check_accepts_the_right_answer_and_hints_on_a_wrong_one(chapter):
    hint = check_data(chapter, "wa-raw-cat-dog")["hint"]
    feedback = answer_text(chapter, "wa-raw-cat-dog", "3")
    assert hint in feedback.text_content()
    assert feedback.get_attribute("data-tone") == "wrong"
    feedback = answer_text(chapter, "wa-raw-cat-dog", "2.000")
    assert feedback.text_content().startswith("Correct")


@pytest.mark.parametrize("text", ["1.72", "1.720", " 1.72 ", "1.7206"])
def test_number_check_with_decimals_accepts_ways_of_writing_it(chapter, text):
    assert answer_text(chapter, "wa-cat-out-x", text).text_content().startswith("Correct")


def test_number_check_with_decimals_rejects_a_rounding_too_far(chapter):
    assert answer_text(chapter, "wa-cat-out-x", "1.7").get_attribute("data-tone") == "wrong"


def test_number_parser_reads_every_reasonable_form(chapter):
    values = chapter.evaluate("""async () => {
        const m = await import('./_static/sa/selfcheck.js');
        return ['1.72', '1.720', '.5', '-0.35', '8.88e-16', '\u22120.35', 'abc', '1.2.3']
          .map(m.parseNumber);
    }""")
    assert values == [1.72, 1.72, 0.5, -0.35, 8.88e-16, -0.35, None, None]


def test_a_text_that_is_not_a_number_is_not_counted_as_a_try(chapter):
    feedback = answer_text(chapter, "wa-raw-cat-dog", "two")
    assert feedback.get_attribute("data-tone") == "info"
    assert "Write a number" in feedback.text_content()


def test_choose_check_shows_the_hint_written_for_the_wrong_choice(chapter):
    data = check_data(chapter, "wa-w02")
    feedback = choose(chapter, "wa-w02", 0)
    assert data["hints"][0] in feedback.text_content()
    feedback = choose(chapter, "wa-w02", 3)
    assert data["hints"][3] in feedback.text_content()
    assert choose(chapter, "wa-w02", 1).text_content().startswith("Correct")


def test_choices_appear_in_the_stated_order(chapter):
    labels = chapter.locator("#check-wa-w02 label.sa-choice").all_text_contents()
    assert [t.strip() for t in labels][1] == "How much word 0 (cat) takes from word 2 (car)"


@pytest.mark.parametrize("text", ["(5, 5)", "5x5", "5, 5", "[5,5]", "5 × 5"])
def test_shape_check_accepts_common_spellings(chapter, text):
    assert answer_text(chapter, "skip-shape", text).text_content().startswith("Correct")


def test_shape_check_rejects_a_wrong_shape_with_its_hint(chapter):
    hint = check_data(chapter, "skip-shape")["hint"]
    feedback = answer_text(chapter, "skip-shape", "(5, 4)")
    assert hint in feedback.text_content()


def test_show_answer_appears_after_two_wrong_tries(chapter):
    box = chapter.locator("#check-wa-raw-cat-dog")
    answer_text(chapter, "wa-raw-cat-dog", "5")
    assert box.locator(".sa-show-answer").is_hidden()
    answer_text(chapter, "wa-raw-cat-dog", "6")
    assert box.locator(".sa-show-answer").is_visible()
    box.locator(".sa-show-answer").click()
    assert box.locator("details.sa-answer").is_visible()
    assert "The answer is 2" in box.locator(".sa-feedback").text_content()


def test_predict_first_reveals_the_result_only_after_a_guess(chapter):
    box = chapter.locator("#check-wa-car55")
    data = check_data(chapter, "wa-car55")
    assert box.locator("details.sa-answer").is_hidden()
    box.locator("input[type=radio][value='1']").check()
    box.locator("button.sa-submit").click()
    feedback = box.locator(".sa-feedback").text_content()
    assert "not right" in feedback and data["reveal"] in feedback
    assert box.locator("input[type=radio]").first.is_disabled()
    assert box.locator("details.sa-answer").is_visible()


def test_predict_first_says_when_the_guess_was_right(chapter):
    box = chapter.locator("#check-wa-car55")
    box.locator("input[type=radio][value='0']").check()
    box.locator("button.sa-submit").click()
    assert box.locator(".sa-feedback").text_content().startswith("Your guess was right")


def test_fold_hides_what_follows_until_answered(chapter):
    folded = chapter.locator(".sa-folded")
    n = folded.count()
    assert n > 0
    first = folded.first
    assert first.is_hidden()
    answer_text(chapter, "wa-raw-cat-dog", "2")
    assert chapter.locator(".sa-folded").count() < n


def test_show_the_rest_anyway_always_unfolds(chapter):
    bar = chapter.locator(".sa-fold-bar").first
    button = bar.locator("button")
    assert button.get_attribute("aria-expanded") == "false"
    before = chapter.locator(".sa-folded").count()
    button.click()
    assert chapter.locator(".sa-folded").count() < before
    assert bar.is_hidden()


def test_folded_text_is_in_the_html(built_book):
    html = (built_book / CHAPTER).read_text(encoding="utf-8")
    assert "only their first numbers meet" in html  # folded at first, but present


def test_progress_survives_a_reload_and_reset_clears_it(chapter):
    answer_text(chapter, "wa-raw-cat-dog", "2")
    count = chapter.locator(".sa-progress-count")
    assert "answered: 1 of" in count.text_content()
    chapter.reload()
    chapter.wait_for_selector(".sa-progress")
    assert "answered: 1 of" in chapter.locator(".sa-progress-count").text_content()
    assert "correctly earlier" in chapter.locator("#check-wa-raw-cat-dog .sa-feedback").text_content()
    chapter.locator("button.sa-reset").click()
    chapter.wait_for_load_state()
    chapter.wait_for_selector(".sa-progress")
    assert "answered: 0 of" in chapter.locator(".sa-progress-count").text_content()
    stored = chapter.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('sa-progress'))")
    assert stored == []


def test_passing_the_skip_test_marks_the_chapter_done_and_offers_the_next(chapter):
    flat = check_data(chapter, "skip-flat")["shown"]
    answer_text(chapter, "skip-flat", flat)
    answer_text(chapter, "skip-shape", "5x5")
    choose(chapter, "skip-output", 1)
    result = chapter.locator(".sa-skip-result")
    assert "marked as done" not in result.text_content()
    answer_text(chapter, "skip-cat-car", "0")
    assert "marked as done" in result.text_content()
    assert result.locator("a.sa-next").count() == 1
    assert "chapter done" in chapter.locator(".sa-progress-count").text_content()


def test_keyboard_only_answering(chapter):
    chapter.locator("#wa-raw-cat-dog-input").focus()
    chapter.keyboard.type("2")
    chapter.keyboard.press("Enter")
    assert chapter.locator("#check-wa-raw-cat-dog .sa-feedback").text_content().startswith("Correct")
    radio = chapter.locator("#check-wa-w02 input[type=radio][value='1']")
    radio.focus()
    chapter.keyboard.press("Space")
    assert radio.is_checked()
    chapter.keyboard.press("Tab")  # the Check button
    chapter.keyboard.press("Enter")
    assert chapter.locator("#check-wa-w02 .sa-feedback").text_content().startswith("Correct")


def test_results_are_announced_to_screen_readers(chapter):
    feedbacks = chapter.locator(".sa-check .sa-feedback")
    assert feedbacks.count() == chapter.locator(".sa-check").count()
    for i in range(feedbacks.count()):
        assert feedbacks.nth(i).get_attribute("aria-live") == "polite"


def test_question_mark_opens_the_shortcuts_and_escape_closes_them(chapter):
    chapter.locator("body").click(position={"x": 5, "y": 300})
    chapter.keyboard.press("?")
    dialog = chapter.locator("dialog.sa-shortcuts")
    assert dialog.is_visible()
    assert "Keyboard shortcuts" in dialog.text_content()
    chapter.keyboard.press("Escape")
    assert dialog.is_hidden()


def test_focus_is_visible_on_self_check_controls(chapter):
    chapter.locator("#wa-raw-cat-dog-input").focus()
    chapter.keyboard.press("Tab")
    outline = chapter.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")


def test_chapter_carries_a_strict_csp_and_runs_without_errors(chapter, built_book):
    html = (built_book / CHAPTER).read_text(encoding="utf-8")
    meta = html.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    script_src = next(p for p in meta.split(";") if p.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    for part in ("default-src 'self'", "object-src 'none'", "base-uri 'self'"):
        assert part in meta
    chapter.wait_for_load_state("networkidle")
    answer_text(chapter, "wa-raw-cat-dog", "2")
    assert chapter.watch.console_errors == []
    assert chapter.watch.foreign == []


def test_our_self_checks_use_no_inline_scripts(built_book):
    html = (built_book / CHAPTER).read_text(encoding="utf-8")
    for block in html.split('<section class="sa-check"')[1:]:
        section = block.split("</section>", 1)[0]
        assert section.count("<script") == section.count('<script type="application/json"')
        assert " onclick=" not in section


def test_notebook_download_link_works(chapter, site_url):
    link = chapter.locator(".sa-download a")
    href = link.get_attribute("href")
    response = chapter.request.get(f"{site_url}/{href}")
    assert response.ok
    nb = json.loads(response.text())
    assert nb["nbformat"] == 4 and len(nb["cells"]) > 10
