/**
 * "Did you mean": the known name closest to a mistyped one, by edit distance (insertions,
 * deletions, substitutions and swaps of two neighbours each count 1), or none when every known
 * name is too far off to be what was meant. The one implementation: the CLI's commands and flags
 * (cli.ts, commands/) and devpkg.yaml's keys (config/) all ask here (pure).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest of `names` to `word` (compared in lower case): by default at most one edit away for
 * words up to 5 letters, two up to 8, and so on (a third of the word), so that `plna` finds `plan`
 * and `deploy` finds nothing; `maxDistance` sets the limit instead. Ties go to the name listed
 * first.
 */
export function closest(word: string, names: Iterable<string>, maxDistance?: number): string | undefined {
  const w = word.toLowerCase();
  const limit = maxDistance ?? Math.max(1, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of names) {
    const d = editDistance(w, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
