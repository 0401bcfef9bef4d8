// Self-checks, folds and skip tests (markup from booktools.selfcheck).
// Progress is kept per page in localStorage; nothing leaves the browser.

const PAGE_KEY = "sa-progress:" + location.pathname;
const DONE_KEY = "sa-chapters-done";

function readStore(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) || fallback;
  } catch {
    return fallback;
  }
}

function writeStore(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage may be disabled: the checks still work for this visit */
  }
}

// "1.72", "1.720", ".5", "-0.35", "8.88e-16", "−0.35" (Unicode minus).
export function parseNumber(text) {
  const s = text.trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
  return Number(s);
}

// "(5, 5)", "5x5", "5 × 5", "[5, 5]", "5, 5", "(3,)".
export function parseShape(text) {
  const s = text.trim().replace(/^[([]\s*|\s*[)\]]$/g, "");
  if (s === "") return null;
  const parts = s.split(/\s*(?:,|x|×|\*)\s*/i).filter((p) => p !== "");
  if (parts.length === 0 || !parts.every((p) => /^\d+$/.test(p))) return null;
  return parts.map(Number);
}

function sameShape(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

class Check {
  constructor(root, progress, onChange) {
    this.root = root;
    this.id = root.dataset.checkId;
    this.kind = root.dataset.kind;
    this.data = JSON.parse(root.querySelector("script.sa-check-data").textContent);
    this.form = root.querySelector("form.sa-form");
    this.feedback = root.querySelector(".sa-feedback");
    this.answer = root.querySelector("details.sa-answer");
    this.progress = progress;
    this.onChange = onChange;
    this.tries = 0;
    this.showButton = document.createElement("button");
    this.showButton.type = "button";
    this.showButton.className = "sa-show-answer";
    this.showButton.textContent = "Show answer";
    this.showButton.hidden = true;
    this.showButton.addEventListener("click", () => this.reveal(true));
    this.form.append(this.showButton);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    const saved = progress.checks[this.id];
    if (saved) this.restore(saved);
  }

  get status() {
    return this.progress.checks[this.id] || null;
  }

  get complete() {
    return this.status !== null;
  }

  say(text, tone) {
    this.feedback.textContent = text;
    this.feedback.dataset.tone = tone;
  }

  selectedChoice() {
    const picked = this.form.querySelector("input[type=radio]:checked");
    return picked ? Number(picked.value) : null;
  }

  submit() {
    const d = this.data;
    let ok;
    let hint = d.hint;
    if (this.kind === "number") {
      const x = parseNumber(this.form.elements.answer.value);
      if (x === null) return this.say("Write a number, such as 1.72, .5 or 8.88e-16.", "info");
      ok = Math.abs(x - d.answer) <= Math.max(d.atol, d.rtol * Math.abs(d.answer));
    } else if (this.kind === "shape") {
      const s = parseShape(this.form.elements.answer.value);
      if (s === null) return this.say("Write a shape, such as (2, 3) or 2x3.", "info");
      ok = sameShape(s, d.answer);
    } else {
      const choice = this.selectedChoice();
      if (choice === null) {
        return this.say(this.kind === "predict" ? "Pick your guess first." : "Pick one of the choices.", "info");
      }
      ok = choice === d.answer;
      if (!ok && d.hints && d.hints[choice]) hint = d.hints[choice];
      if (this.kind === "predict") return this.commitPrediction(ok, hint);
    }
    if (ok) {
      this.finish("correct");
      this.say(`Correct. ${this.answerSentence()}`, "right");
    } else {
      this.tries += 1;
      this.say(`Not yet. Hint: ${hint}`, "wrong");
      if (this.tries >= 2) this.showButton.hidden = false;
    }
  }

  answerSentence() {
    return `The answer is ${this.data.shown}.`;
  }

  commitPrediction(right, hint) {
    this.finish(right ? "predicted-right" : "predicted-wrong");
    this.showReveal();
    const verdict = right ? "Your guess was right." : `Your guess was not right${hint ? ` (${hint})` : ""}.`;
    this.say(`${verdict} ${this.data.reveal}`, right ? "right" : "wrong");
  }

  showReveal() {
    for (const input of this.form.querySelectorAll("input")) input.disabled = true;
    this.form.querySelector(".sa-submit").disabled = true;
    this.root.classList.add("sa-revealed");
    this.answer.open = true;
  }

  reveal(announce) {
    this.finish(this.status === "correct" ? "correct" : "shown");
    this.root.classList.add("sa-revealed");
    this.answer.open = true;
    this.showButton.hidden = true;
    if (announce) this.say(this.answerSentence(), "info");
  }

  finish(status) {
    if (this.status !== "correct") this.progress.checks[this.id] = status;
    this.root.classList.add("sa-complete");
    this.onChange(this);
  }

  restore(saved) {
    this.root.classList.add("sa-complete");
    if (this.kind === "predict") {
      this.showReveal();
      this.say(`You made your guess earlier. ${this.data.reveal}`, "info");
    } else if (saved === "correct") {
      this.say(`You answered this correctly earlier. ${this.answerSentence()}`, "right");
    } else {
      this.root.classList.add("sa-revealed");
      this.answer.open = true;
      this.say(`You looked at the answer earlier. ${this.answerSentence()}`, "info");
    }
  }
}

// A check made with fold=True folds what follows it in its section (up to
// the next self-check) until it is answered. The text stays in the HTML.
function setupFolds(checks) {
  const folds = [];
  checks.forEach((check, i) => {
    if (check.root.dataset.fold !== "true") return;
    const anchor = check.root.closest(".cell") || check.root;
    const items = [];
    for (let el = anchor.nextElementSibling; el; el = el.nextElementSibling) {
      if (el.matches(".sa-check") || el.querySelector(".sa-check")) break;
      items.push(el);
    }
    if (items.length === 0) return;
    const id = `sa-fold-${i + 1}`;
    items[0].id = items[0].id || id;
    const bar = document.createElement("div");
    bar.className = "sa-fold-bar";
    const text = document.createElement("p");
    text.textContent = "What follows builds on this self-check. Answer it to read on, or:";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Show the rest anyway";
    button.setAttribute("aria-controls", items.map((el) => el.id).filter(Boolean).join(" "));
    button.setAttribute("aria-expanded", "false");
    bar.append(text, button);
    anchor.after(bar);
    const fold = { items, bar, button, check };
    button.addEventListener("click", () => unfold(fold));
    folds.push(fold);
    if (check.complete) unfold(fold);
    else for (const el of items) el.classList.add("sa-folded");
  });
  return folds;
}

function unfold(fold) {
  for (const el of fold.items) el.classList.remove("sa-folded");
  fold.button.setAttribute("aria-expanded", "true");
  fold.bar.hidden = true;
}

function nextChapterLink() {
  const next = document.querySelector("a.right-next");
  if (!next) return null;
  const link = document.createElement("a");
  link.href = next.href;
  link.className = "sa-next";
  const title = next.querySelector(".prev-next-title");
  link.textContent = `Go to the next chapter: ${title ? title.textContent.trim() : "next"}`;
  return link;
}

function markDoneChapters() {
  const done = readStore(DONE_KEY, {});
  for (const a of document.querySelectorAll(".bd-sidenav a.reference.internal")) {
    const path = new URL(a.href, location.href).pathname;
    if (done[path] && !a.querySelector(".sa-done-mark")) {
      const mark = document.createElement("span");
      mark.className = "sa-done-mark";
      mark.textContent = " ✓ done";
      a.append(mark);
    }
  }
}

function setupSkipTests(checks, progress) {
  const tests = [];
  for (const box of document.querySelectorAll(".sa-skip-test")) {
    const own = checks.filter((c) => box.contains(c.root));
    const result = box.querySelector(".sa-skip-result");
    tests.push({ box, own, result });
  }
  const update = (announce) => {
    for (const t of tests) {
      const passed = t.own.length > 0 && t.own.every((c) => c.status === "correct");
      if (!passed) continue;
      t.box.classList.add("sa-passed");
      if (!progress.done) {
        progress.done = true;
        const done = readStore(DONE_KEY, {});
        done[location.pathname] = true;
        writeStore(DONE_KEY, done);
        markDoneChapters();
      }
      if (t.result.dataset.filled) continue;
      t.result.dataset.filled = "1";
      t.result.textContent = "Passed: this chapter is marked as done. ";
      const link = nextChapterLink();
      if (link) t.result.append(link);
      else t.result.append("This is the last chapter so far.");
      if (announce && link) link.focus();
    }
  };
  return update;
}

function progressBar(checks, progress) {
  const bar = document.createElement("div");
  bar.className = "sa-progress";
  bar.setAttribute("role", "region");
  bar.setAttribute("aria-label", "Your progress on this page");
  const count = document.createElement("span");
  count.className = "sa-progress-count";
  const reset = document.createElement("button");
  reset.type = "button";
  reset.className = "sa-reset";
  reset.textContent = "Reset progress";
  reset.addEventListener("click", () => {
    try {
      localStorage.removeItem(PAGE_KEY);
      const done = readStore(DONE_KEY, {});
      delete done[location.pathname];
      writeStore(DONE_KEY, done);
    } catch {
      /* nothing stored */
    }
    location.reload();
  });
  const note = document.createElement("span");
  note.className = "sa-progress-note";
  note.textContent = "Kept in this browser only.";
  bar.append(count, " ", reset, " ", note);
  const update = () => {
    const answered = checks.filter((c) => c.complete).length;
    const done = progress.done ? " · chapter done" : "";
    count.textContent = `Self-checks answered: ${answered} of ${checks.length}${done}`;
  };
  update();
  const heading = document.querySelector("article section > h1") || document.querySelector("article h1");
  if (heading) heading.after(bar);
  return update;
}

export function initSelfChecks() {
  document.documentElement.classList.add("sa-js");
  markDoneChapters();
  const roots = document.querySelectorAll(".sa-check");
  if (roots.length === 0) return;
  const progress = readStore(PAGE_KEY, { checks: {}, done: false });
  let folds = [];
  let updateSkip = () => {};
  let updateBar = () => {};
  const onChange = (check) => {
    writeStore(PAGE_KEY, progress);
    for (const fold of folds) if (fold.check === check) unfold(fold);
    updateSkip(true);
    updateBar();
  };
  const checks = Array.from(roots, (root) => new Check(root, progress, onChange));
  folds = setupFolds(checks);
  updateSkip = setupSkipTests(checks, progress);
  updateBar = progressBar(checks, progress);
  updateSkip(false);
}
