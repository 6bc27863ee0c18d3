import { DevpkgError } from '../errors.js';
import { devPackageToYaml, withMetadataYaml } from './derive.js';
import type { Package } from './model.js';

/** Where the tanzu CLI picks up user ytt files, relative to ~/.config/tanzu/tkg. */
export const USER_CUSTOMIZATIONS_DIR = 'providers/ytt/04_user_customizations';
export const DEFAULT_PACKAGE_NAMESPACE = 'tkg-system';
export const DEFAULT_CRS_API_VERSION = 'addons.cluster.x-k8s.io/v1beta1';
export const ADDON_TYPE_ANNOTATION = 'tkg.tanzu.vmware.com/addon-type';

/** TKG addon categories of the core packages (the BOM's `addons.<name>.category`). */
const ADDON_CATEGORIES: Record<string, string> = {
  antrea: 'cni',
  calico: 'cni',
  'kapp-controller': 'addons-management',
  'secretgen-controller': 'addons-management',
  'tanzu-addons-manager': 'addons-management',
  pinniped: 'authentication',
  'metrics-server': 'metrics',
  'vsphere-cpi': 'cloud-provider',
  'vsphere-csi': 'csi',
};

export interface OverlayOptions {
  /** Short package name used in file and object names; default: the first label of spec.refName. */
  name?: string;
  /** `CATEGORY/NAME` for the tkg.tanzu.vmware.com/addon-type annotation; default from the name. */
  addonType?: string;
  /** Namespace of the dev Package in the new cluster; default its own, else tkg-system. */
  namespace?: string;
  crsApiVersion?: string;
  /**
   * Emit the CRS only when TKG_CLUSTER_ROLE is not "workload" (default true), so a providers
   * directory left customised does not put the dev Package into every later workload cluster.
   */
  managementOnly?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const ADDON_TYPE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** `antrea` -> `antrea_dev_package.yaml`. */
export function overlayFileName(pkgName: string): string {
  checkName(pkgName);
  return `${pkgName}_dev_package.yaml`;
}

/** `cni/antrea` for antrea; `devpkg/<name>` for packages TKG does not know. */
export function defaultAddonType(pkgName: string): string {
  return `${ADDON_CATEGORIES[pkgName] ?? 'devpkg'}/${pkgName}`;
}

function checkName(name: string): void {
  if (!DNS_LABEL.test(name) || name.length > 40) {
    throw new DevpkgError(`package name "${name}" cannot be used in object names; use a short lower-case DNS label such as antrea`, { exitCode: 2 });
  }
}

/**
 * The `04_user_customizations/<name>_dev_package.yaml` ytt file: a ClusterResourceSet that puts
 * the dev Package into the new cluster once (phases 2 and 3 then see it), and the Secret that
 * carries it. The Package text is ordinary YAML inside a `def`, so ytt re-encodes it as data:
 * nothing in it is evaluated (devPackageToYaml quotes every string that starts with `#`).
 */
export function renderOverlay(devPkg: Package, opts: OverlayOptions = {}, devPkgYaml?: string): string {
  const name = opts.name ?? devPkg.spec.refName.split('.')[0]!;
  checkName(name);
  const addonType = opts.addonType ?? defaultAddonType(name);
  if (!ADDON_TYPE.test(addonType)) {
    throw new DevpkgError(`addon type "${addonType}" must be CATEGORY/NAME, e.g. cni/antrea`, { exitCode: 2 });
  }
  const namespace = opts.namespace ?? devPkg.metadata.namespace ?? DEFAULT_PACKAGE_NAMESPACE;
  if (!DNS_LABEL.test(namespace)) throw new DevpkgError(`namespace "${namespace}" is not a valid namespace name`, { exitCode: 2 });
  const crsApiVersion = opts.crsApiVersion ?? DEFAULT_CRS_API_VERSION;
  const managementOnly = opts.managementOnly ?? true;

  // CRS creates objects exactly as written: the Package needs its namespace inside the Secret.
  const { name: pkgName, namespace: _ns, ...restMeta } = devPkg.metadata;
  const pkg: Package = { ...devPkg, metadata: { name: pkgName, namespace, ...restMeta } };
  // The caller's devPackageToYaml(devPkg), when it has it: only the metadata entry is rendered again.
  const pkgYaml = devPkgYaml === undefined ? devPackageToYaml(pkg) : withMetadataYaml(devPkg, devPkgYaml, pkg.metadata);
  const objectName = `"{}-${name}-dev-package".format(data.values.CLUSTER_NAME)`;
  // The ClusterResourceSet and its Secret: one name, in the management cluster's namespace.
  const metadata = [
    'metadata:',
    `  name: #@ ${objectName}`,
    '  namespace: #@ data.values.NAMESPACE',
    '  labels:',
    '    cluster.x-k8s.io/cluster-name: #@ data.values.CLUSTER_NAME',
    '  annotations:',
    `    ${ADDON_TYPE_ANNOTATION}: ${addonType}`,
  ];
  const body = [
    '---',
    `apiVersion: ${crsApiVersion}`,
    'kind: ClusterResourceSet',
    ...metadata,
    'spec:',
    '  strategy: ApplyOnce',
    '  clusterSelector:',
    '    matchLabels:',
    '      tkg.tanzu.vmware.com/cluster-name: #@ data.values.CLUSTER_NAME',
    '  resources:',
    `  - name: #@ ${objectName}`,
    '    kind: Secret',
    '---',
    'apiVersion: v1',
    'kind: Secret',
    ...metadata,
    'type: addons.cluster.x-k8s.io/resource-set',
    'stringData:',
    '  value: #@ yaml.encode(dev_package())',
  ];
  return [
    `#! devpkg: dev Package ${pkg.metadata.name} (${pkg.spec.refName} ${pkg.spec.version}).`,
    '#! ClusterResourceSet + Secret: the new cluster gets the Package once (ApplyOnce), so the addons',
    '#! manager finds a version above the released one. Remove this file to go back to the release.',
    '#@ load("@ytt:data", "data")',
    '#@ load("@ytt:yaml", "yaml")',
    '',
    '#@ def dev_package():',
    pkgYaml.trimEnd(),
    '#@ end',
    '',
    ...(managementOnly
      ? ['#! Management clusters only: workload clusters made later from these providers keep the release.', '#@ if data.values.TKG_CLUSTER_ROLE != "workload":', ...body, '#@ end']
      : body),
    '',
  ].join('\n');
}
