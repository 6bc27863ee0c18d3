/**
 * The kind config devpkg creates its cluster with: the user's own (input kind-config, like
 * helm/kind-action's `config`) plus what kind's local-registry pattern needs on every node:
 * containerd reading registry hosts from /etc/containerd/certs.d. The hosts.toml files and the
 * local-registry-hosting ConfigMap are written after creation (they name the registry container).
 * Pure: text in, text out; conflicts are refused with what to change.
 */
import { parseDocument } from 'yaml';
import { UsageError } from '../errors.js';
import { REGISTRY_HOSTING } from './registry-hosting.js';

export const CERTS_DIR = '/etc/containerd/certs.d';
export const KIND_API_VERSION = 'kind.x-k8s.io/v1alpha4';

/** The containerd patch of kind's local-registry pattern (containerd reads hosts.toml files). */
export const REGISTRY_CONFIG_PATCH = `[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "${CERTS_DIR}"`;

export interface MergedKindConfig {
  /** The config to hand to `kind create cluster --config`. */
  text: string;
  /** Things devpkg overrode or ignored, for the log. */
  notes: string[];
}

/** The `config_path = "..."` values a containerd TOML patch sets (pure). */
export function configPaths(patch: string): string[] {
  return [...patch.matchAll(/^\s*config_path\s*=\s*(?:"([^"]*)"|'([^']*)')/gm)].map((m) => m[1] ?? m[2] ?? '');
}

/**
 * Merges devpkg's registry settings into a kind config (`text` undefined or empty: a config of
 * its own). `source` names the file in messages.
 */
export function mergeKindConfig(text: string | undefined, source = 'kind-config'): MergedKindConfig {
  const notes: string[] = [];
  const doc = parseDocument(text && text.trim() ? text : `kind: Cluster\napiVersion: ${KIND_API_VERSION}\n`);
  if (doc.errors.length > 0) {
    throw new UsageError(`${source}: not valid YAML: ${doc.errors[0]!.message}`);
  }
  const cfg = doc.toJS() as unknown;
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) {
    throw new UsageError(`${source}: a kind config is a mapping with kind: Cluster and apiVersion: ${KIND_API_VERSION}`);
  }
  const c = cfg as Record<string, unknown>;
  if (c.kind !== 'Cluster' || c.apiVersion !== KIND_API_VERSION) {
    throw new UsageError(
      `${source}: kind ${JSON.stringify(c.kind ?? null)}, apiVersion ${JSON.stringify(c.apiVersion ?? null)}: ` +
        `devpkg takes a kind cluster config (kind: Cluster, apiVersion: ${KIND_API_VERSION})`,
    );
  }
  if (c.name !== undefined) {
    notes.push(`${source}: name ${JSON.stringify(c.name)} is replaced by devpkg's cluster name for this run`);
    doc.delete('name');
  }
  const patches = c.containerdConfigPatches ?? [];
  if (!Array.isArray(patches) || patches.some((p) => typeof p !== 'string')) {
    throw new UsageError(`${source}: containerdConfigPatches must be a list of TOML strings`);
  }
  let present = false;
  for (const [i, p] of (patches as string[]).entries()) {
    for (const value of configPaths(p)) {
      if (value !== CERTS_DIR) {
        throw new UsageError(
          `${source}: containerdConfigPatches[${i}] sets config_path = "${value}"; devpkg's local registry needs ` +
            `config_path = "${CERTS_DIR}" (kind's local-registry setup). Put your registry hosts in ${CERTS_DIR}/<host>/hosts.toml ` +
            'on the nodes (extraMounts) and remove that config_path line',
        );
      }
      present = true;
    }
    if (/registry\.(mirrors|configs)\b/.test(p)) {
      throw new UsageError(
        `${source}: containerdConfigPatches[${i}] configures registry.mirrors/registry.configs, which containerd refuses ` +
          `together with config_path (which devpkg's local registry needs). Describe those registries with hosts.toml files under ${CERTS_DIR} instead`,
      );
    }
  }
  if (!present) {
    if (doc.has('containerdConfigPatches')) {
      (doc.get('containerdConfigPatches') as { add(v: unknown): void }).add(REGISTRY_CONFIG_PATCH);
    } else {
      doc.set('containerdConfigPatches', [REGISTRY_CONFIG_PATCH]);
    }
  }
  return { text: doc.toString(), notes };
}

/** The hosts.toml that sends `localhost:<port>` pulls to the registry container on the kind network (pure). */
export function registryHostsToml(containerName: string, containerPort = 5000): string {
  return `[host."http://${containerName}:${containerPort}"]\n`;
}

/** Where that file goes on each node (pure). */
export function registryHostsDir(pushHost: string): string {
  return `${CERTS_DIR}/${pushHost}`;
}

/**
 * kind's documented ConfigMap that tells tools where the local registry is (KEP-1755) (pure), with
 * hostFromClusterNetwork: where the cluster (kapp-controller) reaches it, so that `devpkg dev`
 * against a kept cluster pulls from there by itself.
 */
export function localRegistryHostingConfigMap(pushHost: string, clusterHost?: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: REGISTRY_HOSTING.name, namespace: REGISTRY_HOSTING.namespace },
    data: {
      [REGISTRY_HOSTING.key]:
        `host: "${pushHost}"\n${clusterHost ? `hostFromClusterNetwork: "${clusterHost}"\n` : ''}help: "https://kind.sigs.k8s.io/docs/user/local-registry/"\n`,
    },
  };
}
