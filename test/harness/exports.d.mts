// Types of exports.mjs, for the TypeScript tests that import it.
export function parseExportLines(text: string): Record<string, string>;
