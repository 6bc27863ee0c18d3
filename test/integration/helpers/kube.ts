// Kubernetes client helpers for integration tests against the harness's kube-apiserver.
import type { KubeConfig, KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { harnessEnv } from './env.js';

/** A KubeConfig for the harness's admin user (loaded from $KUBECONFIG). */
export async function harnessKubeConfig(): Promise<KubeConfig> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(harnessEnv().kubeconfig);
  return kc;
}

/** HTTP status of a client-node error (ApiException.code), or undefined. */
export function statusCode(err: unknown): number | undefined {
  if (err && typeof err === 'object' && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/**
 * Poll `probe` until it returns a value other than undefined; throws naming `what` on timeout,
 * with the last error the probe threw.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 60_000, intervalMs = 250 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A fresh namespace with a unique name; returns its name. */
export async function createTestNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const k8s = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const name = `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}`;
  await core.createNamespace({ body: { metadata: { name, labels: { 'devpkg.dev/test': 'integration' } } } });
  return name;
}

/** Delete a namespace, not waiting for it to go away. */
export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  const k8s = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(k8s.CoreV1Api);
  try {
    await core.deleteNamespace({ name });
  } catch (err) {
    if (statusCode(err) !== 404) throw err;
  }
}

/**
 * What tanzu-addons-manager creates for a core package's PackageInstall: a service account bound
 * to a cluster role that may do anything, and a values Secret holding `values`.
 */
export async function createInstallAccount(
  api: KubernetesObjectApi,
  o: { namespace: string; serviceAccount: string; clusterRole: string; valuesSecret: string; values: string },
): Promise<void> {
  await api.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: o.serviceAccount, namespace: o.namespace } });
  await api.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: o.clusterRole },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  } as KubernetesObject);
  await api.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: o.clusterRole },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: o.clusterRole },
    subjects: [{ kind: 'ServiceAccount', name: o.serviceAccount, namespace: o.namespace }],
  } as KubernetesObject);
  await api.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: o.valuesSecret, namespace: o.namespace },
    stringData: { 'values.yaml': o.values },
  } as KubernetesObject);
}
