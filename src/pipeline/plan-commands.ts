/**
 * The commands a plan prints, as data and as text (pure). A command names its files as
 * PlanPaths, rendered for where the user stands: relative to the current directory, or absolute
 * when outside it. A command naming a file of the plan's folder that this run did not write is
 * printed as a comment: no printed command names a file that is not there.
 */
import path from 'node:path';

/** A file a command names: in the repository, in the plan's folder (--out), or in the home folder. */
export interface PlanPath {
  at: 'repo' | 'out' | 'home';
  /** Relative to the repository root, the plan's folder or the home folder, with `/`. */
  path: string;
}

export type Word = string | PlanPath;

export interface PlanStep {
  words: Word[];
  /** Said after the command, as a shell comment. */
  why?: string;
  /** A note for the reader (printed as a comment), not a command. */
  note?: boolean;
  /** The command that writes the plan's folder: printed (to run) only when this run wrote nothing. */
  writesPlan?: boolean;
  /** Runs only after a step that names the plan's files (the create after the overlay's cp). */
  afterOut?: boolean;
}

/** Where the plan is read: the current directory, the repository, the plan's folder and whether this run wrote it. */
export interface PlanPlace {
  cwd: string;
  root: string;
  /** The plan's folder (absolute): --out, or where --out would write when it is not given. */
  out: string;
  written: boolean;
  /**
   * What becomes of a step naming files this run did not write: a comment saying where they
   * would be (the CLI), or left out (the action's summary and comment: the runner's paths mean
   * nothing to the reader). Default comment.
   */
  unwritten?: 'comment' | 'omit';
}

/** The folder --out suggests when none is given (relative to the current directory). */
export const DEFAULT_OUT = 'devpkg-plan';

/** The files of one package version in the plan's folder (relative to it): NAME/VERSION/... */
export function planFilesOf(name: string, version: string) {
  const dir = `${name}/${version}`;
  return {
    dir,
    devPackage: `${dir}/dev-package.yaml`,
    overlay: (fileName: string) => `${dir}/${fileName}`,
    bundle: `${dir}/bundle`,
    lock: `${dir}/bundle.lock.yml`,
  };
}

const SAFE = /^[\w@%+=:,./~-]+$/;

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
export function shellWord(w: string): string {
  if (w !== '' && SAFE.test(w)) return w;
  return `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The absolute path of a plan path (home paths stay `~/...`: the shell expands them). */
export function absolutePath(p: PlanPath, place: Pick<PlanPlace, 'root' | 'out'>): string {
  if (p.at === 'home') return `~/${p.path}`;
  return path.join(p.at === 'repo' ? place.root : place.out, p.path);
}

/** A path as the user types it from the current directory: relative when inside it, else absolute. */
export function shownPath(p: PlanPath, place: Pick<PlanPlace, 'cwd' | 'root' | 'out'>): string {
  if (p.at === 'home') return `~/${p.path}`;
  const abs = absolutePath(p, place);
  const rel = path.relative(place.cwd, abs);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel) ? abs : rel;
}

/** Whether a step needs a file of the plan's folder. */
export const needsOut = (s: PlanStep) => s.afterOut === true || s.words.some((w) => typeof w !== 'string' && w.at === 'out');

/** Whether a step needs files this run did not write. */
const wanting = (s: PlanStep, place: PlanPlace) => !place.written && !s.writesPlan && needsOut(s);

/** One step as a line: a command, or a comment when it is a note or needs files this run did not write. */
export function renderStep(s: PlanStep, place: PlanPlace): string {
  const text = s.words.map((w) => (typeof w === 'string' ? w : shellWord(shownPath(w, place)))).join(' ');
  const line = s.why ? `${text}   # ${s.why}` : text;
  return s.note || wanting(s, place) ? `# ${line}` : line;
}

export function renderSteps(steps: readonly PlanStep[], place: PlanPlace): string[] {
  const shown = steps.filter((s) => !(s.writesPlan && place.written) && !(place.unwritten === 'omit' && wanting(s, place)));
  return shown.map((s) => renderStep(s, place));
}

/** What the steps of one package version are made from (plan.ts gathers it; pure from here). */
export interface StepsInput {
  name: string;
  version: string;
  /** The version's folder or file, repository-relative. */
  path: string;
  refName: string;
  targetRefName: string;
  /** Where the dev bundle is pushed, repo:tag. */
  tagImage: string;
  /** How the bundle is delivered (the layout's push plan, as the steps need it). */
  push: { kind: 'folder'; folder: string } | { kind: 'build'; what: string } | { kind: 'as-is'; image: string };
  /** What devpkg dev and bootstrap take (the version folder), when they can take it. */
  bootstrap?: { folder: string };
  /** The overlay's file name in 04_user_customizations. */
  overlayFile: string;
}

/** The request's flags that the devpkg commands printed for one package repeat. */
export interface StepsOptions {
  /** --build was given (the bundle is in the plan's folder). */
  build: boolean;
  /** Where dev bundles go, HOST[:PORT]/PATH. */
  registry: string;
  /** --layout, when not auto. */
  layout?: string;
  /** --packages-dir, when not the default. */
  packagesDir?: string;
  releasedVersion?: string;
  addonType?: string;
}

const PROVIDERS_CUSTOMIZATIONS = '.config/tanzu/tkg/providers/ytt/04_user_customizations';

/** The commands that take one planned package version further, by what its layout allows (pure). */
export function packageSteps(p: StepsInput, o: StepsOptions): PlanStep[] {
  const files = planFilesOf(p.name, p.version);
  const repo = (q: string): PlanPath => ({ at: 'repo', path: q });
  const out = (q: string): PlanPath => ({ at: 'out', path: q });
  const refName = p.targetRefName !== p.refName ? ['--ref-name', shellWord(`${p.refName}=${p.targetRefName}`)] : [];
  const which: Word[] = [
    '--repo', repo(''), '--packages', shellWord(`${p.name}/${p.version}`),
    ...(o.layout ? ['--layout', o.layout] : []),
    ...(o.packagesDir ? ['--packages-dir', shellWord(o.packagesDir)] : []),
    ...(o.releasedVersion ? ['--released-version', shellWord(o.releasedVersion)] : []),
  ];
  const steps: PlanStep[] = [];
  steps.push({
    words: ['devpkg', 'plan', ...which, '--registry', shellWord(o.registry), ...refName, ...(o.addonType ? ['--addon-type', shellWord(o.addonType)] : []), ...(p.push.kind === 'build' ? ['--build'] : []), '--out', out('')],
    why: 'writes the files and prints the commands that use them (with a new dev version)',
    writesPlan: true,
  });
  if (p.push.kind === 'as-is') {
    steps.push({ words: [`no push: the Package's own bundle ${p.push.image} is used as it is`], note: true });
  } else {
    const push = (from: PlanPath): PlanStep => ({ words: ['imgpkg', 'push', '-b', shellWord(p.tagImage), '-f', from, '--lock-output', out(files.lock)] });
    if (p.push.kind === 'folder') steps.push(push(repo(p.push.folder)));
    else if (o.build) steps.push(push(out(files.bundle)));
    else {
      steps.push({ words: [`the bundle is built ${p.push.what}; add --build to write it to`, out(files.bundle), 'and push it:'], note: true });
      steps.push({ ...push(out(files.bundle)), note: true });
    }
    steps.push({ words: ['to pin it by digest: bundle.image of', out(files.lock), 'is REPO@sha256:...; put it in spec.template.spec.fetch[0].imgpkgBundle.image of', out(files.devPackage)], note: true });
  }
  steps.push({ words: ['kubectl', 'apply', '--server-side', '-f', out(files.devPackage)], why: 'a running cluster: the dev Package beside the released one' });
  if (p.bootstrap) {
    steps.push({ words: ['devpkg', 'dev', '--package', repo(p.bootstrap.folder), '--registry', shellWord(o.registry), ...refName], why: 'or push, apply and verify on a running cluster in one step' });
    steps.push({ words: ['cp', out(files.overlay(p.overlayFile)), { at: 'home', path: `${PROVIDERS_CUSTOMIZATIONS}/${p.overlayFile}` }], why: 'bootstrap phases 2 and 3' });
    const clusterConfig = '"${CLUSTER_CONFIG:?your management cluster config file}"';
    steps.push({ words: ['SUPPRESS_PROVIDERS_UPDATE=1', 'tanzu', 'management-cluster', 'create', '-i', 'docker', '--file', clusterConfig], why: 'keeps the providers folder with the overlay', afterOut: true });
    steps.push({
      words: ['devpkg', 'bootstrap', '--package', repo(p.bootstrap.folder), '--registry', shellWord(o.registry), ...refName, '--cluster-config', clusterConfig],
      why: 'or all three phases (phase 1: the vendored bundle/config too), checked and verified',
    });
  } else {
    steps.push({ words: ['devpkg', 'kind', ...which, ...refName], why: 'a throwaway kind cluster: the released version, then this dev Package, verified' });
    steps.push({ words: ['no bootstrap lines: devpkg bootstrap (and devpkg dev) take a version folder with package.yaml and bundle/config (the tce layout); on a running cluster, the kubectl line above or the action\'s cluster mode'], note: true });
  }
  return steps;
}
