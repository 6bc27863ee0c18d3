import * as path from 'node:path';
import { parsePackageFile } from '../packages/model.js';
import { overlayFileName, renderOverlay, USER_CUSTOMIZATIONS_DIR } from '../packages/overlay.js';
import { readText } from './derive.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, strings } from './options.js';

const USAGE = `Usage: devpkg overlay --package FILE [--addon-type CATEGORY/NAME] [--namespace NS] [--name NAME] [--all-clusters]

Prints the ytt file for ~/.config/tanzu/tkg/${USER_CUSTOMIZATIONS_DIR}/<name>_dev_package.yaml:
a ClusterResourceSet (ApplyOnce) and its Secret (type addons.cluster.x-k8s.io/resource-set)
holding the dev Package, so that a new management cluster gets the dev Package.

  --package FILE              the dev Package (e.g. the output of devpkg derive)
  --addon-type CATEGORY/NAME  tkg.tanzu.vmware.com/addon-type (default: cni/antrea for antrea, and so on)
  --namespace NS              namespace of the Package in the new cluster (default: its own, else tkg-system)
  --name NAME                 short name for the file and objects (default: first part of spec.refName)
  --all-clusters              also for workload clusters (default: only when TKG_CLUSTER_ROLE != workload)
  -h, --help                  show this help
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('package', 'addon-type', 'namespace', 'name'), ...booleans('all-clusters') });
  if (!values) return 0;
  const file = requireFlag(values.package, '--package', 'overlay');
  const res = parsePackageFile(await readText(path.resolve(io.cwd, file), file), file);
  const name = values.name ?? res.pkg.spec.refName.split('.')[0]!;
  io.stderr(`devpkg overlay: write this to ~/.config/tanzu/tkg/${USER_CUSTOMIZATIONS_DIR}/${overlayFileName(name)}\n`);
  io.stdout(
    renderOverlay(res.pkg, {
      name,
      addonType: values['addon-type'],
      namespace: values.namespace,
      managementOnly: !(values['all-clusters'] ?? false),
    }),
  );
  return 0;
}
