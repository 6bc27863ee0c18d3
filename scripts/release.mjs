// The release workflow's steps that need more than a shell line (.github/workflows/release.yml):
//
//   node scripts/release.mjs check             the tag is v<package.json's version> and
//                                              CHANGELOG.md has that version's notes
//   node scripts/release.mjs publish FILE...   the GitHub release of the tag, with those notes and
//                                              FILEs attached, then the major tag (v1 for v1.2.3)
//                                              moved to the tag's commit
//
// From the runner's environment: GITHUB_REF_NAME (the tag), GITHUB_SHA, GITHUB_REPOSITORY,
// GITHUB_API_URL and GITHUB_TOKEN. Run again for the same tag (a re-run), publish updates the
// release and replaces its files instead of failing. A prerelease (v1.0.0-rc.1) moves no major
// tag, nor does a release older than one already made in its major line (v1.2.4 after v1.3.0).
// The REST calls are the documented ones (releases, release assets, git refs), through fetch.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const TAG = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/;

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

/** The tag's version parts, or an error naming what a release tag looks like. */
function parseTag(tag, packageVersion) {
  const m = TAG.exec(tag ?? '');
  if (!m) fail(`the tag "${tag ?? ''}" is not vMAJOR.MINOR.PATCH[-PRERELEASE] (e.g. v1.2.3)`);
  if (tag !== `v${packageVersion}`) fail(`the tag ${tag} is not package.json's version ${packageVersion}: tag the commit that sets it (npm version ${tag.slice(1)})`);
  return { major: `v${m[1]}`, numbers: [Number(m[1]), Number(m[2]), Number(m[3])], prerelease: m[4] !== undefined };
}

/** The text under CHANGELOG.md's `## <version>` heading (anything after the version on that line is allowed), up to the next `## `. */
function releaseNotes(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l === `## ${version}` || l.startsWith(`## ${version} `));
  if (start < 0) fail(`CHANGELOG.md has no "## ${version}" section: write the release notes there before tagging`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const notes = lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim();
  if (!notes) fail(`CHANGELOG.md's "## ${version}" section is empty: write the release notes there before tagging`);
  return notes;
}

function local() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const tag = process.env.GITHUB_REF_NAME;
  const parsed = parseTag(tag, pkg.version);
  const notes = releaseNotes(readFileSync('CHANGELOG.md', 'utf8'), pkg.version);
  return { tag, version: pkg.version, notes, ...parsed };
}

function env(name) {
  const v = process.env[name];
  if (!v) fail(`${name} is not set (the runner sets it; the workflow passes GITHUB_TOKEN)`);
  return v;
}

async function publish(files) {
  const { tag, notes, major, numbers, prerelease } = local();
  const api = env('GITHUB_API_URL').replace(/\/$/, '');
  const repo = env('GITHUB_REPOSITORY');
  const sha = env('GITHUB_SHA');
  const token = env('GITHUB_TOKEN');
  const call = async (method, url, body, headers = {}) => {
    const res = await fetch(url.startsWith('http') ? url : `${api}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', ...(body && !(body instanceof Uint8Array) ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body instanceof Uint8Array ? body : body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const data = text ? JSON.parse(text) : undefined;
    return { status: res.status, data };
  };
  const must = (r, what) => {
    if (r.status >= 300) fail(`${what}: HTTP ${r.status} ${r.data?.message ?? ''}`.trim());
    return r.data;
  };

  const existing = await call('GET', `/repos/${repo}/releases/tags/${encodeURIComponent(tag)}`);
  const fields = { name: tag, body: notes, prerelease, draft: false };
  const release =
    existing.status === 200
      ? must(await call('PATCH', `/repos/${repo}/releases/${existing.data.id}`, fields), `updating the release of ${tag}`)
      : must(await call('POST', `/repos/${repo}/releases`, { tag_name: tag, ...fields }), `creating the release of ${tag}`);
  console.log(`release: ${existing.status === 200 ? 'updated' : 'created'} the release of ${tag} (${release.html_url ?? release.id})`);

  const uploadUrl = release.upload_url.replace(/\{.*\}$/, '');
  for (const file of files) {
    const name = basename(file);
    const old = (release.assets ?? []).find((a) => a.name === name);
    if (old) must(await call('DELETE', `/repos/${repo}/releases/assets/${old.id}`), `removing the earlier ${name}`);
    const asset = must(await call('POST', `${uploadUrl}?name=${encodeURIComponent(name)}`, new Uint8Array(readFileSync(file)), { 'content-type': 'application/octet-stream' }), `attaching ${name}`);
    console.log(`release: attached ${name} (${asset.browser_download_url ?? asset.id})`);
  }

  if (prerelease) {
    console.log(`release: ${tag} is a prerelease: ${major} stays where it is`);
    return;
  }
  const refs = must(await call('GET', `/repos/${repo}/git/matching-refs/tags/${major}.`), `listing the ${major}.* tags`);
  const newer = refs
    .map((r) => TAG.exec(r.ref.replace(/^refs\/tags\//, '')))
    .filter((m) => m && m[4] === undefined)
    .map((m) => m.slice(1, 4).map(Number))
    .find((n) => n[0] === numbers[0] && (n[1] > numbers[1] || (n[1] === numbers[1] && n[2] > numbers[2])));
  if (newer) {
    console.log(`release: v${newer.join('.')} is newer than ${tag}: ${major} stays where it is`);
    return;
  }
  const moved = await call('PATCH', `/repos/${repo}/git/refs/tags/${major}`, { sha, force: true });
  if (moved.status === 422 || moved.status === 404) must(await call('POST', `/repos/${repo}/git/refs`, { ref: `refs/tags/${major}`, sha }), `creating ${major}`);
  else must(moved, `moving ${major}`);
  console.log(`release: ${major} -> ${sha} (${tag})`);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'check' && args.length === 0) {
  const { tag, notes } = local();
  console.log(`release: ${tag} matches package.json; its notes:\n${notes}`);
} else if (command === 'publish' && args.length > 0) {
  await publish(args);
} else {
  console.error('usage: node scripts/release.mjs check | publish FILE...');
  process.exit(2);
}
