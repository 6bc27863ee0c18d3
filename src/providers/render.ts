/**
 * Renders a providers tree the way `tanzu management-cluster create --dry-run` does (tanzu-framework
 * v0.25, the CLI of TKG 1.6 and TCE 0.12), with the ytt CLI instead of the CLI's built-in ytt, so
 * that bootstrap's dry-run check runs where no tanzu CLI is at hand. How the CLI does it (cited from
 * v0.25.4, not copied):
 *
 * - client/init.go BuildRegionalClusterConfiguration -> client/config.go getClusterConfiguration ->
 *   clusterctl GetClusterTemplate, which hands the infrastructure's template definition for the plan
 *   to yamlprocessor/ytt.go (GetTemplateName: `cluster-template-definition-<plan>.yaml` in
 *   `providers/infrastructure-<infra>/<version>/`; the version is the one providers/config.yaml lists);
 * - yamlprocessor/ytt_definition_parser.go ParsePath: the definition's `spec.paths`, relative to the
 *   tkg folder (`~/.config/tanzu/tkg`, the providers folder's parent), in order;
 * - ytt.go getYttFiles: one sorted file list from all paths (the same as `ytt -f P1 -f P2 ...`), and a
 *   path's `filemark` applied to the files under it (`--file-mark FILE:type=MARK`): the bom folder is
 *   `text-plain`, data the templates read, never output;
 * - ytt.go Process: for every data value the templates declare (config_default.yaml's keys) that the
 *   config sets, one `KEY=VALUE` parsed as YAML when it parses to something (null, bool, number or
 *   structured), else as a quoted string (`--data-value-yaml`), applied over the declared defaults;
 * - the values the CLI sets itself before rendering (client/validate.go ConfigureAndValidateManagementClusterConfiguration
 *   and ConfigureAndValidateTkrVersion, ConfigureAndValidateDockerConfig, SetTKGClusterRole,
 *   ConfigureAndValidateCNIType; client/config.go SetPlan; tkgctl/client.go TKG_DEFAULT_BOM;
 *   client/init.go the tkg-system namespace and the plan's machine counts) win over the config's,
 *   as viper's Set does.
 *
 * planRender is pure (tested table-style); renderProviders reads the tree and runs ytt.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { DevpkgError } from '../errors.js';
import type { Ytt } from '../tools/ytt.js';
import { bomText, defaultBoms, renderOnlyBoms, type Bom } from './bom.js';
import { listFiles } from './files.js';

export type ClusterRole = 'management' | 'workload';

export interface TemplatePath {
  /** Relative to the tkg folder, e.g. providers/ytt or bom. */
  path: string;
  filemark?: string;
}

type Values = Record<string, unknown>;

/** Pure: `spec.paths` of a TemplateDefinition (cluster-template-definition-<plan>.yaml). */
export function parseTemplateDefinition(text: string, file: string): TemplatePath[] {
  const doc = (parse(text) ?? {}) as { kind?: string; spec?: { paths?: { path?: string; filemark?: string }[] } };
  const paths = doc.spec?.paths ?? [];
  if (doc.kind !== 'TemplateDefinition' || paths.length === 0 || paths.some((p) => !p.path)) {
    throw new DevpkgError(`${file} is not a TemplateDefinition with spec.paths`);
  }
  return paths.map((p) => ({ path: p.path!, ...(p.filemark ? { filemark: p.filemark } : {}) }));
}

/**
 * Pure: the version folder of an infrastructure provider, from providers/config.yaml
 * (`providers: [{name: docker, type: InfrastructureProvider, url: providers/infrastructure-docker/v1.1.5/...}]`).
 */
export function infrastructureVersion(configYaml: string, infra: string): string {
  const providers = ((parse(configYaml) ?? {}) as { providers?: { name?: string; type?: string; url?: string }[] }).providers ?? [];
  const p = providers.find((x) => x.name === infra && x.type === 'InfrastructureProvider');
  const version = p?.url?.split('/').find((seg) => /^v\d+\.\d+\.\d+/.test(seg));
  if (!version) {
    throw new DevpkgError(`providers/config.yaml lists no ${infra} InfrastructureProvider with a versioned url (listed: ${providers.map((x) => x.name).join(', ') || 'none'})`);
  }
  return version;
}

/** Pure: the template definition of a plan, relative to the tkg folder. */
export function templateDefinitionFile(infra: string, version: string, plan: string): string {
  return path.join('providers', `infrastructure-${infra}`, version, `cluster-template-definition-${plan}.yaml`);
}

/** Pure: the data values config_default.yaml declares (its top-level keys). */
export function dataValueKeys(configDefault: string): string[] {
  return Object.keys((parse(configDefault) ?? {}) as object);
}

/** Pure: a value as the CLI's config reader hands it to ytt.go Process (a string). */
function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Pure: one `--data-value-yaml` argument the way ytt.go Process builds it. */
export function dataValueArg(key: string, value: unknown): string {
  const s = asString(value);
  let convertible = s === '~' || s === 'null';
  if (!convertible) {
    try {
      const v: unknown = parse(s);
      convertible = v !== null && v !== undefined;
    } catch {
      convertible = false;
    }
  }
  return `${key}=${convertible ? s : JSON.stringify(s)}`;
}

export interface CliValueOptions {
  infrastructure: string;
  role: ClusterRole;
  tkgBom: Bom;
  tkrBom: Bom;
  now?: Date;
}

/**
 * Pure: the config as the CLI completes it for `management-cluster create -i <infra>` (see the file
 * comment for where each value comes from). `config` is the merged user config (tkg config file,
 * then the cluster config file).
 */
export function cliValues(config: Values, o: CliValueOptions): Values {
  const plan = asString(config.CLUSTER_PLAN) || 'dev';
  const tkr = o.tkrBom.data;
  const k8s = tkr.components?.kubernetes?.[0]?.version;
  const tkrVersion = tkr.release?.version;
  if (!k8s || !tkrVersion) throw new DevpkgError(`${o.tkrBom.name} has no release.version or components.kubernetes[0].version`);
  const counts = plan === 'prod' ? 3 : 1;
  const now = o.now ?? new Date();
  const stamp = [now.getFullYear(), now.getMonth() + 1, now.getDate(), now.getHours(), now.getMinutes(), now.getSeconds()].map((n, i) => String(n).padStart(i ? 2 : 4, '0')).join('');
  const out: Values = {
    ...config,
    // client/init.go generateRegionalClusterName when the config names none.
    CLUSTER_NAME: asString(config.CLUSTER_NAME) || `tkg-mgmt-${o.infrastructure}-${stamp}`,
    CLUSTER_PLAN: plan,
    NAMESPACE: 'tkg-system',
    TKG_CLUSTER_ROLE: o.role,
    PROVIDER_TYPE: o.infrastructure,
    INFRASTRUCTURE_PROVIDER: asString(config.INFRASTRUCTURE_PROVIDER) || o.infrastructure,
    BUILD_EDITION: asString(config.BUILD_EDITION) || 'tkg',
    CNI: asString(config.CNI) || 'antrea',
    TKG_DEFAULT_BOM: o.tkgBom.name,
    TKG_VERSION: o.tkgBom.data.release?.version,
    KUBERNETES_RELEASE: tkrVersion.replace('+', '---'),
    KUBERNETES_VERSION: k8s,
    CONTROL_PLANE_MACHINE_COUNT: config.CONTROL_PLANE_MACHINE_COUNT ?? counts,
    WORKER_MACHINE_COUNT: config.WORKER_MACHINE_COUNT ?? counts,
  };
  // client/validate.go configureAndValidateIPFamilyConfiguration and configureAndValidateCoreDNSIP
  // (IPv4 defaults from constants/defaults.go; other families keep what the config says).
  if (!asString(config.TKG_IP_FAMILY) || asString(config.TKG_IP_FAMILY) === 'ipv4') {
    out.SERVICE_CIDR = asString(config.SERVICE_CIDR) || '100.64.0.0/13';
    out.CLUSTER_CIDR = asString(config.CLUSTER_CIDR) || '100.96.0.0/11';
    const dns = indexedIPv4(asString(out.SERVICE_CIDR).split(',')[0]!, 10);
    if (dns) out.CORE_DNS_IP = dns;
  }
  const kind = tkr.components?.['kubernetes-sigs_kind']?.[0]?.images?.kindNodeImage;
  if (o.infrastructure === 'docker' && kind) {
    // A configured mirror replaces the BOM's repository (the CLI's BOM client: GetCustomRepository).
    const repo = asString(config.TKG_CUSTOM_IMAGE_REPOSITORY) || (kind.imageRepository ?? o.tkgBom.data.imageConfig?.imageRepository ?? tkr.imageConfig?.imageRepository);
    out.DOCKER_MACHINE_TEMPLATE_IMAGE = `${repo}/${kind.imagePath}:${kind.tag}`;
  }
  return out;
}

/** Pure: the `index`th address of an IPv4 CIDR (undefined when it is not one). */
export function indexedIPv4(cidr: string, index: number): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr.trim());
  if (!m) return undefined;
  const bits = Number(m[5]);
  const base = m.slice(1, 5).reduce((a, o) => a * 256 + Number(o), 0);
  const network = bits === 0 ? 0 : Math.floor(base / 2 ** (32 - bits)) * 2 ** (32 - bits);
  const ip = network + index;
  return [24, 16, 8, 0].map((sh) => Math.floor(ip / 2 ** sh) % 256).join('.');
}

export interface RenderPlanInput {
  tkgDir: string;
  paths: TemplatePath[];
  /** Files under each path that carries a filemark, relative to that path (ytt's relative paths). */
  marked: Record<string, string[]>;
  /** Where a template path really is, when not under tkgDir (the render-only bom folder). */
  relocate?: Record<string, string>;
  /** The data values the templates declare. */
  keys: string[];
  values: Values;
}

export interface RenderPlan {
  files: string[];
  fileMarks: string[];
  dataValuesYaml: string[];
  /** Config keys the templates do not declare (the CLI drops them too). */
  ignored: string[];
}

/** Pure: the ytt invocation for a template definition, the files under its marked paths, and the values. */
export function planRender(i: RenderPlanInput): RenderPlan {
  const files = i.paths.map((p) => i.relocate?.[p.path] ?? path.join(i.tkgDir, p.path));
  const fileMarks = i.paths.flatMap((p) => (p.filemark ? (i.marked[p.path] ?? []).map((f) => `${f}:type=${p.filemark}`) : []));
  const declared = new Set(i.keys);
  const set = Object.keys(i.values).filter((k) => i.values[k] !== undefined);
  return {
    files,
    fileMarks,
    dataValuesYaml: set.filter((k) => declared.has(k)).sort().map((k) => dataValueArg(k, i.values[k])),
    ignored: set.filter((k) => !declared.has(k)).sort(),
  };
}

// ---- I/O ----

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function readValues(file: string): Promise<Values> {
  try {
    const v: unknown = parse(await readFile(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Values) : {};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new DevpkgError(`${file} is not a flat YAML config: ${(err as Error).message}`, { cause: err });
  }
}

async function readBoms(dir: string): Promise<Bom[]> {
  const names = (await readdir(dir)).filter((n) => /^(tkg|tkr)-bom-.*\.ya?ml$/.test(n));
  return Promise.all(names.map(async (name) => ({ name, data: (parse(await readFile(path.join(dir, name), 'utf8')) ?? {}) as Bom['data'] })));
}

export interface RenderProvidersOptions {
  ytt: Ytt;
  /** <tkg folder>/providers. */
  providersDir: string;
  /** The management cluster config file (flat KEY: value). */
  clusterConfig: string;
  infrastructure?: string;
  role?: ClusterRole;
  /** Values set over everything else, e.g. FILTER_BY_ADDON_TYPE. */
  values?: Values;
}

export interface ProvidersRender {
  text: string;
  plan: RenderPlan;
  /** Where the BOMs came from: the tkg folder's bom/, or devpkg's render-only stand-in. */
  bom: 'tkg' | 'render-only';
}

/**
 * Renders `providersDir` like `tanzu management-cluster create -i <infra> --dry-run --file <clusterConfig>`.
 * With no `<tkg>/bom` folder (no CLI has run here), the render-only BOMs of bom.ts stand in.
 */
export async function renderProviders(o: RenderProvidersOptions): Promise<ProvidersRender> {
  const tkgDir = path.dirname(o.providersDir);
  const infra = o.infrastructure ?? 'docker';
  // viper: the tkg config file first, the cluster config file over it (tkgctl/client.go Init, then the --file config).
  const config = { ...(await readValues(path.join(tkgDir, 'config.yaml'))), ...(await readValues(o.clusterConfig)) };
  const version = infrastructureVersion(await readFile(path.join(o.providersDir, 'config.yaml'), 'utf8'), infra);
  const defFile = templateDefinitionFile(infra, version, asString(config.CLUSTER_PLAN) || 'dev');
  let defText: string;
  try {
    defText = await readFile(path.join(tkgDir, defFile), 'utf8');
  } catch {
    throw new DevpkgError(`${path.join(tkgDir, defFile)} does not exist: the providers have no ${asString(config.CLUSTER_PLAN) || 'dev'} plan for ${infra} ${version}`);
  }
  const paths = parseTemplateDefinition(defText, defFile);
  const keys = dataValueKeys(await readFile(path.join(o.providersDir, 'config_default.yaml'), 'utf8'));

  const bomDir = path.join(tkgDir, 'bom');
  let boms = (await exists(bomDir)) ? await readBoms(bomDir) : [];
  let tmp: string | undefined;
  const relocate: Record<string, string> = {};
  try {
    if (!boms.some((b) => b.name.startsWith('tkg-bom-'))) {
      boms = renderOnlyBoms();
      tmp = await mkdtemp(path.join(os.tmpdir(), 'devpkg-render-bom-'));
      for (const b of boms) await writeFile(path.join(tmp, b.name), bomText(b));
      relocate.bom = tmp;
    }
    const { tkg, tkr } = defaultBoms(boms, asString(config.TKG_DEFAULT_BOM) || undefined);
    const values = { ...cliValues(config, { infrastructure: infra, role: o.role ?? 'management', tkgBom: tkg, tkrBom: tkr }), ...(o.values ?? {}) };
    const marked: Record<string, string[]> = {};
    for (const p of paths.filter((x) => x.filemark)) {
      const where = relocate[p.path] ?? path.join(tkgDir, p.path);
      marked[p.path] = (await stat(where)).isDirectory() ? await listFiles(where) : [path.basename(where)];
    }
    const plan = planRender({ tkgDir, paths, marked, relocate, keys, values });
    const text = await o.ytt.template({ files: plan.files, fileMarks: plan.fileMarks, dataValuesYaml: plan.dataValuesYaml });
    return { text, plan, bom: tmp ? 'render-only' : 'tkg' };
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}
