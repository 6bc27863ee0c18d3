/** Results as the verify and plan code produce them, for report rendering and publishing tests. */
import type { PackageResult, PlannedPackage } from '../../src/results.js';

const T0 = Date.parse('2026-11-29T23:40:00.000Z');
const t = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

export function wonKind(): PackageResult {
  return {
    name: 'antrea',
    version: '1.5.3',
    refName: 'antrea.community.tanzu.vmware.com',
    targetRefName: 'antrea.tanzu.vmware.com',
    releasedVersion: '1.5.3+vmware.1-tkg.1',
    devVersion: '1.5.4-dev.1',
    bundle: '172.18.0.2:5000/devpkg/antrea@sha256:3f1c0a9e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19',
    mode: 'kind',
    verdict: 'won',
    reason: 'kapp-controller installed 1.5.4-dev.1 from the dev bundle and it held through the 60s settle window.',
    phases: [
      { name: 'baseline: released version', startedAt: t(0), seenAt: t(18) },
      { name: 'dev Package applied', startedAt: t(20), seenAt: t(41) },
      { name: 'settle window', startedAt: t(41), seenAt: t(101) },
    ],
    timeline: [
      { at: t(2), object: 'PackageInstall', generation: 1, observedGeneration: 1, condition: 'Reconciling', version: '1.5.3+vmware.1-tkg.1', lastAttemptedVersion: '1.5.3+vmware.1-tkg.1' },
      { at: t(18), object: 'PackageInstall', generation: 1, observedGeneration: 1, condition: 'ReconcileSucceeded', version: '1.5.3+vmware.1-tkg.1', lastAttemptedVersion: '1.5.3+vmware.1-tkg.1' },
      { at: t(21), object: 'PackageInstall', generation: 1, observedGeneration: 1, condition: 'Reconciling', version: '1.5.4-dev.1', lastAttemptedVersion: '1.5.4-dev.1' },
      { at: t(41), object: 'PackageInstall', generation: 1, observedGeneration: 1, condition: 'ReconcileSucceeded', version: '1.5.4-dev.1', lastAttemptedVersion: '1.5.4-dev.1' },
      { at: t(22), object: 'App', generation: 2, observedGeneration: 2, condition: 'Reconciling' },
      { at: t(40), object: 'App', generation: 2, observedGeneration: 2, condition: 'ReconcileSucceeded', message: 'fetch names sha256:3f1c0a9e8d7b' },
    ],
    assertions: [
      { description: 'DaemonSet kube-system/antrea-agent spec.template.metadata.annotations.devpkg equals "yes"', ok: true, detail: 'found "yes"' },
    ],
  };
}

/** A bootstrap run where the TKR controller's rewrite took the dev version away again. */
export function lostBootstrap(): PackageResult {
  return {
    name: 'antrea',
    version: '1.5.3',
    refName: 'antrea.tanzu.vmware.com',
    targetRefName: 'antrea.tanzu.vmware.com',
    releasedVersion: '1.5.3+vmware.1-tkg.1',
    devVersion: '1.5.4-dev.2',
    bundle: 'ghcr.io/example/antrea@sha256:aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44ee55ff66aa11bb22cc33dd44',
    mode: 'bootstrap',
    verdict: 'lost',
    reason:
      'The dev version won after phase 2, then tkg-system/antrea went back to 1.5.3+vmware.1-tkg.1.\nThe PackageInstall now pins version "1.5.3+vmware.1-tkg.1" (ClusterBootstrap, TKG 2.x): a higher dev version cannot win; see | the docs.',
    phases: [
      { name: 'phase 1: ClusterResourceSets', startedAt: t(0), seenAt: t(95) },
      { name: 'phase 2: addons manager', startedAt: t(300), seenAt: t(340) },
      { name: 'phase 3: TKR controller #1', startedAt: t(600) },
    ],
    timeline: [
      { at: t(95), object: 'PackageInstall', generation: 1, observedGeneration: 1, condition: 'ReconcileSucceeded', version: '1.5.4-dev.2', lastAttemptedVersion: '1.5.4-dev.2' },
      { at: t(330), object: 'PackageInstall', generation: 2, observedGeneration: 1, condition: 'Reconciling', version: '1.5.4-dev.2', lastAttemptedVersion: '1.5.4-dev.2' },
      { at: t(340), object: 'PackageInstall', generation: 2, observedGeneration: 2, condition: 'ReconcileSucceeded', version: '1.5.4-dev.2', lastAttemptedVersion: '1.5.4-dev.2' },
      { at: t(640), object: 'PackageInstall', generation: 3, observedGeneration: 3, condition: 'ReconcileSucceeded', version: '1.5.3+vmware.1-tkg.1', lastAttemptedVersion: '1.5.3+vmware.1-tkg.1', message: 'version pinned by ClusterBootstrap: tkg-system/mgmt' },
    ],
    diagnostics: {
      dir: '/tmp/devpkg/diagnostics/antrea-1.5.3',
      excerpt: [
        'kubectl get packageinstall -n tkg-system antrea -o yaml',
        'status:',
        '  version: 1.5.3+vmware.1-tkg.1',
        '  usefulErrorMessage: ""',
        '```',
        '</details> @octocat <img src=x>',
        'App tkg-system/antrea: fetch stdout names sha256:0000 (the released bundle)',
      ].join('\n'),
    },
  };
}

export function reconcileFailed(name = 'calico', version = '3.22.1'): PackageResult {
  return {
    name,
    version,
    refName: `${name}.community.tanzu.vmware.com`,
    targetRefName: `${name}.community.tanzu.vmware.com`,
    devVersion: `${version}-dev.1`,
    mode: 'kind',
    verdict: 'reconcile-failed',
    reason: `Reconcile failed: kapp: Error: Applying create daemonset/${name}-node (apps/v1) namespace: kube-system: DaemonSet.apps "${name}-node" is invalid`,
    timeline: [],
    diagnostics: { dir: `/tmp/devpkg/diagnostics/${name}-${version}`, excerpt: `deploy stderr:\nkapp: Error: Applying create daemonset/${name}-node` },
  };
}

export function planned(name = 'antrea', version = '1.5.3'): PlannedPackage {
  const refName = `${name}.community.tanzu.vmware.com`;
  const devVersion = `${version}-dev.1`;
  return {
    name,
    version,
    refName,
    targetRefName: `${name}.tanzu.vmware.com`,
    releasedVersion: version,
    devVersion,
    mode: 'plan',
    verdict: 'planned',
    reason: 'plan mode: nothing was pushed or applied',
    timeline: [],
    plan: {
      path: `addons/packages/${name}/${version}`,
      devPackageName: `${name}.tanzu.vmware.com.${devVersion}`,
      bundleTag: `${version}-dev.1`,
      bundleImage: `ghcr.io/example/${name}:${version}-dev.1`,
      devVersionReason: `one prerelease above the released ${version}`,
      packageYaml: [
        'apiVersion: data.packaging.carvel.dev/v1alpha1',
        'kind: Package',
        'metadata:',
        `  name: ${name}.tanzu.vmware.com.${devVersion}`,
        'spec:',
        `  refName: ${name}.tanzu.vmware.com`,
        `  version: ${devVersion}`,
        '',
      ].join('\n'),
      overlay: `#@ load("@ytt:overlay", "overlay")\n# the dev Package as a ClusterResourceSet\n`,
      overlayPath: `providers/ytt/04_user_customizations/${name}_dev_package.yaml`,
      commands: [`imgpkg push -b ghcr.io/example/${name}:${version}-dev.1 -f addons/packages/${name}/${version}/bundle`],
    },
  };
}
