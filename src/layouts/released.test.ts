import { chooseReleased, needsCluster, type TagFound } from './released.js';

describe('the released version chain (kctrl): flag, else tag, else the cluster, else 0.0.0', () => {
  const cluster = { version: '1.4.0', why: 'kapp-controller selects 1.4.0 for PackageInstall ns/app among the Packages of app.example.com (1.4.0)' };
  const BASE = 'a'.repeat(40);
  const tag: TagFound = { version: '1.9.0', tag: 'v1.9.0', own: false, reachableFrom: BASE };

  test('--released-version wins over a tag and the cluster', () => {
    expect(chooseReleased({ flag: '2.0.0', tag, cluster })).toEqual({ version: '2.0.0', from: 'released-version', why: 'from --released-version (input released-version)', origin: { source: 'released-version' } });
  });

  test('a git tag wins over the cluster, and the plan names the tag and the commit it is reachable from', () => {
    expect(chooseReleased({ tag, cluster })).toEqual({
      version: '1.9.0',
      from: 'tag',
      why: `from git tag v1.9.0 (the highest matching git tag reachable from ${BASE.slice(0, 12)})`,
      origin: { source: 'tag', tag: 'v1.9.0', reachableFrom: BASE },
    });
    expect(chooseReleased({ tag: { ...tag, tag: 'app-v1.9.0', own: true, reachableFrom: 'HEAD' } }).why).toBe("from git tag app-v1.9.0 (the highest of the package's own tags reachable from HEAD)");
  });

  test('the cluster\'s Packages when neither the flag nor a tag gives one, saying where', () => {
    expect(chooseReleased({ cluster })).toEqual({ version: '1.4.0', from: 'cluster', why: `from the cluster's Packages: ${cluster.why}`, origin: { source: 'cluster' } });
  });

  test('none: 0.0.0, saying the cluster had none and why', () => {
    expect(chooseReleased({ cluster: { why: 'no PackageInstall of app.example.com in the cluster' } })).toEqual({
      version: '0.0.0',
      from: 'none',
      why: 'no --released-version, no matching git tag, and none from the cluster (no PackageInstall of app.example.com in the cluster): 0.0.0',
      origin: { source: 'none' },
    });
  });

  test('none outside cluster mode: 0.0.0, saying where the tags were looked for and that the cluster is read only in cluster mode', () => {
    expect(chooseReleased({})).toMatchObject({ version: '0.0.0', from: 'none', why: 'no --released-version, no matching git tag (the cluster is read only in cluster mode): 0.0.0' });
    expect(chooseReleased({ tagsAt: BASE }).why).toBe(`no --released-version, no matching git tag reachable from ${BASE.slice(0, 12)} (the cluster is read only in cluster mode): 0.0.0`);
  });

  test('the cluster is needed only when the flag and the tags gave nothing', () => {
    expect(needsCluster({})).toBe(true);
    expect(needsCluster({ flag: '1.0.0' })).toBe(false);
    expect(needsCluster({ tag })).toBe(false);
  });
});
