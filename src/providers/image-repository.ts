/**
 * TKG's image mirror: `TKG_CUSTOM_IMAGE_REPOSITORY` (with `_SKIP_TLS_VERIFY` and
 * `_CA_CERTIFICATE`), the config variables the tanzu CLI reads from the cluster config file
 * (tanzu-framework constants/config_variables.go) and the providers' ytt templates declare. The
 * TKG 1.x BOMs name images on projects.registry.vmware.com, which its owner decommissioned in
 * 2024, so a bootstrap today needs a mirror. devpkg writes the three into a copy of the cluster
 * config, so the dry-run, its check and the create all see them, and checks that the render pulls
 * from the mirror. Pure.
 */
import { parse, stringify } from 'yaml';
import { UsageError } from '../errors.js';
import { parseDocs, type Doc } from './validate.js';

/** The registry the TKG 1.x BOMs name, gone since 2024. */
export const OLD_TKG_REGISTRY = 'projects.registry.vmware.com';

export interface ImageRepository {
  /** HOST[:PORT]/PATH, e.g. harbor.example.com/tkg. */
  repository: string;
  skipTlsVerify?: boolean;
  /** The mirror's CA certificate, base64 of the PEM (as TKG takes it). */
  caCertificate?: string;
}

/**
 * Pure: the image repository from an input or flag trio, validated. `caCertificate` may be the
 * PEM itself or its base64; `names` are the input or flag names for the messages.
 */
export function parseImageRepository(
  repository: string,
  skipTlsVerify: boolean,
  caCertificate: string,
  names: { repository: string; caCertificate: string; skipTlsVerify: string },
): ImageRepository | undefined {
  const repo = repository.trim().replace(/\/+$/, '');
  if (!repo) {
    if (skipTlsVerify || caCertificate.trim()) throw new UsageError(`${names.skipTlsVerify} and ${names.caCertificate} apply to ${names.repository}, which is not set`);
    return undefined;
  }
  if (repo.includes('://') || /\s/.test(repo) || !/^[a-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._/-]+)?$/i.test(repo)) {
    throw new UsageError(`${names.repository}: "${repository}" is not HOST[:PORT][/PATH] (no scheme), e.g. harbor.example.com/tkg`);
  }
  if (repo === OLD_TKG_REGISTRY || repo.startsWith(`${OLD_TKG_REGISTRY}/`)) {
    throw new UsageError(`${names.repository}: ${OLD_TKG_REGISTRY} is the registry the TKG 1.x BOMs name, decommissioned in 2024; give your mirror of its images`);
  }
  const out: ImageRepository = { repository: repo };
  if (skipTlsVerify) out.skipTlsVerify = true;
  const ca = caCertificate.trim();
  if (ca) {
    const pem = ca.startsWith('-----BEGIN') ? ca : Buffer.from(ca, 'base64').toString('utf8');
    if (!/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(pem.trim())) {
      throw new UsageError(`${names.caCertificate}: not a PEM certificate, nor the base64 of one (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)`);
    }
    out.caCertificate = Buffer.from(pem.trim() + '\n').toString('base64');
  }
  return out;
}

/** Pure: the config variables for the cluster config. */
export function imageRepositoryValues(r: ImageRepository): Record<string, string | boolean> {
  return {
    TKG_CUSTOM_IMAGE_REPOSITORY: r.repository,
    TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY: !!r.skipTlsVerify,
    ...(r.caCertificate ? { TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE: r.caCertificate } : {}),
  };
}

/** Pure: a flat cluster config (KEY: value) with `values` set over what it says. */
export function withConfigValues(configText: string, values: Record<string, unknown>, file = 'cluster config'): string {
  let doc: unknown;
  try {
    doc = parse(configText) ?? {};
  } catch (err) {
    throw new UsageError(`${file} is not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`${file} is not a flat KEY: value map`);
  return stringify({ ...(doc as object), ...values });
}

/** Pure: the image references (`image`, `imageRepository`, `customImage` values) in the rendered cluster objects. */
export function imageReferences(docs: Doc[]): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'string' && (k === 'image' || k === 'imageRepository' || k === 'customImage')) out.push(x);
        else walk(x);
      }
    }
  };
  docs.forEach(walk);
  return [...new Set(out)].sort();
}

export interface ImageRepositoryCheck {
  /** References under the mirror. */
  mirrored: string[];
  /** References still on the decommissioned registry. */
  old: string[];
}

/**
 * Pure: whether the render pulls from the mirror. Throws when it still pulls from the old
 * registry and from no image under the mirror (the providers do not apply the variable).
 */
export function checkImageRepository(rendered: string, r: ImageRepository): ImageRepositoryCheck {
  const refs = imageReferences(parseDocs(rendered));
  const under = (x: string) => x === r.repository || x.startsWith(`${r.repository}/`);
  const mirrored = refs.filter(under);
  const old = refs.filter((x) => x === OLD_TKG_REGISTRY || x.startsWith(`${OLD_TKG_REGISTRY}/`));
  if (old.length && !mirrored.length) {
    throw new UsageError(
      `the dry-run render pulls ${old.slice(0, 3).join(', ')}${old.length > 3 ? ` and ${old.length - 3} more` : ''} from ${OLD_TKG_REGISTRY} and nothing from ${r.repository}: ` +
        `these providers do not apply TKG_CUSTOM_IMAGE_REPOSITORY (check the providers' config_default.yaml declares it, and the tanzu CLI version)`,
    );
  }
  return { mirrored, old };
}
