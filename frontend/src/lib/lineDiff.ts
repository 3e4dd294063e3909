// A line diff (longest common subsequence) of two texts, for showing how two runs' definitions differ.

export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

export function lineDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]! });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) {
      out.push({ kind: "added", text: b[j]! });
      j++;
    } else {
      out.push({ kind: "removed", text: a[i]! });
      i++;
    }
  }
  return out;
}

/** The changed lines with `context` unchanged lines around each; a gap between two hunks is null. */
export function hunks(diff: readonly DiffLine[], context = 2): (DiffLine | null)[] {
  const near = diff.map((_, k) => diff.slice(Math.max(0, k - context), k + context + 1).some((d) => d.kind !== "same"));
  const out: (DiffLine | null)[] = [];
  diff.forEach((d, k) => {
    if (near[k]) out.push(d);
    else if (out.length > 0 && out[out.length - 1] !== null) out.push(null);
  });
  while (out.length > 0 && out[out.length - 1] === null) out.pop();
  return out;
}

/** A value as one line per leaf, `path: value`, in key order (`operations.browse.rate: 10`): the
 * text two definitions are diffed on, so that every changed line says where it is. */
export function canonicalLines(value: unknown, path = ""): string[] {
  if (value && typeof value === "object" && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)) {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.keys(value).sort().map((k) => [k, (value as Record<string, unknown>)[k]]);
    return entries.flatMap(([k, v]) => canonicalLines(v, path ? `${path}.${k}` : k));
  }
  return [`${path}: ${JSON.stringify(value ?? null)}`];
}
