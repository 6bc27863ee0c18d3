// The kind harness's default CNI manifest (test/harness/kind/default-cni.yaml), which
// kind-build.sh puts in the node image as /kind/manifests/default-cni.yaml. kind reads it as a Go
// template when it holds its marker line and gives it only .PodSubnet, so any other `{{ }}` would
// fail every cluster creation; kind-build.sh fills in @FLANNEL_IMAGE@. Rendered here as the two of
// them do, it must be the flannel network the docs describe.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const text = readFileSync(join(import.meta.dirname, '..', 'harness', 'kind', 'default-cni.yaml'), 'utf8');

interface Container {
  name: string;
  image: string;
  imagePullPolicy: string;
  args?: string[];
  command?: string[];
  env?: unknown[];
}
interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  subjects?: unknown[];
  spec?: { template: { spec: { hostNetwork: boolean; serviceAccountName: string; containers: Container[] } } };
}

/** What kind's installcni action and kind-build.sh make of the file. Pure. */
function render(podSubnet: string, image: string): Doc[] {
  const out = text.replaceAll('{{ .PodSubnet }}', podSubnet).replaceAll('@FLANNEL_IMAGE@', image);
  return parseAllDocuments(out).map((d) => d.toJS() as Doc | null).filter((d): d is Doc => d !== null);
}

test('kind templates it, and the pod subnet is its only template action', () => {
  expect(text).toMatch(/^# would you kindly template this file$/m);
  expect([...text.matchAll(/\{\{.*?\}\}/g)].map((m) => m[0])).toEqual(['{{ .PodSubnet }}']);
  // kind then adds CONTROL_PLANE_ENDPOINT to the env of the first container of every DaemonSet.
  expect(text).toMatch(/^# would you kindly patch this file$/m);
});

test('rendered: flanneld with the host-gw backend on kind\'s pod subnet, the flannel CNI plugin chained with portmap', () => {
  const docs = render('10.250.0.0/16', 'devpkg.test/kind/flannel:test');
  const find = (kind: string) => docs.find((d) => d.kind === kind)!;
  expect(docs.map((d) => d.kind)).toEqual(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'ServiceAccount', 'ConfigMap', 'DaemonSet']);
  const cm = find('ConfigMap');
  expect(JSON.parse(cm.data!['net-conf.json']!)).toEqual({ Network: '10.250.0.0/16', Backend: { Type: 'host-gw' } });
  const cni = JSON.parse(cm.data!['cni-conf.json']!) as { plugins: { type: string }[] };
  expect(cni.plugins.map((p) => p.type)).toEqual(['flannel', 'portmap']);

  const ds = find('DaemonSet');
  const pod = ds.spec!.template.spec;
  expect(pod.hostNetwork).toBe(true);
  expect(pod.serviceAccountName).toBe(find('ServiceAccount').metadata.name);
  expect(find('ClusterRoleBinding').subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: ds.metadata.namespace }]);
  // Every container runs the preloaded image: nothing is pulled.
  expect(pod.containers.map((c) => [c.image, c.imagePullPolicy])).toEqual([
    ['devpkg.test/kind/flannel:test', 'IfNotPresent'],
    ['devpkg.test/kind/flannel:test', 'IfNotPresent'],
  ]);
  // flanneld is the first container (where kind's patch adds CONTROL_PLANE_ENDPOINT, to an env list that must exist).
  const flanneld = pod.containers[0]!;
  expect(flanneld.name).toBe('kube-flannel');
  expect(flanneld.env).toEqual(expect.any(Array));
  expect(flanneld.command!.join(' ')).toMatch(/KUBERNETES_SERVICE_HOST="\$\{CONTROL_PLANE_ENDPOINT%:\*\}".*exec \/opt\/bin\/flanneld "\$@"/s);
  expect(flanneld.args).toEqual(expect.arrayContaining(['--kube-subnet-mgr', '--ip-masq']));
  // The CNI config is written (atomically, under a name containerd loads) only after flanneld's subnet.env.
  const script = pod.containers.find((c) => c.name === 'install-cni')!.command!.join(' ');
  expect(script.indexOf('/run/flannel/subnet.env')).toBeLessThan(script.indexOf('10-flannel.conflist'));
  expect(script).toMatch(/mv -f \S+\.tmp \/etc\/cni\/net\.d\/10-flannel\.conflist/);
});
