/**
 * Problems found in a packages repository. A problem belongs to one file (and line) and never
 * stops the other packages: warnings are planned around, errors make that one package an
 * `error` result and the command fail at the end, naming each.
 */
import { DevpkgError, errorMessage } from '../errors.js';

export type Severity = 'warning' | 'error';

export interface Problem {
  /** The file, relative to the repository root, with `/` separators. */
  path: string;
  line?: number;
  message: string;
  severity: Severity;
  /** NAME/VERSION of the package version the problem belongs to, when known. */
  package?: string;
}

/** An error thrown while reading one package version, as a problem of that package. */
export function problemFromError(err: unknown, fallbackPath: string, pkg?: string): Problem {
  const file = err instanceof DevpkgError ? err.file : undefined;
  const line = err instanceof DevpkgError ? err.line : undefined;
  return {
    path: file ?? fallbackPath,
    ...(line !== undefined ? { line } : {}),
    message: errorMessage(err),
    severity: 'error',
    ...(pkg ? { package: pkg } : {}),
  };
}

/** `path:line: message` (the compiler-style form editors and CI logs link). */
export function formatProblem(p: Problem): string {
  return `${p.path}${p.line !== undefined ? `:${p.line}` : ''}: ${p.severity}: ${p.message}`;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** The closing line of a command that went on past per-package errors. */
export function errorSummary(problems: readonly Problem[]): string | undefined {
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length === 0) return undefined;
  const names = [...new Set(errors.map((p) => p.package ?? p.path))];
  return `${names.length} package version(s) could not be used: ${names.join(', ')} (the others went on; see the problems above)`;
}

/** Problems sorted by file and line, errors first within a file; duplicates dropped. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return [...problems]
    .filter((p) => {
      const k = `${p.path}\0${p.line ?? ''}\0${p.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0) || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1)));
}
