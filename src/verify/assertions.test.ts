import { describe, expect, test } from '@jest/globals';
import { checkAssertion, getPath, parseAssertions, parsePath } from './assertions.js';

const ds = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'antrea-agent', namespace: 'kube-system', annotations: { 'kapp.k14s.io/identity': 'v1;x', foo: 'bar' } },
  spec: { template: { metadata: { annotations: { foo: 'bar', n: '3' } }, spec: { containers: [{ name: 'agent', image: 'reg/antrea@sha256:abc' }] } } },
};

describe('parsePath', () => {
  test.each<[string, Array<string | number>]>([
    ['spec.template.metadata.annotations.foo', ['spec', 'template', 'metadata', 'annotations', 'foo']],
    ['spec.template.spec.containers[0].image', ['spec', 'template', 'spec', 'containers', 0, 'image']],
    ['metadata.annotations["kapp.k14s.io/identity"]', ['metadata', 'annotations', 'kapp.k14s.io/identity']],
    ["metadata.annotations['a.b']", ['metadata', 'annotations', 'a.b']],
  ])('%s', (p, want) => expect(parsePath(p)).toEqual(want));

  test.each(['spec..x', 'a[', ''])('rejects %j', (p) => expect(() => parsePath(p)).toThrow(/does not parse/));
});

describe('getPath', () => {
  test('missing list index and key', () => {
    expect(getPath(ds, ['spec', 'template', 'spec', 'containers', 3])).toEqual({ found: false });
    expect(getPath(ds, ['metadata', 'labels', 'x'])).toEqual({ found: false });
    expect(getPath(ds, ['metadata', 'name'])).toEqual({ found: true, value: 'antrea-agent' });
  });
});

describe('parseAssertions', () => {
  test('a list with each check', () => {
    const list = parseAssertions(`
- {kind: DaemonSet, namespace: kube-system, name: antrea-agent, path: spec.template.metadata.annotations.foo, equals: bar}
- {kind: DaemonSet, namespace: kube-system, name: antrea-agent, path: 'metadata.annotations["kapp.k14s.io/identity"]', exists: true}
- {kind: Widget, apiVersion: example.com/v1, name: w, path: spec.x, matches: '^a+$'}
`);
    expect(list).toHaveLength(3);
    expect(list[2]).toEqual({ kind: 'Widget', apiVersion: 'example.com/v1', name: 'w', path: 'spec.x', matches: '^a+$' });
  });
  test.each<[string, RegExp]>([
    ['kind: x', /must be a YAML list/],
    ['- {name: a}', /assert\[0\]: "kind" is required/],
    ['- {kind: A, name: a, equal: 1}', /unknown field "equal"/],
    ['- {kind: A, name: a, equals: 1}', /equals needs a "path"/],
    ['- {kind: A, name: a, path: x, matches: "("}', /not a regular expression/],
    ['- {kind: A, name: a, path: x, exists: "yes"}', /must be true or false/],
    ['- [', /not valid YAML/],
  ])('rejects %j', (text, msg) => expect(() => parseAssertions(text)).toThrow(msg));
  test('empty text is no assertions', () => expect(parseAssertions('  \n')).toEqual([]));
});

describe('checkAssertion', () => {
  const base = { kind: 'DaemonSet', namespace: 'kube-system', name: 'antrea-agent' };
  test.each<[string, object, boolean, RegExp]>([
    ['equals holds', { path: 'spec.template.metadata.annotations.foo', equals: 'bar' }, true, /^is bar$/],
    ['equals fails', { path: 'spec.template.metadata.annotations.foo', equals: 'baz' }, false, /is bar, expected baz/],
    ['equals number vs string', { path: 'spec.template.metadata.annotations.n', equals: 3 }, true, /is 3/],
    ['equals an object', { path: 'spec.template.metadata.annotations', equals: { n: '3', foo: 'bar' } }, true, /foo/],
    ['exists holds', { path: 'metadata.annotations["kapp.k14s.io/identity"]', exists: true }, true, /v1;x/],
    ['exists fails', { path: 'metadata.annotations.nope', exists: true }, false, /is not set/],
    ['absent holds', { path: 'metadata.annotations.nope', exists: false }, true, /absent/],
    ['absent fails', { path: 'metadata.annotations.foo', exists: false }, false, /present: bar/],
    ['matches holds', { path: 'spec.template.spec.containers[0].image', matches: '@sha256:' }, true, /reg\/antrea/],
    ['matches fails', { path: 'spec.template.spec.containers[0].image', matches: ':latest$' }, false, /does not match/],
    ['object only', {}, true, /found/],
  ])('%s', (_n, extra, ok, detail) => {
    const r = checkAssertion({ ...base, ...extra }, ds);
    expect(r.ok).toBe(ok);
    expect(r.detail).toMatch(detail);
  });
  test('object not found', () => {
    const r = checkAssertion({ ...base, path: 'x', equals: 1 }, undefined);
    expect(r).toEqual({ description: 'DaemonSet kube-system/antrea-agent: x equals 1', ok: false, detail: 'DaemonSet kube-system/antrea-agent not found' });
  });
});
