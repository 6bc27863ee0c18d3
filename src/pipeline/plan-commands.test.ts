import { packageSteps, renderStep, renderSteps, shellWord, shownPath, type PlanPlace, type PlanStep, type StepsInput, type StepsOptions } from './plan-commands.js';

const place = (o: Partial<PlanPlace> = {}): PlanPlace => ({ cwd: '/w', root: '/w/repo', out: '/w/plan', written: true, ...o });

describe('shownPath: relative to where the user stands, absolute outside it', () => {
  test.each([
    ['repository file under cwd', { at: 'repo', path: 'a/b' }, place(), 'repo/a/b'],
    ['the repository root', { at: 'repo', path: '' }, place({ cwd: '/w/repo' }), '.'],
    ['plan folder under cwd', { at: 'out', path: 'x/1.0.0/dev-package.yaml' }, place(), 'plan/x/1.0.0/dev-package.yaml'],
    ['cwd inside the repository: the plan folder is outside', { at: 'out', path: 'f' }, place({ cwd: '/w/repo/sub' }), '/w/plan/f'],
    ['cwd inside the repository: a repository file above', { at: 'repo', path: 'a' }, place({ cwd: '/w/repo/sub' }), '/w/repo/a'],
    ['cwd elsewhere', { at: 'repo', path: 'a' }, place({ cwd: '/elsewhere' }), '/w/repo/a'],
    ['home', { at: 'home', path: '.config/tanzu/x' }, place(), '~/.config/tanzu/x'],
  ] as const)('%s', (_what, p, pl, want) => {
    expect(shownPath(p, pl)).toBe(want);
  });
});

test.each([
  ['plain', 'addons/packages/antrea/1.5.3', 'addons/packages/antrea/1.5.3'],
  ['build metadata', 'a/0.24.4+update.2', 'a/0.24.4+update.2'],
  ['a space', 'my repo/x', "'my repo/x'"],
  ['a quote', "it's", "'it'\\''s'"],
  ['empty', '', "''"],
])('shellWord: %s', (_what, w, want) => {
  expect(shellWord(w)).toBe(want);
});

describe('renderStep', () => {
  const kubectl: PlanStep = { words: ['kubectl', 'apply', '-f', { at: 'out', path: 'a/1/dev-package.yaml' }], why: 'a cluster' };
  const writer: PlanStep = { words: ['devpkg', 'plan', '--out', { at: 'out', path: '' }], writesPlan: true };
  const after: PlanStep = { words: ['tanzu', 'create'], afterOut: true };
  const repoOnly: PlanStep = { words: ['devpkg', 'kind', '--repo', { at: 'repo', path: '' }] };
  test.each([
    ['written: a command', kubectl, place(), 'kubectl apply -f plan/a/1/dev-package.yaml   # a cluster'],
    ['not written: a comment saying where', kubectl, place({ written: false }), '# kubectl apply -f plan/a/1/dev-package.yaml   # a cluster'],
    ['the step that writes the folder stays a command', writer, place({ written: false }), 'devpkg plan --out plan'],
    ['a step after one needing the folder', after, place({ written: false }), '# tanzu create'],
    ['repository paths only', repoOnly, place({ written: false }), 'devpkg kind --repo repo'],
    ['a note', { words: ['see', { at: 'repo', path: 'x' }], note: true }, place(), '# see repo/x'],
    ['a path with a space is quoted', { words: ['cat', { at: 'repo', path: 'a b' }] }, place(), "cat 'repo/a b'"],
  ] as Array<[string, PlanStep, PlanPlace, string]>)('%s', (_what, step, pl, want) => {
    expect(renderStep(step, pl)).toBe(want);
  });

  test('omit (the action): steps needing unwritten files are left out, the writer stays', () => {
    expect(renderSteps([writer, kubectl, after, repoOnly], place({ written: false, unwritten: 'omit' }))).toEqual(['devpkg plan --out plan', 'devpkg kind --repo repo']);
    // Written: the files are there, every step is a command and the writer is not repeated.
    expect(renderSteps([writer, kubectl, after, repoOnly], place({ written: true, unwritten: 'omit' }))).toEqual(['kubectl apply -f plan/a/1/dev-package.yaml   # a cluster', 'tanzu create', 'devpkg kind --repo repo']);
  });
});

describe('packageSteps by what the layout allows', () => {
  const base: StepsInput = {
    name: 'antrea',
    version: '1.5.3',
    path: 'addons/packages/antrea/1.5.3',
    refName: 'antrea.community.tanzu.vmware.com',
    targetRefName: 'antrea.community.tanzu.vmware.com',
    tagImage: 'localhost:5001/devpkg/antrea-bundle:1.5.4-dev.1',
    push: { kind: 'folder', folder: 'addons/packages/antrea/1.5.3/bundle' },
    overlayFile: 'antrea_dev_package.yaml',
  };
  const o: StepsOptions = { build: false, registry: 'localhost:5001/devpkg' };
  const lines = (i: Partial<StepsInput>, x: Partial<StepsOptions> = {}, pl: Partial<PlanPlace> = {}) => renderSteps(packageSteps({ ...base, ...i }, { ...o, ...x }), place(pl));

  test('a version folder (tce): push, apply, dev, the overlay and bootstrap', () => {
    expect(lines({ push: { kind: 'folder', folder: 'addons/packages/antrea/1.5.3/bundle' }, bootstrap: { folder: 'addons/packages/antrea/1.5.3' } })).toEqual([
      'imgpkg push -b localhost:5001/devpkg/antrea-bundle:1.5.4-dev.1 -f repo/addons/packages/antrea/1.5.3/bundle --lock-output plan/antrea/1.5.3/bundle.lock.yml',
      '# to pin it by digest: bundle.image of plan/antrea/1.5.3/bundle.lock.yml is REPO@sha256:...; put it in spec.template.spec.fetch[0].imgpkgBundle.image of plan/antrea/1.5.3/dev-package.yaml',
      'kubectl apply --server-side -f plan/antrea/1.5.3/dev-package.yaml   # a running cluster: the dev Package beside the released one',
      'devpkg dev --package repo/addons/packages/antrea/1.5.3 --registry localhost:5001/devpkg   # or push, apply and verify on a running cluster in one step',
      'cp plan/antrea/1.5.3/antrea_dev_package.yaml ~/.config/tanzu/tkg/providers/ytt/04_user_customizations/antrea_dev_package.yaml   # bootstrap phases 2 and 3',
      'SUPPRESS_PROVIDERS_UPDATE=1 tanzu management-cluster create -i docker --file "${CLUSTER_CONFIG:?your management cluster config file}"   # keeps the providers folder with the overlay',
      'devpkg bootstrap --package repo/addons/packages/antrea/1.5.3 --registry localhost:5001/devpkg --cluster-config "${CLUSTER_CONFIG:?your management cluster config file}"   # or all three phases (phase 1: the vendored bundle/config too), checked and verified',
    ]);
  });

  test('a refName mapping is passed on explicitly', () => {
    const l = lines({ push: { kind: 'folder', folder: 'b' }, bootstrap: { folder: 'addons/packages/antrea/1.5.3' }, targetRefName: 'antrea.tanzu.vmware.com' });
    expect(l.find((x) => x.startsWith('devpkg dev'))).toContain('--ref-name antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com');
  });

  test('a built bundle (kctrl) with --build: pushed from the plan folder; kind next, no bootstrap lines', () => {
    const l = lines({ name: 'simple-app', version: '0.0.0', path: 'simple-app', push: { kind: 'build', what: 'as kctrl does' } }, { build: true, layout: 'kctrl' });
    expect(l[0]).toBe('imgpkg push -b localhost:5001/devpkg/antrea-bundle:1.5.4-dev.1 -f plan/simple-app/0.0.0/bundle --lock-output plan/simple-app/0.0.0/bundle.lock.yml');
    expect(l).toContain('devpkg kind --repo repo --packages simple-app/0.0.0 --layout kctrl   # a throwaway kind cluster: the released version, then this dev Package, verified');
    expect(l.filter((x) => !x.startsWith('#')).join('\n')).not.toMatch(/tanzu management-cluster|devpkg bootstrap|devpkg dev|^cp /m);
  });

  test('a built bundle without --build: the push is a comment naming where --build would put it', () => {
    const l = lines({ name: 'simple-app', version: '0.0.0', path: 'simple-app', push: { kind: 'build', what: 'as kctrl does' } });
    expect(l[0]).toBe('# the bundle is built as kctrl does; add --build to write it to plan/simple-app/0.0.0/bundle and push it:');
    expect(l[1]).toMatch(/^# imgpkg push .* -f plan\/simple-app\/0\.0\.0\/bundle /);
    expect(l.filter((x) => !x.startsWith('#')).join('\n')).not.toContain('/bundle');
  });

  test("the Package's own bundle (a repository): nothing pushed", () => {
    const l = lines({ name: 'simple-app', version: '1.1.0', path: 'packages/x/1.1.0.yml', push: { kind: 'as-is', image: 'r.example/x@sha256:00' } });
    expect(l[0]).toBe("# no push: the Package's own bundle r.example/x@sha256:00 is used as it is");
    expect(l.join('\n')).not.toContain('imgpkg push');
    expect(l.some((x) => x.startsWith('devpkg kind --repo repo --packages simple-app/1.1.0'))).toBe(true);
  });

  test('not written: the first line writes the files, with the flags that shape them', () => {
    const l = lines({ push: { kind: 'folder', folder: 'b' }, bootstrap: { folder: 'addons/packages/antrea/1.5.3' } }, { packagesDir: 'pkgs', addonType: 'cni/antrea' }, { written: false });
    expect(l[0]).toBe(
      'devpkg plan --repo repo --packages antrea/1.5.3 --packages-dir pkgs --registry localhost:5001/devpkg --addon-type cni/antrea --out plan   # writes the files and prints the commands that use them (with a new dev version)',
    );
    expect(l.filter((x) => !x.startsWith('#')).join('\n')).not.toContain('plan/antrea');
  });
});
