// Where the integration tests find the harness that globalSetup brought up.
import { join } from 'node:path';

export interface HarnessEnv {
  /** State directory of the harness (logs, certs, kubeconfig). */
  dir: string;
  /** Admin kubeconfig of the harness's kube-apiserver. */
  kubeconfig: string;
  /** host:port of the loopback OCI registry (plain HTTP). */
  registry: string;
  /** https URL of kube-apiserver. */
  apiserver: string;
  /** Kubernetes version of the control plane, e.g. v1.37.2. */
  kubernetesVersion: string;
  /** Directory with the harness's tools (kubectl, ytt, imgpkg, kbld, kapp, vendir, ...). */
  binDir: string;
  /** process.env with the harness exports, to hand to spawned tools. */
  processEnv: NodeJS.ProcessEnv;
}

/** The harness environment; throws when the tests were started without the integration globalSetup. */
export function harnessEnv(): HarnessEnv {
  const e = process.env;
  const missing = ['DEVPKG_HARNESS_DIR', 'KUBECONFIG', 'DEVPKG_TEST_REGISTRY', 'DEVPKG_TEST_APISERVER'].filter(
    (k) => !e[k],
  );
  if (missing.length > 0 || e.DEVPKG_HARNESS_UP !== '1') {
    throw new Error(
      `The test harness is not up (missing ${missing.join(', ') || 'DEVPKG_HARNESS_UP'}); run integration tests ` +
        'with `npm run test:integration` (its globalSetup starts test/harness/controlplane.sh).',
    );
  }
  const dir = e.DEVPKG_HARNESS_DIR as string;
  return {
    dir,
    kubeconfig: e.KUBECONFIG as string,
    registry: e.DEVPKG_TEST_REGISTRY as string,
    apiserver: e.DEVPKG_TEST_APISERVER as string,
    kubernetesVersion: e.DEVPKG_TEST_KUBERNETES_VERSION ?? '',
    binDir: join(dir, 'bin'),
    processEnv: { ...process.env },
  };
}
