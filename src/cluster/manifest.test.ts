import { describe, expect, test } from '@jest/globals';
import type { KObject } from '../verify/evaluate.js';
import { applyGroups, applyOrder, manifestObjects, podProblems, readiness, readinessTargets } from './manifest.js';

const RELEASE = `---
apiVersion: v1
kind: Namespace
metadata: {name: kapp-controller}
---
# a comment-only document
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kapp-controller, namespace: kapp-controller}
spec: {replicas: 1}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.data.packaging.carvel.dev}
`;

describe('manifestObjects', () => {
  test('objects in order, empty documents skipped', () => {
    expect(manifestObjects(RELEASE).map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'Namespace/kapp-controller',
      'Deployment/kapp-controller',
      'APIService/v1alpha1.data.packaging.carvel.dev',
    ]);
  });
  test.each([
    ['broken YAML', 'a: [1\n', /release.yml: document 1 is not valid YAML/],
    ['not an object', 'just a string\n', /release.yml: document 1 is not a Kubernetes object/],
    ['no name', 'apiVersion: v1\nkind: Namespace\nmetadata: {}\n', /document 1 is not a Kubernetes object/],
    ['nothing', '---\n---\n', /release.yml: no Kubernetes objects in it/],
  ])('%s', (_n, text, message) => expect(() => manifestObjects(text, 'release.yml')).toThrow(message));
});

test('applyOrder: namespaces, then CRDs, then the rest as written', () => {
  const o = (kind: string, name: string) => ({ apiVersion: 'v1', kind, metadata: { name } });
  const order = applyOrder([o('ServiceAccount', 'sa'), o('CustomResourceDefinition', 'apps'), o('Deployment', 'd'), o('Namespace', 'ns'), o('CustomResourceDefinition', 'pkgi')]);
  expect(order.map((x) => x.metadata?.name)).toEqual(['ns', 'apps', 'pkgi', 'sa', 'd']);
});

test.each([
  ['all three ranks', ['ServiceAccount/sa', 'CustomResourceDefinition/apps', 'Deployment/d', 'Namespace/ns', 'CustomResourceDefinition/pkgi'], [['ns'], ['apps', 'pkgi'], ['sa', 'd']]],
  ['no namespace, no CRD', ['ServiceAccount/sa', 'Deployment/d'], [['sa', 'd']]],
  ['namespaces only', ['Namespace/a', 'Namespace/b'], [['a', 'b']]],
])('applyGroups: each rank one group, applied at once: %s', (_what, objs, want) => {
  const groups = applyGroups(objs.map((k) => ({ apiVersion: 'v1', kind: k.split('/')[0]!, metadata: { name: k.split('/')[1]! } })));
  expect(groups.map((g) => g.map((x) => x.metadata?.name))).toEqual(want);
});

test('readinessTargets: Deployments and APIServices', () => {
  expect(readinessTargets(manifestObjects(RELEASE))).toEqual([
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kapp-controller', name: 'kapp-controller' },
    { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', namespace: undefined, name: 'v1alpha1.data.packaging.carvel.dev' },
  ]);
});

describe('readiness', () => {
  const dep = (status: Record<string, unknown>, generation = 1): KObject => ({ kind: 'Deployment', metadata: { generation }, spec: { replicas: 1 }, status } as KObject);
  test.each<[string, KObject, { ready: boolean; why: string }]>([
    ['available', dep({ availableReplicas: 1, observedGeneration: 1 }), { ready: true, why: '1/1 available' }],
    [
      'not yet, with the progress message',
      dep({ availableReplicas: 0, observedGeneration: 1, conditions: [{ type: 'Progressing', status: 'True', message: 'ReplicaSet "k-1" is progressing.' }] }),
      { ready: false, why: '0/1 available; ReplicaSet "k-1" is progressing.' },
    ],
    ['an old generation observed', dep({ availableReplicas: 1, observedGeneration: 1 }, 2), { ready: false, why: '1/1 available' }],
    ['APIService available', { kind: 'APIService', status: { conditions: [{ type: 'Available', status: 'True' }] } } as KObject, { ready: true, why: 'Available' }],
    [
      'APIService not available',
      { kind: 'APIService', status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints', message: 'endpoints for service/packaging-api in "kapp-controller" have no addresses' }] } } as KObject,
      { ready: false, why: 'Available=False: MissingEndpoints endpoints for service/packaging-api in "kapp-controller" have no addresses' },
    ],
    ['APIService new', { kind: 'APIService', status: {} } as KObject, { ready: false, why: 'no Available condition yet' }],
  ])('%s', (_n, obj, want) => expect(readiness(obj)).toEqual(want));
});

test('podProblems: waiting reasons and unscheduled pods; ContainerCreating is not a problem', () => {
  const pods = [
    {
      metadata: { name: 'kapp-controller-1' },
      status: {
        containerStatuses: [
          { name: 'kapp-controller', state: { waiting: { reason: 'ErrImagePull', message: 'failed to pull "kc:dev": not found' } } },
          { name: 'kapp-controller-sidecarexec', state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      },
    },
    { metadata: { name: 'p2' }, status: { conditions: [{ type: 'PodScheduled', status: 'False', message: '0/1 nodes are available' }] } },
    { metadata: { name: 'ok' }, status: { containerStatuses: [{ name: 'c', state: { running: {} } }] } },
  ] as unknown as KObject[];
  expect(podProblems(pods)).toEqual(['kapp-controller-1/kapp-controller: ErrImagePull: failed to pull "kc:dev": not found', 'p2: not scheduled: 0/1 nodes are available']);
});
