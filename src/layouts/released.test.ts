import { chooseReleased, needsCluster } from './released.js';

describe('the released version chain (kctrl): flag, else tag, else the cluster, else 0.0.0', () => {
  const cluster = { version: '1.4.0', why: 'kapp-controller selects 1.4.0 for PackageInstall ns/app among the Packages of app.example.com (1.4.0)' };

  test('--released-version wins over a tag and the cluster', () => {
    expect(chooseReleased({ flag: '2.0.0', tag: '1.9.0', cluster })).toEqual({ version: '2.0.0', from: 'flag', why: 'from --released-version (input released-version)' });
  });

  test('a git tag wins over the cluster', () => {
    expect(chooseReleased({ tag: '1.9.0', cluster })).toEqual({ version: '1.9.0', from: 'tag', why: 'the highest matching git tag' });
  });

  test('the cluster\'s Packages when neither the flag nor a tag gives one, saying where', () => {
    expect(chooseReleased({ cluster })).toEqual({ version: '1.4.0', from: 'cluster', why: `from the cluster's Packages: ${cluster.why}` });
  });

  test('none: 0.0.0, saying the cluster had none and why', () => {
    expect(chooseReleased({ cluster: { why: 'no PackageInstall of app.example.com in the cluster' } })).toEqual({
      version: '0.0.0',
      from: 'none',
      why: 'no --released-version, no matching git tag, and none from the cluster (no PackageInstall of app.example.com in the cluster): 0.0.0',
    });
  });

  test('none outside cluster mode: 0.0.0, saying the cluster is read only in cluster mode', () => {
    expect(chooseReleased({})).toEqual({ version: '0.0.0', from: 'none', why: 'no --released-version, no matching git tag (the cluster is read only in cluster mode): 0.0.0' });
  });

  test('the cluster is needed only when the flag and the tags gave nothing', () => {
    expect(needsCluster({})).toBe(true);
    expect(needsCluster({ flag: '1.0.0' })).toBe(false);
    expect(needsCluster({ tag: '1.0.0' })).toBe(false);
  });
});
