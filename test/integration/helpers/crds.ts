// The CRDs devpkg relies on, as minimal structural definitions in test/harness/crds/.
// Installing is idempotent: a CRD that already exists (ours from an earlier run, or
// kapp-controller's real one installed by test/harness/kapp-controller.sh) is left as it is.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { statusCode, waitFor } from './kube.js';
import { repoRoot } from './run.js';

export const harnessCrdDir = join(repoRoot, 'test', 'harness', 'crds');

/**
 * The CRD documents in test/harness/crds, as client-node's typed objects. (client-node
 * serializes a typed body by its model: a plain parsed-YAML object would lose the keys whose
 * JSON names differ from the model's, such as `x-kubernetes-preserve-unknown-fields`.)
 */
export async function harnessCrds(): Promise<V1CustomResourceDefinition[]> {
  const k8s = await import('@kubernetes/client-node');
  return readdirSync(harnessCrdDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => k8s.loadYaml<V1CustomResourceDefinition>(readFileSync(join(harnessCrdDir, f), 'utf8')));
}

/** Create every harness CRD that is missing and wait until all are Established. Returns their names. */
export async function ensureHarnessCrds(kc: KubeConfig): Promise<string[]> {
  const k8s = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const names: string[] = [];
  for (const crd of await harnessCrds()) {
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
