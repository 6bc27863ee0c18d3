import type { KObject } from '../verify/evaluate.js';
import { noteDevPackage, notePackageRef, noteRepository, undoFindings, type DevPackageHistory, type PackageRefSighting, type RepositorySighting, type UndoInput } from './undo.js';

const DEV = { name: 'antrea.tanzu.vmware.com.1.5.4-dev.1', refName: 'antrea.tanzu.vmware.com', version: '1.5.4-dev.1' };
const T = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
// Phase 2 complete at 10s: later changes belong to phase 3.
const phaseAt = (at: string) => (at > T(10) ? 3 : 2);

function pkgi(refName = DEV.refName, constraints?: string, annotations: Record<string, string> = {}, useful?: string): KObject {
  return {
    metadata: { name: 'antrea', namespace: 'tkg-system', annotations },
    spec: { packageRef: { refName, versionSelection: { prereleases: {}, ...(constraints ? { constraints } : {}) } } },
    status: useful ? { usefulErrorMessage: useful } : {},
  };
}

function input(over: Partial<UndoInput>): UndoInput {
  return { dev: DEV, pkgi: pkgi(), packageRefs: [{ refName: DEV.refName, at: T(5) }], devPackage: { seenAt: T(1) }, installs: [{ version: DEV.version, at: T(6) }], phaseAt, ...over };
}

const REPO = 'tkg-system/tanzu-core';
const GUARD = "Stopped installing matched version '1.5.3+vmware.1-tkg.1' since last attempted version '1.5.4-dev.1' is higher.\nhint: ...";

describe('undoFindings', () => {
  test.each<[string, Partial<UndoInput>, (string | RegExp)[], ('not-selected' | 'lost' | undefined)[]]>([
    ['nothing undone: no findings', {}, [], []],
    [
      'the BOM names another refName from the start',
      { pkgi: pkgi('antrea.community.tanzu.vmware.com'), packageRefs: [{ refName: 'antrea.community.tanzu.vmware.com', at: T(5) }] },
      [
        "the addons manager's PackageInstall tkg-system/antrea installs refName antrea.community.tanzu.vmware.com (the BOM's packageName, written on every reconcile), not the dev Package's refName antrea.tanzu.vmware.com: the dev Package can never be selected; the 04_user_customizations dev Package must carry the refName the BOM names: give --ref-name antrea.community.tanzu.vmware.com (input ref-name)",
      ],
      ['not-selected'],
    ],
    [
      'an edit to the dev refName and version, re-patched in phase 3',
      {
        pkgi: pkgi('antrea.community.tanzu.vmware.com'),
        packageRefs: [
          { refName: 'antrea.community.tanzu.vmware.com', at: T(5) },
          { refName: DEV.refName, constraints: DEV.version, at: T(8) },
          { refName: 'antrea.community.tanzu.vmware.com', at: T(12) },
        ],
      },
      [
        /^the addons manager re-patched PackageInstall tkg-system\/antrea in phase 3 \(at 2026-01-01T00:00:12Z\): spec.packageRef.refName went from antrea.tanzu.vmware.com back to antrea.community.tanzu.vmware.com; .* undoing edits/,
        `the addons manager's re-patch in phase 3 dropped versionSelection.constraints "${DEV.version}" from PackageInstall tkg-system/antrea`,
      ],
      ['not-selected', undefined],
    ],
    [
      'TKG 2.x: an exact pin to the released version',
      { pkgi: pkgi(DEV.refName, '1.5.3+vmware.1-tkg.1', {}, GUARD) },
      [
        `PackageInstall tkg-system/antrea's versionSelection.constraints "1.5.3+vmware.1-tkg.1" exclude the dev version ${DEV.version}: an exact pin, so a higher dev version cannot win (the TKG 1.x addons manager never sets constraints; TKG 2.x ClusterBootstrap does)`,
        "kapp-controller's downgrade guard refused 1.5.3+vmware.1-tkg.1 (last attempted 1.5.4-dev.1): the App stays on what it had, but PackageInstall tkg-system/antrea fails",
      ],
      [undefined, undefined],
    ],
    ['a range that keeps the dev version: no finding', { pkgi: pkgi(DEV.refName, '>=1.5.0') }, [], []],
    [
      'a repository takes the dev Package over',
      { devPackage: { seenAt: T(1), takenOver: { by: REPO, at: T(14), image: 'reg/packages/core/antrea@sha256:aa' } } },
      [
        `the dev Package ${DEV.name} was taken over in phase 3 by PackageRepository ${REPO}: the repository carries a Package of the same name, so its reconcile rewrote the dev Package to the repository's spec (bundle reg/packages/core/antrea@sha256:aa) and owns it now; choose a dev version the repository does not carry`,
      ],
      ['lost'],
    ],
    [
      'taken over, then deleted by the next repository version; the downgrade guard holds',
      { devPackage: { seenAt: T(1), takenOver: { by: REPO, at: T(14) }, goneAt: T(16) }, pkgi: pkgi(DEV.refName, undefined, {}, GUARD) },
      [
        /taken over in phase 3 by PackageRepository tkg-system\/tanzu-core/,
        `the dev Package ${DEV.name} was deleted in phase 3 by PackageRepository ${REPO}'s reconcile (a repository version without it deletes the Packages the repository owns)`,
        /^kapp-controller's downgrade guard refused 1.5.3\+vmware.1-tkg.1/,
      ],
      ['lost', 'lost', undefined],
    ],
    [
      'deleted, with the downgradable annotation: kapp-controller went back',
      {
        devPackage: { seenAt: T(1), goneAt: T(16) },
        pkgi: pkgi(DEV.refName, undefined, { 'packaging.carvel.dev/downgradable': '' }),
        installs: [{ version: DEV.version, at: T(6) }, { version: '1.5.3+vmware.1-tkg.1', at: T(18) }],
      },
      [
        `the dev Package ${DEV.name} was deleted in phase 3`,
        'PackageInstall tkg-system/antrea carries packaging.carvel.dev/downgradable (the addons manager keeps annotations it does not set), so kapp-controller goes back to a lower version instead of refusing the downgrade: it went back to 1.5.3+vmware.1-tkg.1 at 2026-01-01T00:00:18Z',
      ],
      ['lost', undefined],
    ],
    [
      'an upgrade: a new TKR, and the addons manager re-patched tanzu-core to its BOM\'s repository',
      {
        repositoryImages: [{ image: 'reg/packages/core/repo:v1.6.1', at: T(4) }, { image: 'reg/packages/core/repo:v1.6.2', at: T(13) }],
        // The first TKR was seen after the repository (watches deliver in any order) but made before it.
        tkrs: [
          { name: 'v1.22.9---vmware.2-tkg.1', at: T(12), created: T(11) },
          { name: 'v1.22.9---vmware.1-tkg.1', at: T(12), created: T(1) },
        ],
      },
      [
        'in phase 3 (at 2026-01-01T00:00:13Z) the addons manager re-patched PackageRepository tkg-system/tanzu-core from reg/packages/core/repo:v1.6.1 to reg/packages/core/repo:v1.6.2: ' +
          'the management cluster moved to a TKR whose BOM names another core package repository (an upgrade: TKR v1.22.9---vmware.2-tkg.1); ' +
          "the TKR controller never rewrites a TKR's BOM, so the released Packages change only with a new TKR",
      ],
      [undefined],
    ],
    ['one repository image all along: no finding', { repositoryImages: [{ image: 'reg/packages/core/repo:v1.6.1', at: T(4) }], tkrs: [{ name: 'v1', at: T(3) }] }, [], []],
    ['the downgradable annotation alone, nothing undone: no finding', { pkgi: pkgi(DEV.refName, undefined, { 'packaging.carvel.dev/downgradable': '' }) }, [], []],
  ])('%s', (_what, over, texts, verdicts) => {
    const f = undoFindings(input(over));
    expect(f).toHaveLength(texts.length);
    texts.forEach((t, k) => (typeof t === 'string' ? expect(f[k]!.text).toBe(t) : expect(f[k]!.text).toMatch(t)));
    expect(f.map((x) => x.verdict)).toEqual(verdicts);
  });
});

describe('notePackageRef', () => {
  test('records each change of refName or constraints, and logs changes after the first', () => {
    const refs: PackageRefSighting[] = [];
    const seen = [
      notePackageRef(refs, undefined, T(1)),
      notePackageRef(refs, pkgi('a'), T(2)),
      notePackageRef(refs, pkgi('a'), T(3)),
      notePackageRef(refs, pkgi('b', '1.0.0'), T(4)),
      notePackageRef(refs, pkgi('a'), T(5)),
    ];
    expect(refs).toEqual([{ refName: 'a', at: T(2) }, { refName: 'b', constraints: '1.0.0', at: T(4) }, { refName: 'a', at: T(5) }]);
    expect(seen).toEqual([
      undefined,
      undefined,
      undefined,
      'PackageInstall tkg-system/antrea spec.packageRef now refName b, constraints "1.0.0"',
      'PackageInstall tkg-system/antrea spec.packageRef now refName a, no constraints',
    ]);
  });
});

describe('noteRepository', () => {
  const repo = (image?: string): KObject => ({ metadata: { name: 'tanzu-core', namespace: 'tkg-system' }, spec: image ? { fetch: { imgpkgBundle: { image } } } : {} });
  test('records each image change, and logs changes after the first', () => {
    const seen: RepositorySighting[] = [];
    const lines = [undefined, repo(), repo('r/a:1'), repo('r/a:1'), repo('r/a:2')].map((r, k) => noteRepository(seen, r, T(k)));
    expect(seen).toEqual([{ image: 'r/a:1', at: T(2) }, { image: 'r/a:2', at: T(4) }]);
    expect(lines).toEqual([undefined, undefined, undefined, undefined, 'PackageRepository tkg-system/tanzu-core now fetches r/a:2']);
  });
});

describe('noteDevPackage', () => {
  const pkg = (annotations: Record<string, string> = {}): KObject => ({ metadata: { name: DEV.name, annotations }, spec: { template: { spec: { fetch: [{ imgpkgBundle: { image: 'r/x@sha256:bb' } }] } } } });
  test.each<[string, (KObject | undefined)[], DevPackageHistory, (string | undefined)[]]>([
    ['never there: nothing', [undefined, undefined], {}, [undefined, undefined]],
    ['there, then gone', [pkg(), undefined, undefined], { seenAt: T(0), goneAt: T(1) }, [undefined, `dev Package ${DEV.name} deleted`, undefined]],
    [
      'taken over by a repository, then gone',
      [pkg(), pkg({ 'packaging.carvel.dev/package-repository-ref': 'tkg-system/tanzu-core' }), pkg({ 'packaging.carvel.dev/package-repository-ref': 'tkg-system/tanzu-core' }), undefined],
      { seenAt: T(0), takenOver: { by: 'tkg-system/tanzu-core', at: T(1), image: 'r/x@sha256:bb' }, goneAt: T(3) },
      [undefined, `dev Package ${DEV.name} now belongs to PackageRepository tkg-system/tanzu-core`, undefined, `dev Package ${DEV.name} deleted`],
    ],
  ])('%s', (_what, sequence, history, lines) => {
    const d: DevPackageHistory = {};
    expect(sequence.map((p, k) => noteDevPackage(d, p, DEV.name, T(k)))).toEqual(lines);
    expect(d).toEqual(history);
  });
});
