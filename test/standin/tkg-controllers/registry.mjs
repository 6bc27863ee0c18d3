// What the stand-in TKR controller reads from an OCI registry (the distribution API over plain
// HTTP, as the test registry serves it): the tags of a repository, and the one file of an image
// whose single layer is a tar (the BOM and compatibility images); and how the tanzu CLI stand-in
// and the tests push such an image.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/** host[:port]/path -> the registry API base of that repository. */
export function repositoryBase(repo, scheme = 'http') {
  const m = /^([^/]+)\/(.+)$/.exec(repo);
  if (!m || repo.includes('@') || /:[^/]*$/.test(m[2])) throw new Error(`${repo} is not an image repository (host/path, without tag or digest)`);
  return `${scheme}://${m[1]}/v2/${m[2]}`;
}

export async function listTags(repo, scheme) {
  const base = repositoryBase(repo, scheme);
  const r = await fetch(`${base}/tags/list`);
  if (r.status === 404) return [];
  if (!r.ok) throw new Error(`listing the tags of ${repo}: ${r.status}`);
  return ((await r.json()).tags ?? []).slice().sort();
}

/** The content of the first regular file in the image's first layer. */
export async function imageFile(repo, tag, scheme) {
  const base = repositoryBase(repo, scheme);
  const m = await fetch(`${base}/manifests/${encodeURIComponent(tag)}`, {
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' },
  });
  if (!m.ok) throw new Error(`reading the manifest of ${repo}:${tag}: ${m.status}`);
  const layer = (await m.json()).layers?.[0];
  if (!layer?.digest) throw new Error(`${repo}:${tag} has no layer`);
  const b = await fetch(`${base}/blobs/${layer.digest}`);
  if (!b.ok) throw new Error(`reading layer ${layer.digest} of ${repo}:${tag}: ${b.status}`);
  let tar = Buffer.from(await b.arrayBuffer());
  if (tar[0] === 0x1f && tar[1] === 0x8b) tar = gunzipSync(tar);
  return firstFile(tar, `${repo}:${tag}`);
}

/** The first regular file of a tar archive (ustar headers of 512 bytes). */
export function firstFile(tar, what = 'the archive') {
  for (let off = 0; off + 512 <= tar.length; ) {
    const h = tar.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    if (h[156] === 0x30 || h[156] === 0) return tar.subarray(off + 512, off + 512 + size).toString('utf8');
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${what} holds no regular file`);
}

const sha256 = (b) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** One regular file in a tar archive (ustar), as an image layer holds the BOM. */
export function tarOne(name, content) {
  const h = Buffer.alloc(512, 0);
  const put = (str, off, len) => h.write(str, off, len, 'ascii');
  put(name, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return Buffer.concat([h, content, Buffer.alloc((512 - (content.length % 512)) % 512, 0), Buffer.alloc(1024, 0)]);
}

async function uploadBlob(base, blob) {
  const digest = sha256(blob);
  if ((await fetch(`${base}/blobs/${digest}`, { method: 'HEAD' })).ok) return digest;
  const started = await fetch(`${base}/blobs/uploads/`, { method: 'POST' });
  if (started.status !== 202) throw new Error(`registry: starting a blob upload to ${base} answered ${started.status}`);
  const url = new URL(started.headers.get('location'), `${base}/`);
  url.searchParams.set('digest', digest);
  const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: blob });
  if (put.status !== 201) throw new Error(`registry: uploading ${digest} to ${base} answered ${put.status}`);
  return digest;
}

/**
 * A plain OCI image of one file, pushed with the registry API. (Not `imgpkg push`: it also writes a
 * `sha256-<digest>.imgpkg` tag, which the TKR controller would list as one more BOM tag.) Returns `ref`.
 */
export async function pushFileImage(ref, fileName, text) {
  const m = /^([^/]+)\/(.+):([^:/]+)$/.exec(ref);
  if (!m) throw new Error(`not an image reference with a tag: ${ref}`);
  const base = `http://${m[1]}/v2/${m[2]}`;
  const tar = tarOne(fileName, Buffer.from(text));
  const layer = gzipSync(tar);
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: {}, rootfs: { type: 'layers', diff_ids: [sha256(tar)] } }));
  const layerDigest = await uploadBlob(base, layer);
  const configDigest = await uploadBlob(base, config);
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layerDigest, size: layer.length }],
  };
  const put = await fetch(`${base}/manifests/${m[3]}`, { method: 'PUT', headers: { 'content-type': manifest.mediaType }, body: JSON.stringify(manifest) });
  if (put.status !== 201) throw new Error(`registry: pushing the manifest ${ref} answered ${put.status}: ${await put.text()}`);
  return ref;
}
