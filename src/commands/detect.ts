import type { PackageVersionRef } from '../detect/index.js';
import { errorSummary, formatProblem } from '../packages/problems.js';
import { nothingChanged, plan } from '../pipeline/plan.js';
import { parseCommand, type CliIO } from './io.js';
import { booleans, LAYOUT_WORDS, SELECTION_FLAGS, strings } from './options.js';
import { openScope, scopedPlanRequest, selectionFromFlags } from './scope.js';

const USAGE = `Usage: devpkg detect --repo DIR (--base REF [--head REF] [--range] | --all) [flags]

Lists the package versions changed between two commits: version folders
(<packages-dir>/<name>/<version>/ holding a package.yaml at head) with a changed file.
A change to <name>/metadata.yaml alone marks the package's highest version. Deleted
version folders are listed as removed. In a shallow clone the history is deepened from
origin until the merge-base is found.

Flags:
  --repo DIR            the packages repository: any folder of a git repository (default: .)
  --base REF            base commit, branch or tag (pull request base, or a push's "before")
  --head REF            head commit, read as it is there (default HEAD, read from the working tree)
  --range               diff base..head directly (pushes) instead of merge-base(base, head)..head
  --all                 list every package version of the working tree instead of changes
  --packages-dir D      folder holding <name>/<version>/ (default addons/packages)
  --layout L            ${LAYOUT_WORDS} (see README, "Layouts")
  --released-version V  kctrl layout: the released version (default: the highest matching git tag, else 0.0.0)
  --ignore GLOBS        globs of files that do not count, comma- or newline-separated (default **/*.md; "" for none)
  --json                print {"packages":[{name,version,path}],"removed":[...],"problems":[...],"scope":{...}}
                        (+ "base","head" when comparing commits)
  -h, --help            show this help

Output: one name/version per line; removed versions as "- name/version (removed)".
detect lists the package versions devpkg plan plans for the same flags, read from the same
tree (the --head commit when given, else the working tree) and checked as plan checks them;
problems go to stderr as path:line: severity: message. When nothing changed, stderr says
which range was diffed, how many files changed and were ignored, and which package folders
were in scope. Exit 1 when a package cannot be used (the others are still listed), or when
--layout or --packages-dir finds no package in the scope; 2 on bad usage.
`;

const strip = (r: PackageVersionRef): PackageVersionRef => ({ name: r.name, version: r.version, path: r.path });

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...SELECTION_FLAGS, ...strings('ignore'), ...booleans('range', 'json') });
  if (!values) return 0;
  const selection = selectionFromFlags(values, 'devpkg detect', { packages: false });
  const scope = await openScope(values, io);
  // The same request plan builds: the same packages, read and checked the same way.
  const out = await plan({ ...scopedPlanRequest(scope, selection, values, { log: (m) => io.stderr(`devpkg detect: ${m}\n`) }), mode: 'detect' });
  const packages = out.refs.map(strip);
  const removed = out.removed.map(strip);
  if (values.json) {
    io.stdout(JSON.stringify({ packages, removed, problems: out.problems, base: out.base, head: out.head, scope: out.scope }, null, 2) + '\n');
  } else {
    const lines = [...packages.map((p) => `${p.name}/${p.version}`), ...removed.map((r) => `- ${r.name}/${r.version} (removed)`)];
    if (lines.length > 0) io.stdout(lines.join('\n') + '\n');
  }
  if (packages.length === 0) for (const l of nothingChanged(out)) io.stderr(`devpkg detect: ${l.trim()}\n`);
  for (const p of out.problems) io.stderr(`devpkg detect: ${formatProblem(p)}\n`);
  const summary = errorSummary(out.problems);
  if (summary) {
    io.stderr(`devpkg detect: ${summary}\n`);
    return 1;
  }
  return 0;
}
