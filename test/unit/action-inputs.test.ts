// Issue 35: every action input reaches every mode that documents it. Every input of action.yml is
// either one that shapes the plan request (the one request every mode builds in
// src/pipeline/request.ts), proven here mode by mode, or a mode's own input, named with the test
// that proves it. A new input of action.yml fails this test until it is placed in one of them.
// Kind and cluster mode's own inputs are also proven for each of the two modes, in process: mode-own-inputs.test.ts;
// bootstrap mode's in test/integration/bootstrap-own-inputs.test.ts (real ytt, the tanzu CLI's stand-in).
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { parse } from 'yaml';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { parseInputs } from '../../src/inputs.js';
import type { Mode } from '../../src/results.js';
import type { ModeContext } from '../../src/pipeline/context.js';
import { changedRefs, plannedRefs } from '../../src/pipeline/steps.js';
import { sequenceFromContext } from '../../src/pipeline/selection.js';
import { run as planMode } from '../../src/modes/plan.js';
import { run as detectMode } from '../../src/modes/detect.js';
import { actionTestScope } from '../support/action-scope.js';
import { inputsFrom } from '../support/inputs.js';

jest.setTimeout(120000);
const dirs = actionTestScope();

const ACTION = parse(readFileSync(resolve('action.yml'), 'utf8')) as { inputs: Record<string, unknown> };

/** The inputs that pick the package versions in play and where they are read. */
const SELECTION = ['working-directory', 'packages-dir', 'layout', 'packages', 'all', 'base-ref', 'head-ref', 'ignore'];

/** Which plan-request inputs each mode documents (action.yml, README "Inputs"). */
const DOCUMENTED: Record<Exclude<Mode, 'report'>, string[]> = {
  plan: [...SELECTION, 'released-version', 'registry', 'ref-name', 'dev-version', 'addon-type'],
  detect: SELECTION,
  // kind pushes to the registry it creates (registry is refused there).
  kind: [...SELECTION, 'released-version', 'ref-name', 'dev-version'],
  cluster: [...SELECTION, 'released-version', 'registry', 'ref-name', 'dev-version'],
  // bootstrap takes one version folder: its own use of registry, ref-name, dev-version, addon-type and
  // every other input it documents is proven in process in test/integration/bootstrap-own-inputs.test.ts.
  bootstrap: SELECTION,
};

/** Inputs a mode reads itself, not through the plan request, and the tests that prove each. */
const OWN: Record<string, string[]> = {
  mode: ['test/unit/action.test.ts'],
  config: ['test/unit/config-action.test.ts'],
  'cluster-registry': ['test/unit/cluster-registry.test.ts'],
  'registry-username': ['test/unit/kind-mode.test.ts'],
  'registry-password': ['test/unit/kind-mode.test.ts'],
  'package-install': ['test/integration/verify.test.ts', 'src/cluster/dev.test.ts'],
  kubeconfig: ['test/integration/cluster-layouts.test.ts'],
  'push-command': ['test/integration/kind-mode.test.ts'],
  'push-timeout': ['src/bundle/push.test.ts', 'test/integration/faults.test.ts'],
  'lock-images': ['test/integration/bundle.test.ts', 'src/commands/push.test.ts'],
  settle: ['src/verify/verifier.flow.test.ts', 'test/integration/verdicts.test.ts'],
  timeout: ['src/verify/verifier.flow.test.ts', 'test/integration/verdicts.test.ts'],
  assert: ['src/verify/assertions.test.ts'],
  'github-token': ['test/unit/report-comment.test.ts'],
  comment: ['test/unit/report-comment.test.ts'],
  'comment-header': ['test/unit/report-comment.test.ts'],
  'artifact-name': ['test/unit/report-mode.test.ts'],
  'results-path': ['test/unit/report-mode.test.ts'],
  'kind-version': ['test/unit/kind-first-try.test.ts'],
  'kind-sha256': ['src/cluster/kind.test.ts'],
  'kind-node-image': ['test/unit/kind-mode.test.ts'],
  'kind-config': ['src/cluster/kind-config.test.ts'],
  'registry-image': ['test/unit/kind-mode.test.ts'],
  'kapp-controller-version': ['src/cluster/kind.test.ts'],
  'kapp-controller-manifest': ['test/unit/kind-mode.test.ts'],
  'kapp-controller-sha256': ['src/cluster/kind.test.ts'],
  'imgpkg-version': ['src/tools/releases.test.ts', 'test/unit/bad-inputs.test.ts'],
  'imgpkg-sha256': ['src/tools/carvel.test.ts'],
  'kbld-version': ['test/unit/bad-inputs.test.ts'],
  'kbld-sha256': ['src/tools/carvel.test.ts'],
  'ytt-version': ['src/tools/releases.test.ts', 'test/unit/bad-inputs.test.ts'],
  'ytt-sha256': ['src/tools/install.test.ts'],
  'tool-checksums': ['src/tools/releases.test.ts', 'test/unit/bad-inputs.test.ts'],
  'tanzu-cli': ['test/integration/bootstrap.test.ts'],
  'tanzu-cli-url': ['src/providers/tanzu-cli.test.ts'],
  'tanzu-cli-sha256': ['src/providers/tanzu-cli.test.ts'],
  'tanzu-dir': ['src/providers/paths.test.ts'],
  'cluster-config': ['test/unit/bootstrap-mode-inputs.test.ts'],
  'bootstrap-timeout': ['test/unit/dev-version-modes.test.ts', 'test/unit/bad-inputs.test.ts'],
  'host-check': ['test/unit/bootstrap-mode-inputs.test.ts'],
  'tkg-custom-image-repository': ['src/providers/image-repository.test.ts'],
  'tkg-custom-image-repository-skip-tls-verify': ['src/providers/image-repository.test.ts'],
  'tkg-custom-image-repository-ca-certificate': ['src/providers/image-repository.test.ts'],
};

/** Where an own input reaches a function under another name, that name (the test names it so). */
const SEAM: Record<string, string> = {
  'tanzu-cli-url': 'url',
  'tanzu-cli-sha256': 'sha256',
};

test('every input of action.yml is placed: a plan-request input of the modes that document it, or a mode\'s own with its test', () => {
  const planInputs = new Set(Object.values(DOCUMENTED).flat());
  const unplaced = Object.keys(ACTION.inputs).filter((i) => !planInputs.has(i) && !(i in OWN));
  expect(unplaced).toEqual([]);
  // Each named test exists and names the input: as the action does (`push-timeout`), as the CLI
  // does (`--push-timeout`), as Inputs holds it (`pushTimeoutMs`), or as the function it reaches
  // takes it (SEAM): a test that never names it cannot be what proves it.
  const missing: string[] = [];
  for (const [input, files] of Object.entries(OWN)) {
    expect(Object.keys(ACTION.inputs)).toContain(input);
    const camel = input.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    for (const f of files) {
      expect(existsSync(resolve(f))).toBe(true);
      const text = readFileSync(resolve(f), 'utf8');
      const names = [input, `--${input}`, camel, `${camel}Ms`, ...(SEAM[input] ? [SEAM[input]] : [])];
      if (!names.some((n) => new RegExp(`(^|[^\\w-])${n.replace(/[-]/g, '\\-')}([^\\w-]|$)`).test(text))) missing.push(`${input}: ${f}`);
    }
  }
  expect(missing).toEqual([]);
});

/**
 * A repository with a TCE tree, a kctrl package and, in `sub`, another TCE tree; the head commit
 * changes a file of each and a README.
 */
function fixture(): { top: string; base: string; head: string } {
  const top = mkdtempSync(join(tmpdir(), 'devpkg-inputs-'));
  dirs.push(top);
  const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: top, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  cpSync(resolve('examples/tce-packages'), top, { recursive: true });
  cpSync(resolve('examples/kctrl/simple-app'), join(top, 'kctrl/simple-app'), { recursive: true });
  cpSync(resolve('examples/tce-packages/addons/packages/calico'), join(top, 'sub/addons/packages/calico'), { recursive: true });
  g('add', '-A');
  g('commit', '-qm', 'base');
  const base = g('rev-parse', 'HEAD');
  writeFileSync(join(top, 'addons/packages/antrea/1.5.3/bundle/config/values.yaml'), '#@data/values\n---\nedited: 1\n');
  writeFileSync(join(top, 'kctrl/simple-app/config/values.yml'), '#@data/values\n---\nnamespace: default\ngreeting: edited\n');
  writeFileSync(join(top, 'sub/addons/packages/calico/3.22.1/bundle/config/values.yaml'), '#@data/values\n---\nedited: 1\n');
  writeFileSync(join(top, 'README.md'), 'edited\n');
  g('add', '-A');
  g('commit', '-qm', 'head');
  return { top, base, head: g('rev-parse', 'HEAD') };
}

/** Each plan-request input with a value that must change what a mode does, given the fixture's commits. */
function changedValue(input: string, f: { base: string; head: string }): string {
  const values: Record<string, string> = {
    'working-directory': 'sub',
    'packages-dir': 'nope/packages',
    layout: 'tce',
    packages: 'calico/3.22.1',
    all: 'true',
    'base-ref': f.head,
    'head-ref': f.base,
    ignore: '**/*.yml',
    'released-version': '0.5.0',
    registry: 'registry.example.invalid/other',
    'ref-name': 'antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com',
    'dev-version': '99.0.0',
    'addon-type': 'cni/antrea',
  };
  const v = values[input];
  if (v === undefined) throw new Error(`no changed value for ${input}`);
  return v;
}

/** What a mode does with the packages, as far as no cluster is needed: the mode's own entry, cluster I/O left out. */
async function whatModeDoes(mode: Exclude<Mode, 'report'>, values: Record<string, string>, top: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-inputs-run-'));
  dirs.push(work);
  const host = new RecordingHost();
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '1', runNumber: 3, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: top,
  };
  try {
    const inputs = parseInputs(inputsFrom({ mode, comment: 'false', ...values }));
    const ctx: ModeContext = { inputs, github, host, exec: (await import('../../src/tools/exec.js')).execTool, env: { RUNNER_TEMP: work }, resultsDir: join(work, 'results') };
    if (mode === 'plan' || mode === 'detect') {
      await (mode === 'plan' ? planMode : detectMode)(ctx).catch((e: Error) => host.outputs.error = e.message);
      // The report too (plan mode's summary shows each overlay), without its footer's clock.
      const report = host.summaries.join('\n').replace(/<sub>.*<\/sub>/g, '');
      return JSON.stringify([host.outputs.packages, host.outputs.removed, host.outputs.problems, host.outputs.error, report]);
    }
    if (mode === 'bootstrap') return JSON.stringify((await changedRefs(ctx, mode, sequenceFromContext(ctx))).refs);
    const { planned, unplanned, tools } = await plannedRefs(ctx, mode, sequenceFromContext(ctx));
    return JSON.stringify([planned.map((p) => [p.name, p.version, p.reason, p.targetRefName, p.plan?.bundleImage, p.plan?.overlay]), unplanned.map((p) => p.reason), tools]);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe.each(Object.keys(DOCUMENTED) as Array<keyof typeof DOCUMENTED>)('mode %s', (mode) => {
  test('each plan-request input it documents changes what it does', async () => {
    const f = fixture();
    const baseline = { 'base-ref': f.base, 'head-ref': f.head, ...(mode === 'cluster' ? { registry: 'registry.example.invalid/dev' } : {}) };
    const before = await whatModeDoes(mode, baseline, f.top);
    expect(before).not.toMatch(/^error/);
    // The control: the same inputs do the same (so a difference below is the input's doing).
    expect(await whatModeDoes(mode, baseline, f.top)).toBe(before);
    const same: string[] = [];
    for (const input of DOCUMENTED[mode]) {
      const after = await whatModeDoes(mode, { ...baseline, [input]: changedValue(input, f) }, f.top);
      if (after === before) same.push(input);
    }
    expect(same).toEqual([]);
  });
});
