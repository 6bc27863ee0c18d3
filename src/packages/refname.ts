import { UsageError } from '../errors.js';
import { refNameProblem } from './model.js';

/**
 * How a repository refName maps to the refName the cluster uses, e.g. TCE's
 * `antrea.community.tanzu.vmware.com` -> TKG core `antrea.tanzu.vmware.com`.
 * Written `FROM=TO[,FROM=TO...]`; a bare `TO` applies when exactly one package is in play.
 */
export interface RefNameMap {
  pairs: Map<string, string>;
  bare?: string;
}

export function parseRefNameMap(text: string | undefined): RefNameMap {
  const map: RefNameMap = { pairs: new Map() };
  for (const raw of (text ?? '').split(/[,\n]/)) {
    const item = raw.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq < 0) {
      checkRefName(item, text ?? '');
      if (map.bare !== undefined) throw new UsageError(`ref-name: more than one bare refName in "${text}"; write FROM=TO for each package`);
      map.bare = item;
      continue;
    }
    const from = item.slice(0, eq).trim();
    const to = item.slice(eq + 1).trim();
    checkRefName(from, text ?? '');
    checkRefName(to, text ?? '');
    map.pairs.set(from, to);
  }
  if (map.bare !== undefined && map.pairs.size > 0) {
    throw new UsageError(`ref-name: mix of FROM=TO pairs and a bare refName in "${text}"; write FROM=TO for each package`);
  }
  return map;
}

/** The one refName rule (model.ts refNameProblem, kapp-controller's), checked where the flag enters. */
function checkRefName(name: string, whole: string): void {
  const problem = refNameProblem(name);
  if (problem) throw new UsageError(`ref-name: ${problem}${name === whole.trim() ? '' : ` (in "${whole}")`}`);
}

/** The cluster refName for a repository refName; `packageCount` guards the bare form. */
export function targetRefName(map: RefNameMap, repoRefName: string, packageCount: number): string {
  const mapped = map.pairs.get(repoRefName);
  if (mapped) return mapped;
  if (map.bare !== undefined) {
    if (packageCount > 1) {
      throw new UsageError(`ref-name: a bare refName "${map.bare}" is ambiguous with ${packageCount} packages; write ${repoRefName}=${map.bare}`);
    }
    return map.bare;
  }
  return repoRefName;
}
