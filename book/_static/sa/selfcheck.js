// Self-checks, folds and skip tests (markup from booktools.selfcheck).
// Progress is kept per page in localStorage; nothing leaves the browser.
//
// A check's status is "correct" (answered right without showing the answer),
// "shown" (the reader showed the answer; a later right answer does not change
// that), or for a prediction "predicted-right" / "predicted-wrong". Only
// "correct" counts toward a skip test.

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

// "1.72", "1.720", ".5", "-0.35", "8.88e-16", "−0.35" (Unicode minus),
// "1,000,000" or "1 000 000" (thousands grouped). A decimal comma ("1,5")
// is not a number here: it would be read as fifteen or as one and a half.
export function parseNumber(text) {
  let s = text.trim().replace(/\u2212/g, "-").replace(/[\s_\u00a0\u202f]+/g, "");
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(s)) s = s.replace(/,/g, "");
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

// Half a unit of the last digit the reader typed: "1.41" -> 0.005, "4" -> 0.5.
export function typedResolution(text) {
  const s = text.trim().replace(/[\s_,\u00a0\u202f]+/g, "");
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(s);
  if (!m) return 0;
  const decimals = m[2] ? m[2].length : 0;
  const exponent = m[3] ? Number(m[3]) : 0;
  return 0.5 * 10 ** (exponent - decimals) * (1 + 1e-9);
}

// booktools.selfcheck.too_few_decimals: the right answer rounded to fewer
// decimals than the check asks for ("0.12" for 0.125 with 3 decimals). An
// answer within the check's own tolerance is accepted, not rounded: "0.5"
// for 0.50 with 2 decimals is exact.
export function tooFewDecimals(text, answer, decimals) {
  if (decimals === undefined || decimals === null) return false;
  const s = text.trim().replace(/\u2212/g, "-").replace(/[\s_,\u00a0\u202f]+/g, "");
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) return false;
  const shown = s.includes(".") ? s.split(".")[1].length : 0;
  if (shown >= decimals) return false;
  const gap = Math.abs(Number(s) - answer);
  if (gap <= 0.5 * 10 ** -decimals * (1 + 1e-9)) return false;
  return gap <= 0.5 * 10 ** -shown * (1 + 1e-9);
}

// The tolerance rule of booktools.selfcheck.number_check.
export function withinTolerance(x, target, atol, rtol) {
  return Math.abs(x - target) <= Math.max(atol, rtol * Math.abs(target));
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
    this.showButton.addEventListener("click", () => this.reveal());
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

  // The next graduated hint: the first wrong try gets the first hint, and so on.
  nextHint() {
    const hints = this.data.hints;
    const i = Math.min(this.tries, hints.length) - 1;
    return hints.length > 1 ? `Hint ${i + 1} of ${hints.length}: ${hints[i]}` : `Hint: ${hints[i]}`;
  }

  // The diagnosis of an expected wrong answer, or null. A number matches the
  // closest expected wrong answer that agrees with it to the digits typed.
  diagnose(value, text) {
    const d = this.data;
    if (this.kind === "shape") {
      const hit = (d.diagnoses || []).find(([wrong]) => sameShape(value, wrong));
      return hit ? hit[1] : null;
    }
    let best = null;
    let bestGap = Infinity;
    for (const [wrong, says] of d.diagnoses || []) {
      const gap = Math.abs(value - wrong);
      const tol = Math.max(d.atol, d.rtol * Math.abs(wrong), typedResolution(text));
      if (gap <= tol && gap < bestGap) {
        best = says;
        bestGap = gap;
      }
    }
    return best;
  }

  submit() {
    const d = this.data;
    let ok;
    let help;
    if (this.kind === "number" || this.kind === "shape") {
      const text = this.form.elements.answer.value;
      const value = this.kind === "number" ? parseNumber(text) : parseShape(text);
      if (value === null) {
        return this.say(this.kind === "number"
          ? "Write a number, such as 1.72, .5, 8.88e-16 or 1,000,000."
          : "Write a shape, such as (2, 3) or 2x3.", "info");
      }
      ok = this.kind === "number" ? withinTolerance(value, d.answer, d.atol, d.rtol) : sameShape(value, d.answer);
      if (!ok) {
        this.tries += 1;
        const diagnosis = this.kind === "number" && tooFewDecimals(text, d.answer, d.decimals)
          ? d.fewer_decimals : this.diagnose(value, text);
        help = diagnosis ? `${diagnosis} ${this.tries > 1 ? this.nextHint() : ""}`.trim() : this.nextHint();
      }
    } else {
      const choice = this.selectedChoice();
      if (choice === null) {
        return this.say(this.kind === "predict" ? "Pick your guess first." : "Pick one of the options.", "info");
      }
      ok = choice === d.answer;
      if (this.kind === "predict") return this.commitPrediction(ok, d.hints[choice]);
      if (!ok) {
        this.tries += 1;
        help = d.hints[choice];
        if (this.tries > 1 && d.hint) help = `${help} More help: ${d.hint}`;
      }
    }
    if (ok) return this.right();
    const lead = this.tries > 1 ? "Still not right." : "Not yet.";
    this.say(`${lead} ${help}`, "wrong");
    if (this.tries >= 2 && this.status !== "shown") this.showButton.hidden = false;
  }

  right() {
    if (this.status === "shown") {
      this.say("Right. You looked at the answer first, so this check counts as shown, not solved.", "info");
      return;
    }
    this.finish("correct");
    this.openAnswer();
    this.say("Correct.", "right");
  }

  commitPrediction(right, hint) {
    const hadFocus = this.form.contains(document.activeElement);
    this.finish(right ? "predicted-right" : "predicted-wrong");
    this.lock();
    this.openAnswer();
    this.say(right ? "Your guess was right." : `Your guess was not right. ${hint}`, right ? "right" : "wrong");
    // lock() disabled the focused button, which drops focus to <body>: keyboard users go on from the answer.
    if (hadFocus) this.answer.querySelector("summary").focus();
  }

  lock() {
    for (const input of this.form.querySelectorAll("input")) input.disabled = true;
    this.form.querySelector(".sa-submit").disabled = true;
  }

  openAnswer() {
    this.root.classList.add("sa-revealed");
    this.answer.open = true;
  }

  // "Show answer": the check is done, but it counts as shown, never as solved.
  reveal() {
    if (this.status !== "correct") this.finish("shown");
    this.openAnswer();
    const hadFocus = document.activeElement === this.showButton;
    this.showButton.hidden = true;
    this.say("Answer shown below. It counts as shown, not solved.", "info");
    if (hadFocus) this.answer.querySelector("summary").focus();   // keyboard users go on from the answer
  }

  finish(status) {
    if (this.status !== "correct" && this.status !== "shown") this.progress.checks[this.id] = status;
    this.root.classList.add("sa-complete");
    this.onChange(this);
  }

  restore(saved) {
    this.root.classList.add("sa-complete");
    this.openAnswer();
    if (this.kind === "predict") {
      this.lock();
      this.say("You made your guess earlier.", "info");
    } else if (saved === "correct") {
      this.say("You answered this correctly earlier.", "right");
    } else {
      this.say("You showed the answer earlier.", "info");
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

// A link to an id inside a fold (the page's contents, a cross-reference, a
// shared URL) unfolds that fold and scrolls to the target.
function targetOf(hash) {
  if (!hash || hash.length < 2) return null;
  let id;
  try {
    id = decodeURIComponent(hash.slice(1));
  } catch {
    return null;
  }
  return document.getElementById(id);
}

function openFoldsFor(folds, target, scroll) {
  if (!target || !target.closest(".sa-folded")) return false;
  for (const fold of folds) {
    if (fold.items.some((el) => el.contains(target))) unfold(fold);
  }
  if (scroll) target.scrollIntoView();
  return true;
}

function followHashesIntoFolds(folds) {
  openFoldsFor(folds, targetOf(location.hash), true);
  window.addEventListener("hashchange", () => openFoldsFor(folds, targetOf(location.hash), true));
  // A click on a link to the current hash fires no hashchange: unfold before
  // the browser scrolls, so that its own scroll lands on the target.
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[href*='#']");
    if (!link) return;
    const url = new URL(link.href, location.href);
    if (url.pathname !== location.pathname) return;
    openFoldsFor(folds, targetOf(url.hash), false);
  }, true);
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

function setupSkipTests(checks, progress, folds) {
  const tests = [];
  for (const box of document.querySelectorAll(".sa-skip-test")) {
    const own = checks.filter((c) => box.contains(c.root));
    const result = box.querySelector(".sa-skip-result");
    tests.push({ box, own, result });
  }
  const update = (announce) => {
    for (const t of tests) {
      const passed = t.own.length > 0 && t.own.every((c) => c.status === "correct");
      if (!passed) {
        const shown = t.own.filter((c) => c.status === "shown").length;
        if (shown > 0 && t.own.every((c) => c.complete)) {
          t.result.textContent = `Not passed: you showed ${shown === 1 ? "one answer" : `${shown} answers`}, `
            + "and shown answers do not count. Read the chapter, or reset your progress to try again.";
        }
        continue;
      }
      t.box.classList.add("sa-passed");
      for (const fold of folds) unfold(fold);
      if (!progress.done) {
        progress.done = true;
        writeStore(PAGE_KEY, progress);
        const done = readStore(DONE_KEY, {});
        done[location.pathname] = true;
        writeStore(DONE_KEY, done);
        markDoneChapters();
      }
      if (t.result.dataset.filled) continue;
      t.result.dataset.filled = "1";
      t.result.textContent = "Passed: this chapter is marked as done, and all its sections are open. ";
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
    const shown = checks.filter((c) => c.status === "shown").length;
    const parts = [`Self-checks answered: ${answered} of ${checks.length}`];
    if (shown) parts.push(`${shown} by showing the answer`);
    if (progress.done) parts.push("chapter done");
    count.textContent = parts.join(" · ");
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
  followHashesIntoFolds(folds);
  updateSkip = setupSkipTests(checks, progress, folds);
  updateBar = progressBar(checks, progress);
  updateSkip(false);
}
