// The CRDs devpkg relies on, as minimal structural definitions in test/harness/crds/.
// Installing is idempotent: a CRD that already exists (ours from an earlier run, or
// kapp-controller's real one installed by test/harness/kapp-controller.sh) is left as it is.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { statusCode, waitFor } from './kube.js';
import { repoRoot } from './run.js';

export const harnessCrdDir = join(repoRoot, 'test', 'harness', 'crds');

/** The CRD documents in test/harness/crds. */
export function harnessCrds(): V1CustomResourceDefinition[] {
  return readdirSync(harnessCrdDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(harnessCrdDir, f), 'utf8')) as V1CustomResourceDefinition);
}

/** Create every harness CRD that is missing and wait until all are Established. Returns their names. */
export async function ensureHarnessCrds(kc: KubeConfig): Promise<string[]> {
  const k8s = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const names: string[] = [];
  for (const crd of harnessCrds()) {
    const name = crd.metadata?.name as string;
    names.push(name);
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if (statusCode(err) !== 409) throw err; // already there: keep it
    }
  }
  for (const name of names) {
    await waitFor(`CRD ${name} to be Established`, async () => {
      const crd = await api.readCustomResourceDefinition({ name });
      const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      return established ? true : undefined;
    });
  }
  return names;
}
