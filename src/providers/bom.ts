/**
 * The BOM files a providers render reads, and a render-only stand-in for them.
 *
 * The tanzu CLI keeps its bills of materials in `~/.config/tanzu/tkg/bom` (downloaded from the
 * registry the first time it runs, tkgconfigbom.DownloadDefaultBOMFilesFromRegistry): one
 * `tkg-bom-<tag>.yaml` and the `tkr-bom-<tkr>.yaml` files. The templates get them through
 * `config_default.yaml`'s `boms` data value (every `tkg-bom*`/`tkr-bom*` file, YAML-decoded) and
 * `ytt/lib/helpers.star` (the default TKG BOM names the default TKr in `default.k8sVersion`; the
 * TKr BOM with that `release.version` is the one `KUBERNETES_RELEASE` selects).
 *
 * Without a tanzu CLI there is no such folder, so devpkg writes a stand-in that holds only the
 * fields the v0.25 (TKG 1.6 / TCE 0.12) templates read for a docker or vSphere cluster: image
 * references are placeholders (`devpkg-render-only`). It is good for checking which objects the
 * providers render and what the ClusterResourceSets carry, never for creating a cluster.
 */
import { stringify } from 'yaml';
import semver from 'semver';
import { DevpkgError } from '../errors.js';

export interface Bom {
  /** File name in the bom folder, e.g. tkg-bom-v1.6.1.yaml. */
  name: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const RENDER_ONLY_TAG = 'devpkg-render-only';
const REPOSITORY = 'projects.registry.vmware.com/tkg';
/** The TKr of TKG 1.6's default BOM. */
export const RENDER_ONLY_TKR = 'v1.23.8+vmware.2-tkg.1';
const RENDER_ONLY_K8S = 'v1.23.8+vmware.2';

/**
 * Components and the images the templates read of each (found by rendering the v0.25.4 tree for
 * docker and vsphere, both roles, antrea and calico, editions tkg and tce, and reading what ytt
 * asked for).
 */
const TKG_COMPONENTS: Record<string, string[]> = {
  'kube-vip': ['kubeVipImage'],
  'tanzu-framework': ['tkrImage', 'capabilitiesImage'],
  'tanzu-framework-management-packages': ['tanzuFrameworkManagementPackageRepositoryImage'],
  'tkg-standard-packages': ['tanzuStandardPackageRepositoryImage'],
  kube_rbac_proxy: ['kubeRbacProxyControllerImageCapi'],
};
const TKR_COMPONENTS: Record<string, string[]> = {
  antrea: ['antreaImage'],
  calico_all: ['calicoCniImage', 'calicoKubecontrollerImage', 'calicoNodeImage', 'calicoPodDaemonImage'],
  cloud_provider_vsphere: ['ccmControllerImage'],
  'kapp-controller': ['kappControllerImage'],
  'metrics-server': ['metricsServerImage'],
  pinniped: ['pinnipedImage'],
  'tanzu-framework-addons': ['tanzuAddonsManagerImage', 'tkgPinnipedPostDeployImage', 'vsphereCpiTemplatesImage'],
  'tkg-core-packages': ['tanzuCorePackageRepositoryImage', 'addons-manager.tanzu.vmware.com'],
  'load-balancer-and-ingress-service': ['loadBalancerAndIngressServiceImage'],
  'ako-operator': ['akoOperatorImage'],
  // vSphere CSI (02_addons/csi/csi_addon_data.lib.yaml; "Provisoner" is spelt so there).
  csi_attacher: ['csiAttacherImage'],
  csi_livenessprobe: ['csiLivenessProbeImage'],
  csi_node_driver_registrar: ['csiNodeDriverRegistrarImage'],
  csi_provisioner: ['csiProvisonerImage'],
  vsphere_csi_driver: ['csiControllerImage', 'csiMetaDataSyncerImage'],
};

function components(spec: Record<string, string[]>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spec).map(([name, images]) => [
      name,
      [{ version: `v0.0.0+${RENDER_ONLY_TAG}`, images: Object.fromEntries(images.map((i) => [i, { imagePath: `${name}/${i}`, tag: RENDER_ONLY_TAG }])) }],
    ]),
  );
}

/** Pure: the render-only TKG and TKr BOMs (see the file comment). */
export function renderOnlyBoms(): Bom[] {
  const tkg = {
    apiVersion: 'run.tanzu.vmware.com/v1alpha2',
    default: { k8sVersion: RENDER_ONLY_TKR },
    release: { version: `v1.6.1-${RENDER_ONLY_TAG}` },
    imageConfig: { imageRepository: REPOSITORY },
    'tkr-bom': { imagePath: 'tkr-bom' },
    'tkr-compatibility': { imagePath: 'tkr-compatibility' },
    components: components(TKG_COMPONENTS),
  };
  const tkr = {
    apiVersion: 'run.tanzu.vmware.com/v1alpha2',
    release: { version: RENDER_ONLY_TKR },
    kubeadmConfigSpec: {
      imageRepository: REPOSITORY,
      etcd: { local: { imageRepository: REPOSITORY, imageTag: RENDER_ONLY_TAG } },
      dns: { imageRepository: REPOSITORY, imageTag: RENDER_ONLY_TAG },
    },
    components: {
      kubernetes: [{ version: RENDER_ONLY_K8S }],
      'kubernetes-sigs_kind': [{ version: RENDER_ONLY_K8S, images: { kindNodeImage: { imagePath: 'kind/node', tag: RENDER_ONLY_TAG } } }],
      ...components(TKR_COMPONENTS),
    },
    // The addons manager's package (tanzu-addons-manager_package.lib.yaml reads its packageName).
    addons: { 'tanzu-addons-manager': { category: 'addons-management', clusterTypes: ['management'], packageName: 'addons-manager.tanzu.vmware.com' } },
  };
  return [
    { name: `tkg-bom-${RENDER_ONLY_TAG}.yaml`, data: tkg },
    { name: `tkr-bom-${RENDER_ONLY_TAG}.yaml`, data: tkr },
  ];
}

export function bomText(b: Bom): string {
  return `#! devpkg: a render-only BOM for checking a providers render; not a TKG BOM.\n${stringify(b.data)}`;
}

function tagOf(name: string): string {
  return name.replace(/^tkg-bom-v?/, '').replace(/\.ya?ml$/, '');
}

/**
 * Pure: the default TKG BOM and its TKr BOM. The CLI takes the default TKG BOM's tag from its
 * compatibility file (tkgconfigbom.getDefaultTKGBOMFileNameFromCompatabilityFile); devpkg has no
 * CLI version to look up there, so it takes `wanted` (TKG_DEFAULT_BOM from the config), else the
 * only TKG BOM, else the highest tag.
 */
export function defaultBoms(boms: Bom[], wanted?: string): { tkg: Bom; tkr: Bom } {
  const tkgs = boms.filter((b) => b.name.startsWith('tkg-bom-'));
  let tkg: Bom | undefined;
  if (wanted) {
    tkg = tkgs.find((b) => b.name === wanted);
    if (!tkg) throw new DevpkgError(`TKG_DEFAULT_BOM ${wanted} is not among the BOM files (${boms.map((b) => b.name).join(', ') || 'none'})`);
  } else {
    tkg = [...tkgs].sort((a, b) => {
      const [x, y] = [tagOf(a.name), tagOf(b.name)];
      return semver.valid(x) && semver.valid(y) ? semver.compareBuild(y, x) : y.localeCompare(x);
    })[0];
  }
  if (!tkg) throw new DevpkgError(`no tkg-bom-*.yaml among the BOM files (${boms.map((b) => b.name).join(', ') || 'none'})`);
  const tkrVersion = tkg.data.default?.k8sVersion;
  const tkr = boms.find((b) => b.name.startsWith('tkr-bom-') && b.data.release?.version === tkrVersion);
  if (!tkr) throw new DevpkgError(`${tkg.name} names TKr ${tkrVersion} (default.k8sVersion), but no tkr-bom-*.yaml has that release.version`);
  return { tkg, tkr };
}
