// A small Kubernetes REST client for the stand-in controllers: the kubeconfig's credentials through
// @kubernetes/client-node (applyToHTTPSOptions), requests and watches with node:http(s).
import http from 'node:http';
import https from 'node:https';

// The kinds the stand-in controllers read or write: apiVersion, plural, namespaced.
const RESOURCES = {
  Namespace: ['v1', 'namespaces', false],
  Secret: ['v1', 'secrets', true],
  ConfigMap: ['v1', 'configmaps', true],
  ServiceAccount: ['v1', 'serviceaccounts', true],
  ClusterRole: ['rbac.authorization.k8s.io/v1', 'clusterroles', false],
  ClusterRoleBinding: ['rbac.authorization.k8s.io/v1', 'clusterrolebindings', false],
  PackageInstall: ['packaging.carvel.dev/v1alpha1', 'packageinstalls', true],
  PackageRepository: ['packaging.carvel.dev/v1alpha1', 'packagerepositories', true],
  TanzuKubernetesRelease: ['run.tanzu.vmware.com/v1alpha1', 'tanzukubernetesreleases', false],
  Cluster: ['cluster.x-k8s.io/v1beta1', 'clusters', true],
};

/** The collection path of a kind (in a namespace, or across all when namespace is undefined). */
export function collectionPath(kind, namespace) {
  const r = RESOURCES[kind];
  if (!r) throw new Error(`the stand-in controllers do not know the kind ${kind}`);
  const [apiVersion, plural, namespaced] = r;
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespaced && namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
}

export const objectPath = (kind, namespace, name) => `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;

export class KubeError extends Error {
  constructor(method, path, code, body) {
    super(`${method} ${path}: ${code} ${body?.message ?? ''}`.trim());
    this.code = code;
  }
}

export async function connect(kubeconfigFile, fieldManager) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigFile);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${kubeconfigFile} has no current cluster`);
  const server = new URL(cluster.server);
  const opts = {};
  await kc.applyToHTTPSOptions(opts);
  const mod = server.protocol === 'http:' ? http : https;

  function raw(method, path, { body, contentType, query, onData } = {}) {
    const qs = new URLSearchParams(query ?? {}).toString();
    return new Promise((resolve, reject) => {
      const req = mod.request(
        { ...opts, protocol: server.protocol, hostname: server.hostname, port: server.port, method, path: `${server.pathname.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`, headers: { ...(opts.headers ?? {}), accept: 'application/json', ...(body ? { 'content-type': contentType ?? 'application/json' } : {}) } },
        (res) => {
          if (onData && res.statusCode === 200) {
            resolve({ req, res });
            return;
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            let json;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = { message: text.slice(0, 300) };
            }
            if ((res.statusCode ?? 500) >= 300) reject(new KubeError(method, path, res.statusCode, json));
            else resolve(json);
          });
        },
      );
      req.on('error', reject);
      if (body) req.end(JSON.stringify(body));
      else req.end();
    });
  }

  const withKind = (kind, apiVersion) => (o) => ({ apiVersion, kind, ...o });
  const client = {
    server: cluster.server,
    async get(kind, namespace, name) {
      try {
        return withKind(kind, RESOURCES[kind][0])(await raw('GET', objectPath(kind, namespace, name)));
      } catch (e) {
        if (e.code === 404) return undefined;
        throw e;
      }
    },
    async list(kind, namespace, labelSelector) {
      const r = await raw('GET', collectionPath(kind, namespace), { query: labelSelector ? { labelSelector } : {} });
      return (r.items ?? []).map(withKind(kind, RESOURCES[kind][0]));
    },
    create(kind, body) {
      return raw('POST', collectionPath(kind, body.metadata.namespace), { body, query: { fieldManager } });
    },
    mergePatch(kind, namespace, name, patch) {
      return raw('PATCH', objectPath(kind, namespace, name), { body: patch, contentType: 'application/merge-patch+json', query: { fieldManager } });
    },
    mergePatchStatus(kind, namespace, name, patch) {
      return raw('PATCH', `${objectPath(kind, namespace, name)}/status`, { body: patch, contentType: 'application/merge-patch+json', query: { fieldManager } });
    },
    /**
     * Watches a collection until stop(): onEvent(type, object) for every event, starting with an
     * ADDED event for each existing object. Reconnects (with a fresh list) when the stream ends or
     * fails, e.g. while the CRD is not there yet; onError is told.
     */
    watch(kind, namespace, onEvent, onError) {
      let stopped = false;
      let current;
      const apiVersion = RESOURCES[kind][0];
      const loop = async () => {
        while (!stopped) {
          try {
            const { req, res } = await raw('GET', collectionPath(kind, namespace), { query: { watch: '1', allowWatchBookmarks: 'false' }, onData: true });
            current = req;
            let buf = '';
            res.setEncoding('utf8');
            await new Promise((resolve) => {
              res.on('data', (d) => {
                buf += d;
                let i;
                while ((i = buf.indexOf('\n')) >= 0) {
                  const line = buf.slice(0, i).trim();
                  buf = buf.slice(i + 1);
                  if (!line) continue;
                  const ev = JSON.parse(line);
                  if (ev.type === 'ERROR') continue;
                  onEvent(ev.type, { apiVersion, kind, ...ev.object });
                }
              });
              res.on('end', resolve);
              res.on('error', resolve);
              res.on('close', resolve);
            });
          } catch (e) {
            if (!stopped) onError?.(e);
          }
          if (!stopped) await new Promise((r) => setTimeout(r, 1000));
        }
      };
      const done = loop();
      return {
        async stop() {
          stopped = true;
          current?.destroy();
          await done;
        },
      };
    },
  };
  return client;
}
