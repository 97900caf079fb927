import { useMemo, useState } from "react";
import { diffLines } from "diff";

type LineKind = "ctx" | "add" | "del";
interface DiffLine {
  kind: LineKind;
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

function splitLines(value: string): string[] {
  const lines = value.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Line-level diff of two texts, with line numbers on each side. */
export function computeLines(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const part of diffLines(before, after)) {
    for (const text of splitLines(part.value)) {
      if (part.added) out.push({ kind: "add", text, oldNo: null, newNo: newNo++ });
      else if (part.removed) out.push({ kind: "del", text, oldNo: oldNo++, newNo: null });
      else out.push({ kind: "ctx", text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

type Shown = DiffLine | { kind: "skip"; count: number };

/** Keeps `context` unchanged lines around each change; longer unchanged runs become one "skip". */
function withContext(lines: DiffLine[], context: number): Shown[] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.kind === "ctx") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  const out: Shown[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (keep[i]) {
      if (skipped) out.push({ kind: "skip", count: skipped });
      skipped = 0;
      out.push(l);
    } else skipped++;
  });
  if (skipped) out.push({ kind: "skip", count: skipped });
  return out;
}

interface SidePair {
  left: DiffLine | null;
  right: DiffLine | null;
}

function toPairs(lines: DiffLine[]): (SidePair | { skip: number })[] {
  const out: (SidePair | { skip: number })[] = [];
  const shown = withContext(lines, 3);
  let i = 0;
  while (i < shown.length) {
    const l = shown[i];
    if (l.kind === "skip") {
      out.push({ skip: l.count });
      i++;
    } else if (l.kind === "ctx") {
      out.push({ left: l, right: l });
      i++;
    } else {
      const dels: DiffLine[] = [];
      const adds: DiffLine[] = [];
      while (i < shown.length && shown[i].kind === "del") dels.push(shown[i++] as DiffLine);
      while (i < shown.length && shown[i].kind === "add") adds.push(shown[i++] as DiffLine);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
        out.push({ left: dels[k] ?? null, right: adds[k] ?? null });
      }
    }
  }
  return out;
}

const SIGN: Record<LineKind, string> = { ctx: " ", add: "+", del: "-" };

export function DiffView({ before, after }: { before: string | null; after: string | null }) {
  const [mode, setMode] = useState<"unified" | "split">("unified");
  const lines = useMemo(() => computeLines(before ?? "", after ?? ""), [before, after]);
  const unchanged = lines.every((l) => l.kind === "ctx");

  return (
    <div className="diff">
      <div className="diff-toolbar">
        <span className="muted">
          {before === null ? "Created" : after === null ? "Deleted" : unchanged ? "No changes" : "Modified"}
        </span>
        <div className="segmented" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={mode === "unified"} onClick={() => setMode("unified")}>
            Unified
          </button>
          <button type="button" aria-pressed={mode === "split"} onClick={() => setMode("split")}>
            Side by side
          </button>
        </div>
      </div>
      {mode === "unified" ? (
        <table className="diff-table" data-testid="diff-unified">
          <colgroup>
            <col className="diff-col-no" />
            <col className="diff-col-no" />
            <col className="diff-col-sign" />
            <col />
          </colgroup>
          <tbody>
            {withContext(lines, 3).map((l, i) =>
              l.kind === "skip" ? (
                <tr key={i} className="diff-skip">
                  <td colSpan={4}>⋯ {l.count} unchanged line{l.count === 1 ? "" : "s"}</td>
                </tr>
              ) : (
                <tr key={i} className={`diff-${l.kind}`}>
                  <td className="diff-no">{l.oldNo ?? ""}</td>
                  <td className="diff-no">{l.newNo ?? ""}</td>
                  <td className="diff-sign">{SIGN[l.kind]}</td>
                  <td className="diff-text">{l.text}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      ) : (
        <table className="diff-table diff-split" data-testid="diff-split">
          <colgroup>
            <col className="diff-col-no" />
            <col />
            <col className="diff-col-no" />
            <col />
          </colgroup>
          <tbody>
            {toPairs(lines).map((p, i) =>
              "skip" in p ? (
                <tr key={i} className="diff-skip">
                  <td colSpan={4}>⋯ {p.skip} unchanged line{p.skip === 1 ? "" : "s"}</td>
                </tr>
              ) : (
                <tr key={i}>
                  <td className="diff-no">{p.left?.oldNo ?? ""}</td>
                  <td className={`diff-text diff-${p.left ? p.left.kind : "empty"}`}>{p.left?.text ?? ""}</td>
                  <td className="diff-no">{p.right?.newNo ?? ""}</td>
                  <td className={`diff-text diff-${p.right ? p.right.kind : "empty"}`}>{p.right?.text ?? ""}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
    </div>
  );
}
