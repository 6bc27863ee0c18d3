import { describe, expect, test } from '@jest/globals';
import { kubectlArgs, resourceArg } from './kubectl.js';

describe('kubectlArgs', () => {
  test.each<[string, string[], string[]]>([
    ['apply', kubectlArgs.applyFile({ file: 'r.yml' }), ['apply', '-f', 'r.yml']],
    [
      'server-side apply with kubeconfig',
      kubectlArgs.applyFile({ file: 'r.yml', kubeconfig: '/k', serverSide: true, fieldManager: 'devpkg' }),
      ['--kubeconfig', '/k', 'apply', '-f', 'r.yml', '--server-side', '--force-conflicts', '--field-manager=devpkg'],
    ],
    [
      'wait',
      kubectlArgs.wait({ resource: 'packageinstall.v1alpha1.packaging.carvel.dev/antrea', namespace: 'tkg-system', for: 'condition=ReconcileSucceeded', timeout: '60s' }),
      ['wait', '-n', 'tkg-system', 'packageinstall.v1alpha1.packaging.carvel.dev/antrea', '--for=condition=ReconcileSucceeded', '--timeout=60s'],
    ],
    ['delete', kubectlArgs.delete({ resource: 'namespace/x' }), ['delete', 'namespace/x', '--ignore-not-found', '--wait=false']],
    [
      'rollout status',
      kubectlArgs.rolloutStatus({ resource: 'deployment/kapp-controller', namespace: 'kapp-controller', context: 'kind-d' }),
      ['--context', 'kind-d', 'rollout', 'status', '-n', 'kapp-controller', 'deployment/kapp-controller', '--timeout=300s'],
    ],
  ])('%s', (_n, got, want) => expect(got).toEqual(want));

  test.each([
    ['v1', 'Namespace', 'x', 'namespace/x'],
    ['packaging.carvel.dev/v1alpha1', 'PackageInstall', 'antrea', 'packageinstall.v1alpha1.packaging.carvel.dev/antrea'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'b', 'clusterrolebinding.v1.rbac.authorization.k8s.io/b'],
  ])('resourceArg(%s, %s)', (api, kind, name, want) => expect(resourceArg(api, kind, name)).toBe(want));
});
