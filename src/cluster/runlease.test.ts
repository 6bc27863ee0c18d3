import { leaseConflict, leaseName, runHolder, type LeaseObject } from './runlease.js';

const lease = (holder: string, renew = '2026-12-02T04:00:00.000000Z', seconds = 900): LeaseObject => ({
  metadata: { namespace: 'tkg-system', name: 'devpkg-antrea' },
  spec: { holderIdentity: holder, acquireTime: '2026-12-02T03:59:00.000000Z', renewTime: renew, leaseDurationSeconds: seconds },
});

test('no Lease, our own Lease, or an expired one: no conflict', () => {
  const now = new Date('2026-12-02T04:10:00Z');
  expect(leaseConflict(undefined, 'me', now)).toBeUndefined();
  expect(leaseConflict(lease('me'), 'me', now)).toBeUndefined();
  expect(leaseConflict(lease('other', '2026-12-02T03:00:00.000000Z', 900), 'me', now)).toBeUndefined();
});

test('another run holding an unexpired Lease is named, with how long it holds and how to clear it', () => {
  expect(leaseConflict(lease('devpkg on ci-7 pid 42 started 2026-12-02T03:59:00.000Z'), 'me', new Date('2026-12-02T04:10:00Z'))).toBe(
    'another devpkg run is working on this PackageInstall: devpkg on ci-7 pid 42 started 2026-12-02T03:59:00.000Z, since 2026-12-02T03:59:00.000000Z ' +
      '(Lease tkg-system/devpkg-antrea, held until 2026-12-02T04:15:00.000Z). Two runs on one PackageInstall make each other lose: ' +
      'wait for it to finish, or, if that run is gone, delete the Lease: kubectl delete lease -n tkg-system devpkg-antrea',
  );
});

test('the holder names the GitHub run when there is one; the Lease is named after the PackageInstall', () => {
  expect(runHolder({ GITHUB_RUN_ID: '7', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ATTEMPT: '2' }, new Date('2026-12-02T04:00:00Z'))).toMatch(
    /^devpkg on \S+ pid \d+ started 2026-12-02T04:00:00\.000Z \(GitHub o\/r run 7 attempt 2\)$/,
  );
  expect(leaseName('antrea')).toBe('devpkg-antrea');
});
