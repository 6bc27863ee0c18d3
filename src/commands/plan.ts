import path from 'node:path';
import { UsageError } from '../errors.js';
import { parseRegistry, parseVersionFlag } from '../flags.js';
import { packageSummary, plan, renderPlanText, type PlanOutput } from '../pipeline/plan.js';
import { DEFAULT_OUT } from '../pipeline/plan-commands.js';
import { checkOutDir, dropStage, finishPlanDir, stagePlanDir } from '../pipeline/plan-out.js';
import { errorSummary, formatProblem } from '../packages/problems.js';
import { parseCommand, type CliIO } from './io.js';
import { booleans, DEV_PACKAGE_FLAGS, LAYOUT_WORDS, SELECTION_FLAGS, strings } from './options.js';
import { openScope, scopedPlanRequest, selectionFromFlags } from './scope.js';

export const USAGE = `Usage: devpkg plan --repo DIR (--base REF [--head REF] | --all | --packages NAME/VERSION,...) [flags]

What devpkg would push and apply for the changed package versions; needs no cluster.

  --repo DIR            the packages repository: any folder of a git repository (default: .)
  --base REF            diff merge-base(REF, head)..head, as on a pull request
  --head REF            head of the diff, and the commit the packages are read from
                        (default: HEAD, read from the working tree)
  --range               diff REF..head directly, as on a push
  --all                 every version folder
  --packages LIST       NAME/VERSION, comma- or newline-separated, instead of detection
  --packages-dir D      default: addons/packages
  --layout L            ${LAYOUT_WORDS} (see README, "Layouts")
  --released-version V  kctrl layout: the released version (default: the highest matching git tag, else 0.0.0)
  --registry R          where dev bundles go (HOST[:PORT][/PATH])
  --ref-name MAP        FROM=TO[,FROM=TO] refName mapping, or a bare TO for one package
  --dev-version V       force the dev version
  --addon-type C/N      addon-type annotation of the overlay, e.g. cni/antrea
  --ignore GLOBS        changed files that do not count, comma- or newline-separated (default: **/*.md)
  --out DIR             write the files the commands name: per version, NAME/VERSION/dev-package.yaml,
                        the overlay (tce layout) and with --build the bundle; DIR must be new, empty
                        or an earlier plan's folder (it holds devpkg-plan.json), which is replaced
  --build               with --out: build the bundles kctrl package release would (needs ytt, and
                        kbld with useKbldImagesLock) into DIR/NAME/VERSION/bundle
  --json                machine-readable output (packages, removed, problems, out, files)
  -h, --help            show this help

Only the packages below --repo are read; every path is relative to it. The plan says which
tree it read, and when nothing changed, why: the range, the files changed and ignored, the
package folders in scope. A --layout or --packages-dir that finds no package is exit 1.

The commands name files relative to the current folder (absolute when outside it). Without
--out nothing is written, and each command that names a file of the plan's folder is printed
as a comment.

A package.yaml that disagrees with its folder or its own name is a warning (path:line);
one that cannot be used is an error of that package: the others are still planned, and
the command exits 1 at the end, naming each. Exit 2 on bad usage.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    ...SELECTION_FLAGS,
    ...strings('packages', 'registry', 'addon-type', 'ignore'),
    ...strings('out'),
    ...booleans('range', 'json', 'build'),
    ...DEV_PACKAGE_FLAGS,
  });
  if (!values) return 0;
  const selection = selectionFromFlags(values, 'devpkg plan', { packages: true });
  // Flags are checked here, before any package is read: a bad flag is bad usage (exit 2), not a
  // problem of a package.yaml.
  const scope = await openScope(values, io);
  const root = scope.repo.root;
  const registry = values.registry === undefined ? undefined : parseRegistry(values.registry, '--registry');
  const devVersion = values['dev-version'] === undefined ? undefined : parseVersionFlag(values['dev-version'], '--dev-version');
  if (values.build && values.out === undefined) throw new UsageError('--build needs --out DIR: the built bundles are written there');
  const outDir = values.out === undefined ? undefined : path.resolve(io.cwd, values.out);
  if (outDir !== undefined) await checkOutDir(outDir, root);
  // Everything is written beside DIR first and renamed into place at the end: a failure leaves nothing.
  const stage = outDir === undefined ? undefined : await stagePlanDir(outDir);
  let out: PlanOutput;
  let json: Record<string, unknown>;
  try {
    out = await plan({
      ...scopedPlanRequest(scope, selection, values, { log: (m) => io.stderr(`${m}\n`) }),
      registry,
      refName: values['ref-name'] ?? '',
      devVersion,
      addonType: values['addon-type'],
      place: { cwd: io.cwd, out: outDir ?? path.resolve(io.cwd, DEFAULT_OUT), written: outDir !== undefined, unwritten: 'comment' },
      build: values.build === true,
      ...(stage ? { buildInto: stage } : {}),
      env: io.env,
    });
    const packages = out.packages.map((p) => packageSummary(p, true, outDir));
    json = { base: out.base, head: out.head, out: outDir ?? null, packages, removed: out.removed, problems: out.problems, scope: out.scope };
    if (stage && outDir) await finishPlanDir(stage, outDir, out.packages, json);
  } catch (err) {
    if (stage) await dropStage(stage);
    throw err;
  }
  if (values.json) {
    io.stdout(JSON.stringify(json, null, 2) + '\n');
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
