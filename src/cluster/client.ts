// The Kubernetes client devpkg's cluster steps use: list and read PackageInstalls and Packages,
// server-side apply (field manager devpkg), create-or-replace, delete; every API error says
// what could not be done and the API server's message.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { DevpkgError } from '../errors.js';
import type { KObject } from '../verify/kobject.js';
import { describeApiError } from '../verify/verifier.js';

export const FIELD_MANAGER = 'devpkg';

export class ClusterClient {
  private constructor(
    readonly kc: KubeConfig,
    private readonly k8s: typeof import('@kubernetes/client-node'),
  ) {}

  static async create(kc: KubeConfig): Promise<ClusterClient> {
    return new ClusterClient(kc, await import('@kubernetes/client-node'));
  }

  private custom() {
    return this.kc.makeApiClient(this.k8s.CustomObjectsApi);
  }

  async listPackageInstalls(): Promise<KObject[]> {
    try {
      const r = (await this.custom().listClusterCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', plural: 'packageinstalls' })) as { items?: KObject[] };
      return r.items ?? [];
    } catch (err) {
      throw new DevpkgError(`cannot list PackageInstalls (is kapp-controller installed?): ${describeApiError(err)}`, { cause: err });
    }
  }

  async readPackageInstall(namespace: string, name: string): Promise<KObject | undefined> {
    try {
      return (await this.custom().getNamespacedCustomObject({ group: 'packaging.carvel.dev', version: 'v1alpha1', namespace, plural: 'packageinstalls', name })) as KObject;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw new DevpkgError(`cannot read PackageInstall ${namespace}/${name}: ${describeApiError(err)}`, { cause: err });
    }
  }

  /** Packages of a refName visible in a namespace (kapp-controller merges its global namespace in). */
  async listPackages(namespace: string, refName: string): Promise<KObject[]> {
    try {
      const r = (await this.custom().listNamespacedCustomObject({ group: 'data.packaging.carvel.dev', version: 'v1alpha1', namespace, plural: 'packages' })) as { items?: KObject[] };
      return (r.items ?? []).filter((p) => p.spec?.refName === refName);
    } catch (err) {
      throw new DevpkgError(`cannot list Packages in ${namespace} (kapp-controller's aggregated API data.packaging.carvel.dev): ${describeApiError(err)}`, { cause: err });
    }
  }

  /** One key of a ConfigMap; undefined when the ConfigMap or the key is not there. */
  async readConfigMapKey(namespace: string, name: string, key: string): Promise<string | undefined> {
    try {
      const cm = await this.kc.makeApiClient(this.k8s.CoreV1Api).readNamespacedConfigMap({ namespace, name });
      return cm.data?.[key];
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw new DevpkgError(`cannot read ConfigMap ${namespace}/${name}: ${describeApiError(err)}`, { cause: err });
    }
  }

  /** The names of the cluster's nodes (kind: the names of their containers). */
  async nodeNames(): Promise<string[]> {
    try {
      const r = await this.kc.makeApiClient(this.k8s.CoreV1Api).listNode();
      return r.items.map((n) => n.metadata?.name ?? '').filter(Boolean);
    } catch (err) {
      throw new DevpkgError(`cannot list the cluster's nodes: ${describeApiError(err)}`, { cause: err });
    }
  }

  /** Server-side apply with field manager devpkg, forcing conflicts (devpkg owns its objects). */
  async apply<T extends KubernetesObject>(obj: T): Promise<T> {
    const api = this.k8s.KubernetesObjectApi.makeApiClient(this.kc);
    try {
      return await api.patch(obj, undefined, undefined, FIELD_MANAGER, true, this.k8s.PatchStrategy.ServerSideApply);
    } catch (err) {
      const md = obj.metadata ?? {};
      // kapp-controller's aggregated API (Packages) may not implement server-side apply: fall
      // back to create, or replace what is there.
      if (obj.apiVersion?.startsWith('data.packaging.carvel.dev/') && [400, 405, 415, 422, 500].includes((err as { code?: number }).code ?? 0)) {
        return this.createOrReplace(api, obj);
      }
      throw new DevpkgError(`cannot apply ${obj.kind} ${md.namespace ? `${md.namespace}/` : ''}${md.name}: ${describeApiError(err)}`, { cause: err });
    }
  }

  private async createOrReplace<T extends KubernetesObject>(api: import('@kubernetes/client-node').KubernetesObjectApi, obj: T): Promise<T> {
    const md = obj.metadata ?? {};
    try {
      return await api.create(obj, undefined, undefined, FIELD_MANAGER);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) {
        throw new DevpkgError(`cannot create ${obj.kind} ${md.namespace ? `${md.namespace}/` : ''}${md.name}: ${describeApiError(err)}`, { cause: err });
      }
    }
    try {
      const current = await api.read({ apiVersion: obj.apiVersion!, kind: obj.kind!, metadata: { name: md.name!, namespace: md.namespace } });
      const next = { ...obj, metadata: { ...md, resourceVersion: current.metadata?.resourceVersion } };
      return (await api.replace(next, undefined, undefined, FIELD_MANAGER)) as T;
    } catch (err) {
      throw new DevpkgError(`cannot replace ${obj.kind} ${md.namespace ? `${md.namespace}/` : ''}${md.name}: ${describeApiError(err)}`, { cause: err });
    }
  }

  async delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
    const api = this.k8s.KubernetesObjectApi.makeApiClient(this.kc);
    try {
      await api.delete({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw new DevpkgError(`cannot delete ${kind} ${namespace ?? ''}/${name}: ${describeApiError(err)}`, { cause: err });
    }
  }
}
