"""The referent game of the chapter "Words are islands".

Three rounds. Each shows a sentence with the pronoun "it" marked; the reader
picks the noun that "it" refers to, with a button per noun (mouse, touch or
keyboard). A wrong pick gets a hint that names what went wrong, and the
reader tries again; a right pick says why, and the next round starts. The
answers are facts about English, not computations: what a trained model does
with these sentences is measured in the chapter "Attention in a real model".
The page emits the element (:func:`referent_game_lab`);
``_static/sa/labs/referent-game.js`` plays it; the browser tests play every
round from the page's configuration (:func:`referent_game_fixture`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The three rounds: the sentence around "it", the nouns to choose from, the
#: answer, why it is right, and a hint for each wrong noun.
ROUNDS = (
    {"before": "The cat sat on the mat because", "after": "was tired.",
     "nouns": ("cat", "mat"), "answer": "cat",
     "why": "Only something alive gets tired: the cat.",
     "hints": {"mat": "Can a mat be tired? Read the last word again: what kind of thing gets tired?"}},
    {"before": "The cat sat on the mat because", "after": "was soft.",
     "nouns": ("cat", "mat"), "answer": "mat",
     "why": "A cat sits somewhere because the place is soft: the mat. Only the last word changed, "
            "and the answer with it.",
     "hints": {"cat": "A soft cat is no reason to sit somewhere. What would make a place worth sitting on?"}},
    {"before": "The animal didn't cross the street because", "after": "was too wide.",
     "nouns": ("animal", "street"), "answer": "street",
     "why": "A street can be too wide to cross; an animal cannot. As in every round, the word "
            "that decided it, wide, comes after \u201cit\u201d.",
     "hints": {"animal": "Would an animal be too wide to cross a street? Which of the two can be wide "
                         "and hard to cross?"}},
)


def referent_game_config(rounds: Sequence[Mapping] = ROUNDS) -> dict:
    """The game's JSON configuration, checked.

    Parameters
    ----------
    rounds : sequence of mapping, default :data:`ROUNDS`
        Each with ``before`` and ``after`` (the sentence around "it"),
        ``nouns`` (2 or more, each a word of the sentence), ``answer`` (one
        of them), ``why`` and ``hints`` (one per wrong noun).

    Returns
    -------
    dict
        ``pronoun`` ("it") and ``rounds`` (lists instead of tuples).

    Raises
    ------
    ValueError
        If there are no rounds, a noun is not in its sentence, the answer
        is not a noun, or a wrong noun has no hint (or a hint has no noun).

    Examples
    --------
    >>> c = referent_game_config()
    >>> len(c["rounds"]), c["rounds"][0]["answer"], c["rounds"][2]["nouns"]
    (3, 'cat', ['animal', 'street'])
    """
    if not rounds:
        raise ValueError("the game needs at least one round")
    out = []
    for i, r in enumerate(rounds):
        nouns = list(r["nouns"])
        sentence = f"{r['before']} it {r['after']}".lower()
        if len(nouns) < 2 or len(set(nouns)) != len(nouns):
            raise ValueError(f"round {i}: needs 2 or more different nouns, got {nouns}")
        for noun in nouns:
            if noun.lower() not in sentence.split(" ") and f"{noun.lower()}." not in sentence.split(" "):
                raise ValueError(f"round {i}: {noun!r} is not a word of {sentence!r}")
        if r["answer"] not in nouns:
            raise ValueError(f"round {i}: the answer {r['answer']!r} is not one of {nouns}")
        wrong = set(nouns) - {r["answer"]}
        if set(r["hints"]) != wrong:
            raise ValueError(f"round {i}: hints are for {sorted(r['hints'])}, the wrong nouns are {sorted(wrong)}")
        if not r["why"].strip() or not all(h.strip() for h in r["hints"].values()):
            raise ValueError(f"round {i}: every explanation and hint needs a text")
        out.append({"before": r["before"], "after": r["after"], "nouns": nouns, "answer": r["answer"],
                     "why": r["why"], "hints": dict(r["hints"])})
    return {"pronoun": "it", "rounds": out}


def referent_game_lab(rounds: Sequence[Mapping] = ROUNDS, *, lab_id: str = "referent-game") -> HTMLBlock:
    """The game's element; without JavaScript, and in the notebook, the rounds become a list.

    Parameters
    ----------
    rounds : sequence of mapping, default :data:`ROUNDS`
        As in :func:`referent_game_config`.
    lab_id : str, default "referent-game", keyword-only
        The ``id`` of the element.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        As :func:`referent_game_config`.

    Examples
    --------
    >>> lab = referent_game_lab()
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="referent-game" id="referent-game">')
    True
    >>> lab.markdown.splitlines()[0]
    '1. The cat sat on the mat because **it** was tired. Does *it* mean the cat or the mat?'
    """
    config = referent_game_config(rounds)

    def question(r):
        options = " or ".join(f"the {n}" for n in r["nouns"])
        return f"Does *it* mean {options}?"

    items = "".join(f"<li>{esc(r['before'])} <strong>it</strong> {esc(r['after'])} "
                    f"{esc(question(r).replace('*', ''))}</li>" for r in config["rounds"])
    fallback = (f'<div class="{FALLBACK_CLASS}"><p>This game needs JavaScript. Its rounds:</p>'
                f"<ol>{items}</ol></div>")
    markdown = "\n".join(f"{i}. {r['before']} **it** {r['after']} {question(r)}"
                         for i, r in enumerate(config["rounds"], 1))
    block = lab_element("referent-game", lab_id, config, fallback)
    return HTMLBlock(block.markup, markdown=markdown)


def referent_game_fixture(config: dict) -> dict:
    """What the browser tests expect: for each round, the picks to try and what each one must say.

    Parameters
    ----------
    config : dict
        The page's configuration (:func:`referent_game_config`).

    Returns
    -------
    dict
        ``rounds``: for each round the ``answer``, the ``wrong`` nouns, and
        the ``feedback`` text each pick must show (the hint for a wrong
        noun, the reason for the answer); ``total``, the number of rounds.

    Raises
    ------
    ValueError
        As :func:`referent_game_config`.

    Examples
    --------
    >>> f = referent_game_fixture(referent_game_config())
    >>> f["total"], f["rounds"][1]["answer"], f["rounds"][1]["wrong"]
    (3, 'mat', ['cat'])
    """
    checked = referent_game_config(config["rounds"])
    rounds = []
    for r in checked["rounds"]:
        wrong = [n for n in r["nouns"] if n != r["answer"]]
        feedback = {n: r["hints"][n] for n in wrong} | {r["answer"]: r["why"]}
        rounds.append({"answer": r["answer"], "wrong": wrong, "feedback": feedback,
                       "sentence": f"{r['before']} it {r['after']}"})
    return {"rounds": rounds, "total": len(rounds)}
