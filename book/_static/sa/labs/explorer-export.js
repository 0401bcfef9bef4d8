// The explorer's heatmap as a file: SVG or PNG, drawn from the weights on
// screen (not a screenshot), on white, with the sentence, layer, head and
// temperature in its title and in its file name. Also the colour helpers that
// the screen and the files share. Nothing of the page is read here: the view
// (explorer.js) passes what it shows.

// Interpolated colour of a weight in [0, 1] along the colour stops ([r, g, b] each).
export function colourOf(stops, w) {
  const t = Math.min(1, Math.max(0, w)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(t));
  const f = t - k;
  const a = stops[k];
  const b = stops[k + 1];
  return a.map((v, c) => Math.round(v + (b[c] - v) * f));
}

function luminance(rgb) {
  const lin = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// Black or white text, whichever contrasts more with the background.
export function inkOn(rgb) {
  const l = luminance(rgb);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

export const hexToRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// The file name without its extension (booktools.labs.explorer_export.export_stem, which the tests compare):
// attention-<sentence slug>-layer<l>-head<h or "average">-t<T with 2 decimals>.
export function exportStem(text, layer, head, T, { mean, maxChars }) {
  const plain = text.normalize("NFKD").replace(/\p{M}/gu, "");
  let slug = plain.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (slug.length > maxChars) {
    const cut = slug.slice(0, maxChars + 1);
    slug = cut.includes("-") ? cut.slice(0, cut.lastIndexOf("-")) : slug.slice(0, maxChars);
  }
  const headName = head === mean ? "average" : String(Number(head));
  return `attention-${slug || "sentence"}-layer${layer}-head${headName}-t${T.toFixed(2)}`;
}

const FONT = "Helvetica, Arial, sans-serif";

// Where everything goes. view: {title, subtitle, tokens, unknown, w (L rows), decimals, stops}.
function layout(view) {
  const L = view.tokens.length;
  const cell = L <= 24 ? 36 : L <= 64 ? 28 : 24;
  const size = L <= 24 ? 11 : 9;
  const ctx = new OffscreenCanvas(1, 1).getContext("2d");
  ctx.font = `${size + 1}px ${FONT}`;
  const label = Math.ceil(Math.max(...view.tokens.map((t) => ctx.measureText(t).width))) + 12;
  ctx.font = `bold 14px ${FONT}`;
  const titleWidth = Math.max(ctx.measureText(view.title).width, ctx.measureText(view.subtitle).width);
  const pad = 16;
  const top = pad + 44 + label; // two lines of title, then the column labels
  const width = Math.max(pad * 2 + label + L * cell, Math.ceil(titleWidth) + pad * 2);
  const height = top + L * cell + pad;
  const cells = [];
  view.w.forEach((row, i) => row.forEach((w, j) => {
    const rgb = colourOf(view.stops, w);
    cells.push({ x: pad + label + j * cell, y: top + i * cell, fill: `rgb(${rgb.join(",")})`, ink: inkOn(rgb),
      text: w.toFixed(view.decimals) });
  }));
  const unk = new Set(view.unknown || []);
  return { L, cell, size, label, pad, top, width, height, cells, unk };
}

const escapeXml = (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;");

// The heatmap as an SVG document (a string).
export function heatmapSvg(view) {
  const g = layout(view);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${g.width}" height="${g.height}" `
    + `viewBox="0 0 ${g.width} ${g.height}" font-family="${FONT}">`,
  `<title>${escapeXml(`${view.title} ${view.subtitle}`)}</title>`,
  `<rect width="${g.width}" height="${g.height}" fill="#fff"/>`,
  `<text x="${g.pad}" y="${g.pad + 14}" font-size="14" font-weight="bold" fill="#000">${escapeXml(view.title)}</text>`,
  `<text x="${g.pad}" y="${g.pad + 34}" font-size="12" fill="#000">${escapeXml(view.subtitle)}</text>`];
  view.tokens.forEach((t, j) => {
    const x = g.pad + g.label + j * g.cell + g.cell / 2 + g.size / 3;
    const weight = g.unk.has(j) ? ' font-style="italic" text-decoration="underline"' : "";
    out.push(`<text transform="translate(${x} ${g.top - 6}) rotate(-90)" font-size="${g.size + 1}" fill="#000"`
      + `${weight}>${escapeXml(t)}</text>`);
  });
  view.tokens.forEach((t, i) => {
    const weight = g.unk.has(i) ? ' font-style="italic" text-decoration="underline"' : "";
    out.push(`<text x="${g.pad + g.label - 6}" y="${g.top + i * g.cell + g.cell / 2 + g.size / 3}" `
      + `text-anchor="end" font-size="${g.size + 1}" fill="#000"${weight}>${escapeXml(t)}</text>`);
  });
  for (const c of g.cells) {
    out.push(`<rect x="${c.x}" y="${c.y}" width="${g.cell - 1}" height="${g.cell - 1}" fill="${c.fill}"/>`
      + `<text x="${c.x + (g.cell - 1) / 2}" y="${c.y + g.cell / 2 + g.size / 3}" text-anchor="middle" `
      + `font-size="${g.size}" fill="${c.ink}">${c.text}</text>`);
  }
  out.push("</svg>\n");
  return out.join("\n");
}

// The heatmap as a PNG (a Blob), drawn on a canvas from the same layout.
export async function heatmapPng(view) {
  const g = layout(view);
  const scale = g.L <= 40 ? 2 : 1;
  const canvas = new OffscreenCanvas(g.width * scale, g.height * scale);
  const ctx = canvas.getContext("2d");
  ctx.scale(scale, scale);
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, g.width, g.height);
  ctx.fillStyle = "#000";
  ctx.textBaseline = "alphabetic";
  ctx.font = `bold 14px ${FONT}`;
  ctx.fillText(view.title, g.pad, g.pad + 14);
  ctx.font = `12px ${FONT}`;
  ctx.fillText(view.subtitle, g.pad, g.pad + 34);
  const labelFont = (k) => `${g.unk.has(k) ? "italic " : ""}${g.size + 1}px ${FONT}`;
  view.tokens.forEach((t, j) => {
    ctx.save();
    ctx.translate(g.pad + g.label + j * g.cell + g.cell / 2 + g.size / 3, g.top - 6);
    ctx.rotate(-Math.PI / 2);
    ctx.font = labelFont(j);
    ctx.fillText(t, 0, 0);
    ctx.restore();
  });
  ctx.textAlign = "end";
  view.tokens.forEach((t, i) => {
    ctx.font = labelFont(i);
    ctx.fillText(t, g.pad + g.label - 6, g.top + i * g.cell + g.cell / 2 + g.size / 3);
  });
  ctx.textAlign = "center";
  ctx.font = `${g.size}px ${FONT}`;
  for (const c of g.cells) {
    ctx.fillStyle = c.fill;
    ctx.fillRect(c.x, c.y, g.cell - 1, g.cell - 1);
    ctx.fillStyle = c.ink;
    ctx.fillText(c.text, c.x + (g.cell - 1) / 2, c.y + g.cell / 2 + g.size / 3);
  }
  return canvas.convertToBlob({ type: "image/png" });
}

// Offer a Blob as a download named `name`.
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
