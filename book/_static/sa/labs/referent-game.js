// Lab "referent-game" (chapter "Words are islands"): three rounds; in each,
// the reader picks the noun that "it" refers to. A wrong pick gets its own
// hint and another try; a right pick says why and opens the next round. The
// rounds, answers and texts come from the page's config
// (booktools.labs.referent_game); nothing is computed here. Everything lives
// inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./referent-game.css", import.meta.url));
  const rounds = config.rounds;
  const id = root.id || "sa-referent";
  const state = { round: 0, tries: 0, firstTry: 0, solved: false };

  const roundNo = h("span", { class: "sa-referent-round" });
  const score = h("span", { class: "sa-referent-score" });
  const progress = h("p", { class: "sa-referent-progress", id: `${id}-progress` }, roundNo, score);
  const sentence = h("p", { class: "sa-referent-sentence", id: `${id}-sentence` });
  const question = h("p", { class: "sa-referent-question", id: `${id}-question` });
  const choices = h("div", {
    class: "sa-panel-buttons sa-referent-choices", role: "group", "aria-labelledby": `${id}-question`,
  });
  const feedback = h("p", { class: "sa-referent-feedback", role: "status", "aria-live": "polite" });
  const next = h("button", { type: "button", class: "sa-referent-next", "data-action": "next" }, "Next round");
  const again = h("button", { type: "button", class: "sa-referent-again", "data-action": "again" }, "Play again");
  const summary = h("p", { class: "sa-referent-summary" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Click or tap a noun, or reach it with Tab and press Enter.");
  removeFallback(root);
  // "Next round" and "Play again" are in the page only while they can be used.
  const actions = h("div", { class: "sa-panel-buttons sa-referent-actions" });
  root.append(h("div", { class: "sa-panel sa-referent" }, progress, sentence, question, choices, feedback,
    actions, summary, hint));

  function showRound() {
    const r = rounds[state.round];
    state.tries = 0;
    state.solved = false;
    root.dataset.round = String(state.round);
    root.dataset.solved = "false";
    roundNo.textContent = `Round ${state.round + 1} of ${rounds.length}`;
    showScore();
    sentence.replaceChildren(`${r.before} `, h("mark", { class: "sa-referent-it" }, config.pronoun), ` ${r.after}`);
    question.textContent = `Which noun does “${config.pronoun}” take its meaning from?`;
    choices.replaceChildren(...r.nouns.map((noun) => {
      const b = h("button", { type: "button", "data-noun": noun, "aria-pressed": "false" }, `the ${noun}`);
      b.addEventListener("click", () => pick(noun, b));
      return b;
    }));
    feedback.textContent = "";
    feedback.className = "sa-referent-feedback";
    actions.replaceChildren();
    summary.textContent = "";
  }

  function showScore() {
    score.textContent = `right at the first try: ${state.firstTry}`;
  }

  function pick(noun, button) {
    if (state.solved) return;
    const r = rounds[state.round];
    state.tries += 1;
    button.setAttribute("aria-pressed", "true");
    if (noun === r.answer) {
      state.solved = true;
      if (state.tries === 1) state.firstTry += 1;
      showScore();
      root.dataset.solved = "true";
      button.classList.add("sa-referent-right");
      for (const b of choices.querySelectorAll("button")) if (b !== button) b.disabled = true;
      feedback.className = "sa-referent-feedback sa-referent-good";
      feedback.textContent = `Right: the ${noun}. ${r.why}`;
      const last = state.round === rounds.length - 1;
      if (last) {
        summary.textContent = `You found all ${rounds.length}, ${state.firstTry} of them at the first try. `
          + `In every round “${config.pronoun}” was the same word; another word decided what it meant.`;
        actions.replaceChildren(again);
        again.focus();
      } else {
        actions.replaceChildren(next);
        next.focus();
      }
    } else {
      button.classList.add("sa-referent-wrong");
      button.disabled = true;
      feedback.className = "sa-referent-feedback sa-referent-bad";
      feedback.textContent = `Not the ${noun}. ${r.hints[noun]}`;
      choices.querySelector("button:not(:disabled)")?.focus();
    }
  }

  next.addEventListener("click", () => {
    state.round = Math.min(rounds.length - 1, state.round + 1);
    showRound();
    choices.querySelector("button")?.focus();
  });
  again.addEventListener("click", () => {
    state.round = 0;
    state.firstTry = 0;
    showRound();
    choices.querySelector("button")?.focus();
  });

  showRound();
}
