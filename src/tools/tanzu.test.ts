import { Tanzu, tanzuArgs } from './tanzu.js';
import { yttArgs, parseYttVersion } from './ytt.js';
import type { ExecFn } from './exec.js';

describe('tanzuArgs', () => {
  test.each([
    [{ file: 'c.yaml', dryRun: true, infrastructure: 'docker' }, ['management-cluster', 'create', '-i', 'docker', '--file', 'c.yaml', '--dry-run']],
    [{ file: 'c.yaml', infrastructure: 'docker', logFile: 'l.log', verbosity: 6 }, ['management-cluster', 'create', '-i', 'docker', '--file', 'c.yaml', '--yes', '--log-file', 'l.log', '-v', '6']],
    [{ file: 'c.yaml' }, ['management-cluster', 'create', '--file', 'c.yaml', '--yes']],
  ])('create %j', (o, argv) => expect(tanzuArgs.create(o)).toEqual(argv));

  test('kubeconfig and delete', () => {
    expect(tanzuArgs.kubeconfigAdmin('/k')).toEqual(['management-cluster', 'kubeconfig', 'get', '--admin', '--export-file', '/k']);
    expect(tanzuArgs.delete('mgmt')).toEqual(['management-cluster', 'delete', 'mgmt', '--yes']);
  });

  test('plugins and init (TCE install.sh)', () => {
    expect(tanzuArgs.pluginInstallAllLocal('/r/linux-amd64-default')).toEqual(['plugin', 'install', 'all', '--local', '/r/linux-amd64-default']);
    expect(tanzuArgs.pluginInstall('management-cluster')).toEqual(['plugin', 'install', 'management-cluster']);
    expect(tanzuArgs.init()).toEqual(['init']);
    expect(tanzuArgs.managementClusterHelp()).toEqual(['management-cluster', '--help']);
  });
});

describe('Tanzu', () => {
  test('dry-run sets SUPPRESS_PROVIDERS_UPDATE only when asked, and HOME always', async () => {
    const calls: { args: readonly string[]; env?: Record<string, string | undefined> }[] = [];
    const exec: ExecFn = async (_cmd, args, opts) => {
      calls.push({ args, env: opts?.env });
      return { code: 0, stdout: 'rendered', stderr: '' };
    };
    const t = new Tanzu('/bin/tanzu', exec, { HOME: '/h' });
    expect(await t.dryRun('c.yaml', true)).toBe('rendered');
    await t.dryRun('c.yaml', false);
    expect(calls[0]!.env).toEqual({ HOME: '/h', SUPPRESS_PROVIDERS_UPDATE: '1' });
    expect(calls[1]!.env).toEqual({ HOME: '/h' });
  });

  test('a failed dry-run names the command and the output', async () => {
    const exec: ExecFn = async () => ({ code: 1, stdout: '', stderr: 'Error: unable to find providers' });
    await expect(new Tanzu('tanzu', exec).dryRun('c.yaml', true)).rejects.toThrow(/--dry-run --file c.yaml failed \(exit 1\): Error: unable to find providers/);
  });
});

describe('yttArgs', () => {
  test.each([
    [{ files: ['a', 'b'] }, ['-f', 'a', '-f', 'b']],
    [{ files: ['a'], dataValuesFiles: ['v.yaml'] }, ['-f', 'a', '--data-values-file', 'v.yaml']],
    [
      { files: ['a', 'bom'], fileMarks: ['b.yaml:type=text-plain'], dataValuesYaml: ['CNI=antrea', 'X=""'] },
      ['-f', 'a', '-f', 'bom', '--file-mark', 'b.yaml:type=text-plain', '--data-value-yaml', 'CNI=antrea', '--data-value-yaml', 'X=""'],
    ],
  ])('template %j', (o, argv) => expect(yttArgs.template(o)).toEqual(argv));
  test('version', () => {
    expect(parseYttVersion('ytt version 0.53.0\n')).toBe('0.53.0');
    expect(parseYttVersion('nope')).toBeUndefined();
  });
});
