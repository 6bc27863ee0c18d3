import { checkPin, normalizeToolVersion, parseToolPin, PINNED_RELEASES, resolveRelease, withChecksums } from './releases.js';

const SUM = 'ab'.repeat(32);

test('every pinned sha256 is 64 lowercase hex digits', () => {
  for (const versions of Object.values(PINNED_RELEASES)) {
    for (const platforms of Object.values(versions)) for (const sum of Object.values(platforms)) expect(sum).toMatch(/^[a-f0-9]{64}$/);
  }
});

describe('parseToolPin: checked where inputs and flags are read', () => {
  test.each([
    ['imgpkg', '', '', 'input', {}],
    ['imgpkg', '0.45.0', '', 'input', { version: 'v0.45.0' }],
    ['kbld', ' v0.45.0 ', SUM.toUpperCase(), 'flag', { version: 'v0.45.0', sha256: SUM }],
  ] as const)('%s %j %j (%s)', (tool, v, s, names, want) => expect(parseToolPin(tool, v, s, names)).toEqual(want));
  test.each([
    ['imgpkg', 'latest', '', 'input', 'input imgpkg-version: "latest" is not a release version such as v0.41.1'],
    ['ytt', 'v1', '', 'flag', '--ytt-version: "v1" is not a release version such as v0.44.3'],
    ['kbld', 'v0.45.0', 'abc', 'flag', '--kbld-sha256: "abc" is not a sha256 (64 hex digits), e.g. the output of sha256sum kbld-linux-amd64'],
    ['kind', '', SUM, 'input', 'input kind-sha256 needs input kind-version: the sha256 is that of the release binary of the version you name'],
  ] as const)('%s %j %j (%s): refused', (tool, v, s, names, message) => {
    expect(() => parseToolPin(tool, v, s, names)).toThrow(expect.objectContaining({ exitCode: 2, message }));
  });
});

describe('resolveRelease', () => {
  test.each([
    ['the default is pinned', 'imgpkg', undefined, 'linux-amd64', { version: 'v0.41.1', sha256: PINNED_RELEASES.imgpkg['v0.41.1']!['linux-amd64'] }],
    ['another pinned version', 'imgpkg', { version: 'v0.48.2' }, 'linux-arm64', { version: 'v0.48.2', sha256: PINNED_RELEASES.imgpkg['v0.48.2']!['linux-arm64'] }],
    ['any version with its sha256', 'kbld', { version: 'v0.45.0', sha256: SUM }, 'linux-amd64', { version: 'v0.45.0', sha256: SUM }],
    ["the user's sha256 over the pin", 'ytt', { version: 'v0.44.3', sha256: SUM }, 'linux-amd64', { version: 'v0.44.3', sha256: SUM }],
    ["kind without a sha256: the release's own .sha256sum", 'kind', { version: 'v0.29.0' }, 'linux-amd64', { version: 'v0.29.0' }],
  ] as const)('%s', (_what, tool, pin, platform, want) => expect(resolveRelease(tool, pin, platform)).toEqual(want));

  test('a version devpkg does not pin, without a sha256: a usage error naming the input, the flag and the other ways', () => {
    expect(() => resolveRelease('imgpkg', { version: 'v0.45.0' }, 'linux-amd64')).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message:
          'devpkg pins no sha256 for imgpkg v0.45.0 on linux-amd64 (pinned: v0.41.1, v0.48.2); give the sha256 of its imgpkg-linux-amd64 with imgpkg-sha256 (CLI: --imgpkg-sha256) or in a tool-checksums file (CLI: --tool-checksums) ' +
          'next to imgpkg-version (CLI: --imgpkg-version), choose a pinned version, or put imgpkg on PATH before devpkg (e.g. carvel-dev/setup-action)',
      }),
    );
  });

  test('checkPin refuses only a version the user named; the default is resolved when it must be installed', () => {
    expect(() => checkPin('imgpkg', { version: 'v0.45.0' }, 'linux-amd64')).toThrow(/imgpkg-sha256/);
    expect(() => checkPin('imgpkg', undefined, 'darwin-arm64')).not.toThrow();
    expect(() => checkPin('imgpkg', { version: 'v0.45.0', sha256: SUM }, 'linux-amd64')).not.toThrow();
  });
});

test('normalizeToolVersion', () => {
  expect(normalizeToolVersion('0.45.0', 'x')).toBe('v0.45.0');
  expect(normalizeToolVersion('v0.45.0-rc.1', 'x')).toBe('v0.45.0-rc.1');
});

describe('withChecksums: a checksums file gives the sums of the versions named', () => {
  const listing = `${'1'.repeat(64)}  imgpkg-linux-amd64\n${'2'.repeat(64)} *./kind-linux-amd64\n${'3'.repeat(64)}  ytt-darwin-arm64\nnot a line\n`;
  test('each tool with a version and no sha256 gets the line naming its binary for this platform', () => {
    expect(withChecksums({ imgpkg: { version: 'v0.45.0' }, kind: { version: 'v0.29.0' }, ytt: { version: 'v0.50.0' }, kbld: {} }, listing, '/x/sums.txt', 'linux-amd64')).toEqual({
      imgpkg: { version: 'v0.45.0', sha256: '1'.repeat(64), sha256From: 'tool-checksums /x/sums.txt' },
      kind: { version: 'v0.29.0', sha256: '2'.repeat(64), sha256From: 'tool-checksums /x/sums.txt' },
      ytt: { version: 'v0.50.0' },
      kbld: {},
    });
  });
  test('a sha256 given on its own wins; no version, nothing taken', () => {
    const pins = { imgpkg: { version: 'v0.45.0', sha256: SUM }, kind: {} };
    expect(withChecksums(pins, listing, 'f', 'linux-amd64')).toEqual(pins);
  });
});
