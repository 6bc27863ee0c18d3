/**
 * What counts as a change of content (pure): YAML compared as the documents it parses to, so
 * comments, key order, quoting and whitespace are no change; a rename git scores 100 (the same
 * content) that keeps a file's place inside the folder that moved is no change either.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { fastDocuments } from '../packages/fast-yaml.js';
import type { FileChange } from '../detect/classify.js';

/**
 * The documents of a YAML text that hold something, as plain values (js-yaml where it reads what
 * the yaml library reads: fast-yaml.ts); undefined when it does not parse.
 */
export function yamlDocuments(text: string): unknown[] | undefined {
  const fast = fastDocuments(text);
  if (fast) return fast.map((d) => d.value);
  try {
    const docs = parseAllDocuments(text, { prettyErrors: false });
    if (!Array.isArray(docs)) return [];
    if (docs.some((d) => d.errors.length > 0)) return undefined;
    return docs.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown).filter((v) => v !== null && v !== undefined);
  } catch {
    return undefined;
  }
}

/**
 * Whether two YAML texts hold the same documents. A side that is missing or does not parse is the
 * same only when the texts are equal.
 */
export function sameDocuments(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const [da, db] = [yamlDocuments(a), yamlDocuments(b)];
  return da !== undefined && db !== undefined && isDeepStrictEqual(da, db);
}

/** Whether two parsed values are the same whatever the order of their keys. */
export const sameValue = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

/** A rename with no content change (git's similarity score 100). */
export const isPureRename = (c: FileChange): boolean => c.status === 'R' && c.oldPath !== undefined && c.score === 100;

/** Pure: `file` relative to `dir` ('' for the root), or undefined when it is not below it. */
export function below(file: string, dir: string): string | undefined {
  if (dir === '') return file;
  return file.startsWith(`${dir}/`) ? file.slice(dir.length + 1) : undefined;
}
