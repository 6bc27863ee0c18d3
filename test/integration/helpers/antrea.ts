// The antrea package of examples/tce-packages as the cluster-mode tests use it: the repository's
// refName, the one the cluster's PackageInstall uses (TKG's), its version folder, and the value
// the tests change to make a dev version different.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const REPO_REF = 'antrea.community.tanzu.vmware.com';
export const CLUSTER_REF = 'antrea.tanzu.vmware.com';
export const VERSION_DIR = 'addons/packages/antrea/1.5.3';

/** Sets `infraProvider` in the version folder's data values of the repository at `repo`. */
export async function setInfraProvider(repo: string, value: string): Promise<void> {
  const f = path.join(repo, VERSION_DIR, 'bundle/config/values.yaml');
  await writeFile(f, (await readFile(f, 'utf8')).replace(/^infraProvider: .*$/m, `infraProvider: ${value}`));
}
