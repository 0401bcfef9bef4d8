// One number format for the whole book (mirror of booktools.numbers.fmt).
export function fmt(value, decimals) {
  let text = Number(value).toFixed(decimals);
  if (Number(text) === 0) text = text.replace(/^-/, "");
  return text;
}
