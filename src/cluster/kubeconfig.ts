import type { KubeConfig } from '@kubernetes/client-node';
import { DevpkgError } from '../errors.js';

/**
 * A KubeConfig from a file, or the default one ($KUBECONFIG, ~/.kube/config, in-cluster).
 * Loaded only when a command needs a cluster (the client is imported here, lazily).
 */
export async function loadKubeConfig(path?: string): Promise<KubeConfig> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  try {
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
  } catch (err) {
    throw new DevpkgError(`cannot load kubeconfig ${path ?? '(default: $KUBECONFIG or ~/.kube/config)'}: ${(err as Error).message}`, { cause: err });
  }
  if (!kc.getCurrentCluster()) {
    throw new DevpkgError(
      `kubeconfig ${path ?? '(default)'} has no current cluster; pass --kubeconfig (input kubeconfig) or set a current-context`,
    );
  }
  return kc;
}
