import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { UsageError } from '../errors.js';
import type { CliIO } from './io.js';
import { run as derive } from './derive.js';
import { run as plan } from './plan.js';
import { run as overlay } from './overlay.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/tce-packages', import.meta.url));
const FROM = 'addons/packages/antrea/1.5.3/package.yaml';
const IMAGE = `10.89.0.2:5000/devpkg/antrea@sha256:${'e'.repeat(64)}`;

function io(cwd = EXAMPLE): CliIO & { out: string; err: string } {
  const o = { out: '', err: '', env: {}, cwd } as CliIO & { out: string; err: string };
  o.stdout = (t) => (o.out += t);
  o.stderr = (t) => (o.err += t);
  return o;
}

describe('devpkg derive', () => {
  test('--help', async () => {
    const x = io();
    expect(await derive(['--help'], x)).toBe(0);
    expect(x.out).toMatch(/^Usage: devpkg derive --from FILE --image REF/);
  });

  test('prints the dev Package', async () => {
    const x = io();
    expect(await derive(['--from', FROM, '--image', IMAGE, '--dev-version', '1.5.4-dev.3', '--namespace', 'tkg-system', '--ref-name', 'antrea.tanzu.vmware.com'], x)).toBe(0);
    const pkg = parse(x.out);
    expect(pkg.metadata).toEqual({
      name: 'antrea.tanzu.vmware.com.1.5.4-dev.3',
      namespace: 'tkg-system',
      annotations: { 'devpkg.dev/derived-from': 'antrea.community.tanzu.vmware.com.1.5.3' },
    });
    expect(pkg.spec.template.spec.fetch).toEqual([{ imgpkgBundle: { image: IMAGE } }]);
    expect(x.err).toBe('');
  });

  test('plans a version above the Package when --dev-version is omitted', async () => {
    const x = io();
    expect(await derive(['--from', FROM, '--image', IMAGE], x)).toBe(0);
    const pkg = parse(x.out);
    expect(pkg.spec.version).toMatch(/^1\.5\.4-dev\.\d{14}$/);
    expect(pkg.metadata.name).toBe(`antrea.community.tanzu.vmware.com.${pkg.spec.version}`);
    expect(x.err).toContain(`version ${pkg.spec.version} (`);
  });

  test.each([
    [[], /--from is required/],
    [['--from', FROM], /--image is required/],
    [['--from', 'nope.yaml', '--image', IMAGE], /cannot read nope.yaml: no such file/],
    [['--from', 'addons/packages/antrea/1.5.3', '--image', IMAGE], /it is a folder; name its package.yaml/],
    [['--from', FROM, '--image', 'x/antrea:1.0', '--dev-version', '1.5.4'], /referenced by tag/],
    [['--from', FROM, '--image', IMAGE, '--dev-version', 'v1.5.4'], /^--dev-version: "v1.5.4" starts with "v"/],
    [['--from', FROM, '--image', IMAGE, '--ref-name', 'antrea.example'], /^--ref-name: "antrea.example" is not a valid refName: it must be a lower-case DNS name with at least three parts/],
    [['--bogus'], /^unknown flag --bogus; devpkg derive --help lists the flags$/],
  ])('%j fails with a usage error', async (argv, message) => {
    const err = await derive(argv, io()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(message);
    expect((err as UsageError).exitCode).toBe(2);
  });

  test.each(['1.0.0', '1.5.3', '1.5.3-dev.1'])('--dev-version %s, which kapp-controller would not pick over 1.5.3, is refused as plan refuses it', async (v) => {
    const x = io();
    const err = await derive(['--from', FROM, '--image', IMAGE, '--dev-version', v], x).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      `dev-version ${v} does not outrank 1.5.3, the highest antrea.community.tanzu.vmware.com version in play; kapp-controller would keep 1.5.3. ` +
        'Give a higher dev-version, or leave it empty and devpkg chooses one',
    );
    expect(x.out).toBe('');
    // plan, given the same version for the same package.yaml, says the same (its name for the package is the folder's).
    const p = io();
    const planErr = await plan(['--repo', '.', '--packages', 'antrea/1.5.3', '--dev-version', v], p).catch((e: unknown) => e);
    expect((planErr as Error).message).toBe((err as Error).message.replace('antrea.community.tanzu.vmware.com version', 'antrea version'));
  });

  test('a broken package.yaml names file and line', async () => {
    const err = await derive(['--from', 'addons/packages/antrea/metadata.yaml', '--image', IMAGE], io()).catch((e: unknown) => e);
    expect(err).toMatchObject({ file: 'addons/packages/antrea/metadata.yaml', line: 2 });
    expect((err as Error).message).toMatch(/not a Package/);
  });
});

describe('devpkg overlay', () => {
  test('prints the ytt file for a derived Package', async () => {
    const d = io();
    await derive(['--from', FROM, '--image', IMAGE, '--dev-version', '1.5.4-dev.3', '--ref-name', 'antrea.tanzu.vmware.com'], d);
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(`${tmpdir()}/devpkg-overlay-cmd-`);
    try {
      await writeFile(`${dir}/dev.yaml`, d.out);
      const x = io(dir);
      expect(await overlay(['--package', 'dev.yaml', '--addon-type', 'cni/antrea'], x)).toBe(0);
      expect(x.out).toContain('#@ def dev_package():\napiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: antrea.tanzu.vmware.com.1.5.4-dev.3\n  namespace: tkg-system\n');
      expect(x.out).toContain('#@ if data.values.TKG_CLUSTER_ROLE != "workload":');
      expect(x.err).toContain('providers/ytt/04_user_customizations/antrea_dev_package.yaml');
      const all = io(dir);
      expect(await overlay(['--package', 'dev.yaml', '--all-clusters', '--namespace', 'packages'], all)).toBe(0);
      expect(all.out).not.toContain('TKG_CLUSTER_ROLE');
      expect(all.out).toContain('  namespace: packages\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('--help and a missing --package', async () => {
    const x = io();
    expect(await overlay(['--help'], x)).toBe(0);
    expect(x.out).toMatch(/^Usage: devpkg overlay --package FILE/);
    await expect(overlay([], io())).rejects.toThrow(/--package is required/);
  });
});
