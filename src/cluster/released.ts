/**
 * The released version as the cluster holds it (cluster mode; layouts/released.ts's step after
 * the git tags): among the cluster's Packages of the refName, the version kapp-controller selects
 * for the refName's PackageInstall(s), under each one's versionSelection (src/versions'
 * selectVersion, the one implementation). devpkg's own dev Packages (annotated
 * devpkg.dev/derived-from, left by an earlier run) are not releases and are left out.
 */
import type { ClusterReleased, ClusterReleasedLookup } from '../layouts/index.js';
import { DERIVED_FROM_ANNOTATION } from '../packages/derive.js';
import { targetRefName, type RefNameMap } from '../packages/refname.js';
import { compareVersions, selectVersion } from '../versions/index.js';
import type { KObject } from '../verify/kobject.js';
import type { ClusterClient } from './client.js';
import { matchPackageInstalls, packageInstallInfo, packageInstallTargets, type PackageInstallInfo } from './dev.js';

/**
 * Pure: the released version among `packages` (the Packages of `refName` each PackageInstall's
 * namespace sees, by namespace) for the PackageInstalls of that refName; the highest of what
 * kapp-controller selects for each, or why there is none.
 */
export function releasedInCluster(refName: string, packages: ReadonlyMap<string, readonly KObject[]>, pkgis: readonly PackageInstallInfo[]): ClusterReleased {
  if (pkgis.length === 0) return { why: `no PackageInstall of ${refName} in the cluster` };
  const picks: { version: string; pkgi: PackageInstallInfo; versions: string[]; dev: number }[] = [];
  const none: string[] = [];
  for (const pkgi of pkgis) {
    const all = packages.get(pkgi.namespace) ?? [];
    const released = all.filter((p) => !p.metadata?.annotations?.[DERIVED_FROM_ANNOTATION] && p.spec?.version !== undefined);
    const versions = released.map((p) => String(p.spec!.version));
    const dev = all.length - released.length;
    const left = dev ? `; ${dev} devpkg dev Package(s) left out` : '';
    const where = `PackageInstall ${pkgi.namespace}/${pkgi.name}`;
    if (versions.length === 0) {
      none.push(`no Package of ${refName} in ${pkgi.namespace} for ${where}${left}`);
      continue;
    }
    const s = selectVersion(versions, pkgi.selection);
    if (s.selected === undefined) none.push(`kapp-controller selects none of ${refName}'s Packages ${versions.join(', ')} for ${where} (${s.message})${left}`);
    else picks.push({ version: s.selected, pkgi, versions, dev });
  }
  const best = picks.sort((a, b) => compareVersions(a.version, b.version)).at(-1);
  if (!best) return { why: none.join('; ') };
  const left = best.dev ? `; ${best.dev} devpkg dev Package(s) left out` : '';
  return {
    version: best.version,
    why: `kapp-controller selects ${best.version} for PackageInstall ${best.pkgi.namespace}/${best.pkgi.name} among the Packages of ${refName} (${best.versions.join(', ')}${left})`,
  };
}

/** Reads the cluster: the PackageInstalls of `refName` (or the one named), and the Packages their namespaces see. */
export async function readClusterReleased(
  client: ReadClient,
  refName: string,
  named?: { namespace: string; name: string },
): Promise<ClusterReleased> {
  let pkgis: PackageInstallInfo[];
  if (named) {
    const p = await client.readPackageInstall(named.namespace, named.name);
    if (!p) return { why: `PackageInstall ${named.namespace}/${named.name} does not exist` };
    pkgis = [packageInstallInfo(p)];
  } else {
    pkgis = packageInstallTargets(matchPackageInstalls(await client.listPackageInstalls(), refName)).targets;
  }
  const packages = new Map<string, KObject[]>();
  for (const ns of new Set(pkgis.map((p) => p.namespace))) packages.set(ns, await client.listPackages(ns, pkgis.find((p) => p.namespace === ns)!.refName || refName));
  return releasedInCluster(refName, packages, pkgis);
}

type ReadClient = Pick<ClusterClient, 'listPackageInstalls' | 'readPackageInstall' | 'listPackages'>;

/**
 * Cluster mode's lookup for the layouts (OpenOptions.clusterReleased): the repository refName
 * mapped by ref-name, the cluster read once per refName, its client made on first use (a run
 * whose packages never ask reads nothing).
 */
export function clusterReleasedLookup(o: { client: () => Promise<ReadClient>; refNames: RefNameMap; packageInstall?: { namespace: string; name: string } }): ClusterReleasedLookup {
  let client: Promise<ReadClient> | undefined;
  const seen = new Map<string, Promise<ClusterReleased>>();
  return (refName) => {
    let r = seen.get(refName);
    if (!r) {
      r = (async () => {
        client ??= o.client();
        // A bare ref-name with several packages is refused by the plan itself; here it is the one mapping.
        return readClusterReleased(await client, targetRefName(o.refNames, refName, 1), o.packageInstall);
      })();
      seen.set(refName, r);
    }
    return r;
  };
}
