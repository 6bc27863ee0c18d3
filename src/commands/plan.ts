import path from 'node:path';
import { UsageError } from '../errors.js';
import { parseList, parsePackageList, parseRegistry, parseVersionFlag } from '../flags.js';
import { packageSummary, plan, renderPlanText, type Selection } from '../pipeline/plan.js';
import { errorSummary, formatProblem } from '../packages/problems.js';
import { parseCommand, requireFolder, type CliIO } from './io.js';
import { parseLayoutChoice } from '../layouts/index.js';
import { booleans, DEV_PACKAGE_FLAGS, SELECTION_FLAGS, strings } from './options.js';

export const USAGE = `Usage: devpkg plan --repo DIR (--base REF [--head REF] | --all | --packages NAME/VERSION,...) [flags]

What devpkg would push and apply for the changed package versions; needs no cluster.

  --repo DIR            the packages repository (default: .)
  --base REF            diff merge-base(REF, head)..head, as on a pull request
  --head REF            head of the diff (default: HEAD)
  --range               diff REF..head directly, as on a push
  --all                 every version folder
  --packages LIST       NAME/VERSION, comma- or newline-separated, instead of detection
  --packages-dir D      default: addons/packages
  --layout L            auto (default), tce, kctrl or repository (see README, "Layouts")
  --released-version V  kctrl layout: the released version (default: the highest matching git tag, else 0.0.0)
  --registry R          where dev bundles go (HOST[:PORT][/PATH])
  --ref-name MAP        FROM=TO[,FROM=TO] refName mapping, or a bare TO for one package
  --dev-version V       force the dev version
  --addon-type C/N      addon-type annotation of the overlay, e.g. cni/antrea
  --ignore GLOBS        changed files that do not count, comma- or newline-separated (default: **/*.md)
  --json                machine-readable output (packages, removed, problems)
  -h, --help            show this help

A package.yaml that disagrees with its folder or its own name is a warning (path:line);
one that cannot be used is an error of that package: the others are still planned, and
the command exits 1 at the end, naming each. Exit 2 on bad usage.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    ...SELECTION_FLAGS,
    ...strings('packages', 'registry', 'addon-type', 'ignore'),
    ...booleans('range', 'json'),
    ...DEV_PACKAGE_FLAGS,
  });
  if (!values) return 0;
  const chosen = [values.base !== undefined, values.all === true, values.packages !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('give exactly one of --base REF, --all or --packages LIST (see devpkg plan --help)');
  let selection: Selection;
  if (values.all) selection = { kind: 'all' };
  else if (values.packages !== undefined) selection = { kind: 'explicit', packages: parsePackageList(values.packages, '--packages') };
  else selection = { kind: 'diff', base: values.base!, head: values.head, rangeKind: values.range ? 'range' : 'pr' };
  // Flags are checked here, before any package is read: a bad flag is bad usage (exit 2), not a
  // problem of a package.yaml.
  const root = await requireFolder(path.resolve(io.cwd, values.repo ?? '.'), '--repo', 'repository folder');
  const registry = values.registry === undefined ? undefined : parseRegistry(values.registry, '--registry');
  const devVersion = values['dev-version'] === undefined ? undefined : parseVersionFlag(values['dev-version'], '--dev-version');
  const layout = parseLayoutChoice(values.layout ?? 'auto', '--layout');
  const out = await plan({
    root,
    packagesDir: values['packages-dir'] ?? 'addons/packages',
    layout,
    releasedVersion: values['released-version'] === undefined ? undefined : parseVersionFlag(values['released-version'], '--released-version'),
    selection,
    registry,
    refName: values['ref-name'] ?? '',
    seq: { timestamp: new Date() },
    devVersion,
    addonType: values['addon-type'],
    ignore: values.ignore === undefined ? undefined : parseList(values.ignore),
    log: (m) => io.stderr(`${m}\n`),
  });
  if (values.json) {
    const packages = out.packages.map((p) => packageSummary(p, true));
    io.stdout(JSON.stringify({ base: out.base, head: out.head, packages, removed: out.removed, problems: out.problems }, null, 2) + '\n');
    // The JSON holds the problems; stderr names them too, for people reading a terminal.
    for (const p of out.problems) io.stderr(`devpkg plan: ${formatProblem(p)}\n`);
  } else {
    io.stdout(renderPlanText(out));
  }
  const summary = errorSummary(out.problems);
  if (summary) {
    io.stderr(`devpkg plan: ${summary}\n`);
    return 1;
  }
  return 0;
}
