// The harness scripts (controlplane.sh, kind.sh, capi.sh, tkg.sh) print their environment as
// `export NAME='value'` lines (lib.sh's q: single quotes, a quote as '\''). One reader for them,
// plain Node so the lanes runner and the global setup use it as the TypeScript tests do.

/** `export NAME='value'` lines into a record; other lines are skipped. Pure. */
export function parseExportLines(text) {
  const env = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)='((?:[^']|'\\'')*)'$/.exec(line.trim());
    if (m) env[m[1]] = m[2].replaceAll("'\\''", "'");
  }
  return env;
}
