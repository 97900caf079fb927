/** Where a search's words occur in a text: pieces to show, `true` for a match (case and width aside). */
export function matchPieces(text: string, query: string): { text: string; hit: boolean }[] {
  const words = [...new Set(query.normalize("NFKC").toLowerCase().split(/\s+/).filter((w) => w.length > 0))];
  if (words.length === 0 || !text) return [{ text, hit: false }];
  const folded = text.normalize("NFKC").toLowerCase();
  // Only when folding keeps every character where it was (otherwise offsets would drift).
  if (folded.length !== text.length) return [{ text, hit: false }];
  const marks = new Array<boolean>(text.length).fill(false);
  for (const w of words) {
    for (let at = folded.indexOf(w); at !== -1; at = folded.indexOf(w, at + w.length)) {
      for (let i = at; i < at + w.length; i++) marks[i] = true;
    }
  }
  const out: { text: string; hit: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const last = out[out.length - 1];
    if (last && last.hit === marks[i]) last.text += text[i];
    else out.push({ text: text[i], hit: marks[i] });
  }
  return out;
}
