import { existsSync } from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { DevpkgError } from '../errors.js';

/** Where client-node reads a pod's own credentials from (its in-cluster config). */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Why the default kubeconfig cannot be found, or undefined when there is one to load: the places
 * client-node's loadFromDefault reads ($KUBECONFIG's files, else ~/.kube/config, else a pod's
 * service account). Where none holds anything it falls back to http://localhost:8080, which only
 * fails later as unreachable; this names what was looked at instead. `flag` names the flag or
 * input that gives a file. Windows, where client-node also asks WSL, is left to it.
 */
export function missingKubeconfig(
  flag: string,
  env: NodeJS.ProcessEnv = process.env,
  exists: (file: string) => boolean = existsSync,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform === 'win32') return undefined;
  const looked = `no kubeconfig found (looked at ${flag} / $KUBECONFIG / ~/.kube/config)`;
  const fix = `give ${flag} FILE, or set KUBECONFIG to the cluster's kubeconfig`;
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(path.delimiter).filter((f) => f !== '');
    if (files.some(exists)) return undefined;
    return `${looked}: $KUBECONFIG names ${files.join(', ')}, which ${files.length > 1 ? 'do' : 'does'} not exist; ${fix}`;
  }
  if (env.HOME && exists(path.join(env.HOME, '.kube', 'config'))) return undefined;
  if (exists(SERVICE_ACCOUNT_TOKEN)) return undefined;
  return `${looked}; ${fix}`;
}

/** Throws (exit 2) when no kubeconfig is given and none is found where the default is read. */
export function requireKubeconfig(file: string | undefined, flag: string): void {
  const missing = file ? undefined : missingKubeconfig(flag);
  if (missing) throw new DevpkgError(missing, { exitCode: 2 });
}

/**
 * A KubeConfig from a file, or the default one ($KUBECONFIG, ~/.kube/config, in-cluster).
 * Loaded only when a command needs a cluster (the client is imported here, lazily). `flag`
 * names where a file is given (`--kubeconfig`, `input kubeconfig`) in the messages.
 */
export async function loadKubeConfig(file?: string, flag = '--kubeconfig'): Promise<KubeConfig> {
  requireKubeconfig(file, flag);
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  try {
    if (file) kc.loadFromFile(file);
    else kc.loadFromDefault();
  } catch (err) {
    throw new DevpkgError(`cannot load kubeconfig ${file ?? '(default: $KUBECONFIG or ~/.kube/config)'}: ${(err as Error).message}`, { cause: err });
  }
  if (!kc.getCurrentCluster()) {
    throw new DevpkgError(`kubeconfig ${file ?? '(default)'} has no current cluster; pass ${flag} or set a current-context`);
  }
  return kc;
}
