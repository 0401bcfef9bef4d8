// One number format for the whole book (mirror of booktools.formatting).

// fmt: a fixed count of decimals, never "-0" (booktools.formatting.fmt).
// toFixed rounds an exact tie away from zero (1.25 -> "1.3"); Python, and so
// the book's tables and prose, rounds it to even (1.25 -> "1.2"). Ties are
// rare but real (0.125, 2.5), so they are rounded here as Python does.
export function fmt(value, decimals) {
  const x = Number(value);
  let text = x.toFixed(decimals);
  const [whole, frac = ""] = Math.abs(x).toFixed(100).split("."); // the exact decimal value
  if (frac[decimals] === "5" && /^0*$/.test(frac.slice(decimals + 1))) {
    const kept = decimals ? `${whole}.${frac.slice(0, decimals)}` : whole;
    if (Number(kept.at(-1)) % 2 === 0) text = (x < 0 ? "-" : "") + kept;
  }
  if (Number(text) === 0) text = text.replace(/^-/, "");
  return text;
}

// Whole numbers with commas between thousands (booktools.formatting.format_count,
// Python's f"{n:,}").
export function formatCount(count) {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
