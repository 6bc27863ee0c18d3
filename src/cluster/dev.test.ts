import { describe, expect, test } from '@jest/globals';
import type { KObject } from '../verify/evaluate.js';
import { addonsManagerPackageInstall, installIdentity } from './baseline.js';
import { matchPackageInstalls, versionsInPlay } from './dev.js';

const pkgi = (ns: string, name: string, refName: string, status: object = {}): KObject => ({
  metadata: { namespace: ns, name },
  spec: { packageRef: { refName, versionSelection: { prereleases: {} } } },
  status,
});

describe('matchPackageInstalls', () => {
  test('only the refName, sorted', () => {
    const all = [pkgi('tkg-system', 'antrea', 'antrea.tanzu.vmware.com'), pkgi('a', 'x', 'calico.tanzu.vmware.com'), pkgi('default', 'antrea2', 'antrea.tanzu.vmware.com')];
    expect(matchPackageInstalls(all, 'antrea.tanzu.vmware.com').map((p) => `${p.namespace}/${p.name}`)).toEqual(['default/antrea2', 'tkg-system/antrea']);
  });
});

describe('versionsInPlay', () => {
  test('Packages plus what was installed and last attempted (downgrade guard)', () => {
    const pkgs: KObject[] = [{ spec: { version: '1.5.3' } }, { spec: { version: '1.5.3' } }];
    const infos = matchPackageInstalls([pkgi('n', 'a', 'r.x', { version: '1.5.3', lastAttemptedVersion: '1.5.4-dev.9' })], 'r.x');
    expect(versionsInPlay(pkgs, infos)).toEqual(['1.5.3', '1.5.4-dev.9']);
  });
});

describe('baseline objects', () => {
  test('PackageInstall like the addons manager', () => {
    expect(addonsManagerPackageInstall({ namespace: 'tkg-system', name: 'antrea', refName: 'antrea.tanzu.vmware.com', serviceAccount: 'antrea-sa' })).toEqual({
      apiVersion: 'packaging.carvel.dev/v1alpha1',
      kind: 'PackageInstall',
      metadata: { name: 'antrea', namespace: 'tkg-system' },
      spec: { serviceAccountName: 'antrea-sa', packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } }, syncPeriod: '30s' },
    });
  });
  test('identity: namespace, service account, cluster-admin binding', () => {
    const objs = installIdentity('tkg-system', 'antrea-sa');
    expect(objs.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(['Namespace/tkg-system', 'ServiceAccount/antrea-sa', 'ClusterRoleBinding/antrea-sa-tkg-system-cluster-admin']);
  });
});
