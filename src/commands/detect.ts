import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseList } from '../flags.js';
import { DEFAULT_IGNORE, detectChanges, listAllVersions, type PackageVersionRef } from '../detect/index.js';
import { Git } from '../tools/git.js';
import { errorSummary, formatProblem } from '../packages/problems.js';
import { checkVersions } from '../pipeline/check.js';
import { commitTree, Layouts, parseLayoutChoice } from '../layouts/index.js';
import { parseCommand, requireFolder, type CliIO } from './io.js';
import { booleans, SELECTION_FLAGS, strings } from './options.js';

const USAGE = `Usage: devpkg detect --repo DIR (--base REF [--head REF] [--range] | --all) [flags]

Lists the package versions changed between two commits: version folders
(<packages-dir>/<name>/<version>/ holding a package.yaml at head) with a changed file.
A change to <name>/metadata.yaml alone marks the package's highest version. Deleted
version folders are listed as removed. In a shallow clone the history is deepened from
origin until the merge-base is found.

Flags:
  --repo DIR            repository root (default: current directory)
  --base REF            base commit, branch or tag (pull request base, or a push's "before")
  --head REF            head commit (default HEAD)
  --range               diff base..head directly (pushes) instead of merge-base(base, head)..head
  --all                 list every version folder at head instead of changes
  --packages-dir D      folder holding <name>/<version>/ (default addons/packages)
  --layout L            auto (default), tce, kctrl or repository (see README, "Layouts")
  --released-version V  kctrl layout: the released version (default: the highest matching git tag, else 0.0.0)
  --ignore GLOBS        globs of files that do not count, comma- or newline-separated (default **/*.md; "" for none)
  --json                print {"packages":[{name,version,path}],"removed":[...],"problems":[...]}
                        (+ "base","head","mergeBase" when comparing commits)
  -h, --help            show this help

Output: one name/version per line; removed versions as "- name/version (removed)".
Each listed package.yaml (at head) is checked as plan checks it; problems go to stderr
as path:line: severity: message. Exit 1 when a package.yaml cannot be used (the others
are still listed), 2 on bad usage.
`;

const strip = (r: PackageVersionRef): PackageVersionRef => ({ name: r.name, version: r.version, path: r.path });

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...SELECTION_FLAGS, ...strings('ignore'), ...booleans('range', 'json') });
  if (!values) return 0;
  if (values.all && values.base !== undefined) throw new UsageError('devpkg detect: --all and --base exclude each other');
  if (!values.all && !values.base) throw new UsageError('devpkg detect: --base REF or --all is required (see devpkg detect --help)');
  if (values.all && values.range) throw new UsageError('devpkg detect: --range needs --base, not --all');

  const repo = await requireFolder(resolve(io.cwd, values.repo ?? '.'), '--repo', 'repository folder');
  const packagesDir = values['packages-dir'] ?? 'addons/packages';
  const git = await Git.create(repo);
  const layouts = Layouts.open(parseLayoutChoice(values.layout ?? 'auto', '--layout'), { packagesDir, releasedVersion: values['released-version'] });

  let packages: PackageVersionRef[];
  let removed: PackageVersionRef[] = [];
  let extra: Record<string, string | undefined> = {};
  if (values.all) {
    packages = await listAllVersions({ git, packagesDir, layouts, ref: values.head ?? 'HEAD' });
  } else {
    const r = await detectChanges({
      git,
      packagesDir,
      layouts,
      base: values.base as string,
      head: values.head ?? 'HEAD',
      kind: values.range ? 'range' : 'pr',
      ignore: values.ignore === undefined ? DEFAULT_IGNORE : parseList(values.ignore),
      log: (m) => io.stderr(`devpkg detect: ${m}\n`),
    });
    packages = r.changed;
    removed = r.removed;
    extra = { base: r.base, head: r.head, mergeBase: r.mergeBase };
  }

  const problems = await checkVersions(layouts, packages, commitTree(git, values.head ?? 'HEAD'));
  if (values.json) {
    io.stdout(JSON.stringify({ packages: packages.map(strip), removed: removed.map(strip), problems, ...extra }, null, 2) + '\n');
  } else {
    const lines = [...packages.map((p) => `${p.name}/${p.version}`), ...removed.map((r) => `- ${r.name}/${r.version} (removed)`)];
    if (lines.length > 0) io.stdout(lines.join('\n') + '\n');
  }
  for (const p of problems) io.stderr(`devpkg detect: ${formatProblem(p)}\n`);
  const summary = errorSummary(problems);
  if (summary) {
    io.stderr(`devpkg detect: ${summary}\n`);
    return 1;
  }
  return 0;
}
