/**
 * `devpkg bootstrap --prepare-only` without --cluster-config on an already populated providers
 * folder (the seed workflow's usual case): it prepares the folder and still prints the next
 * step, the create command with SUPPRESS_PROVIDERS_UPDATE, a placeholder for the config file and
 * the HOME that a non-default --tanzu-dir implies.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { parse } from 'yaml';
import path from 'node:path';
import { devpkg, PROVIDERS_FIXTURE, STANDIN, workspace, type Workspace } from './helpers/bootstrap.js';

const IMAGE = `127.0.0.1:5000/devpkg-it/antrea@sha256:${'e'.repeat(64)}`;
const T = 60_000;
let ws: Workspace;

beforeEach(async () => {
  ws = await workspace('devpkg-prepare-only-it-');
  await cp(PROVIDERS_FIXTURE, ws.providersDir, { recursive: true });
});
afterEach(async () => {
  await rm(ws.dir, { recursive: true, force: true });
}, T);

test('without --cluster-config the create command is printed with a placeholder and the implied HOME', async () => {
  const r = await devpkg([
    'bootstrap', '--package', ws.folder, '--image', IMAGE, '--ref-name', 'antrea.tanzu.vmware.com', '--addon-type', 'cni/antrea',
    '--tanzu-dir', ws.tanzuDir, '--tanzu', STANDIN, '--dev-version', '1.5.4-dev.8', '--prepare-only', '--work-dir', path.join(ws.dir, 'work'),
  ]);
  expect(r.stderr).not.toMatch(/^devpkg bootstrap:/m);
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain('give --cluster-config');
  expect(r.stdout).toContain(`create the management cluster with:\n  HOME=${ws.home} SUPPRESS_PROVIDERS_UPDATE=1 ${STANDIN} management-cluster create -i docker --file <cluster-config.yaml> --yes\n`);
  expect(r.stdout).toContain('(<cluster-config.yaml>: your management cluster config file, with CLUSTER_NAME;');
  // The folder really was prepared.
  const overlay = await readFile(path.join(ws.providersDir, 'ytt', '04_user_customizations', 'antrea_dev_package.yaml'), 'utf8');
  expect(overlay).toContain('antrea.tanzu.vmware.com.1.5.4-dev.8');
}, T);

test('--tkg-custom-image-repository goes into a copy of the cluster config that the dry-run and the create command use; the original stays as it was', async () => {
  const before = await readFile(ws.clusterConfig, 'utf8');
  const work = path.join(ws.dir, 'work');
  const ca = path.join(ws.dir, 'ca.pem');
  await writeFile(ca, '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUabc\n-----END CERTIFICATE-----\n');
  const r = await devpkg([
    'bootstrap', '--package', ws.folder, '--image', IMAGE, '--ref-name', 'antrea.tanzu.vmware.com', '--addon-type', 'cni/antrea',
    '--tanzu-dir', ws.tanzuDir, '--tanzu', STANDIN, '--cluster-config', ws.clusterConfig, '--dev-version', '1.5.4-dev.9', '--prepare-only', '--work-dir', work,
    '--tkg-custom-image-repository', 'harbor.example.com/tkg', '--tkg-custom-image-repository-ca-certificate', ca,
  ]);
  if (r.code !== 0) console.log(r.stderr.slice(-3000));
  expect(r.code).toBe(0);
  const copy = path.join(work, `${path.basename(ws.clusterConfig).replace(/\.ya?ml$/, '')}.devpkg.yaml`);
  expect(r.stdout).toContain(`management-cluster create -i docker --file ${copy} --yes`);
  expect(r.stdout).toMatch(/dry-run check: ok/);
  const values = parse(await readFile(copy, 'utf8')) as Record<string, unknown>;
  expect(values).toMatchObject({ ...(parse(before) as object), TKG_CUSTOM_IMAGE_REPOSITORY: 'harbor.example.com/tkg', TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY: false });
  expect(Buffer.from(String(values.TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE), 'base64').toString()).toContain('-----BEGIN CERTIFICATE-----');
  expect(await readFile(ws.clusterConfig, 'utf8')).toBe(before);
}, T);
