import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import { parseVersionFlag } from '../flags.js';
import { deriveDevPackage, devPackageToYaml } from '../packages/derive.js';
import { parsePackageFile, refNameProblem } from '../packages/model.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, DEV_PACKAGE_FLAGS, strings } from './options.js';

const USAGE = `Usage: devpkg derive --from FILE --image REF [--dev-version V] [--namespace NS] [--ref-name NAME] [--allow-tag]

Prints the dev Package made from a released Package: runtime and tool metadata removed,
metadata.name = refName.version, spec.version = V, the imgpkgBundle image = REF, and an
annotation devpkg.dev/derived-from naming the original.

  --from FILE        a package.yaml, or a Package read back with kubectl get package -o yaml
  --image REF        the pushed bundle, repo@sha256:<digest>
  --dev-version V    force the dev version; refused, as plan refuses it, when it does not outrank the
                     Package's own (default: planned above it, e.g. 1.5.4-dev.20260101120000 for 1.5.3)
  --namespace NS     metadata.namespace of the dev Package (default: the original's)
  --ref-name NAME    spec.refName of the dev Package, e.g. antrea.tanzu.vmware.com, or FROM=TO[,FROM=TO] mapping the original's (default: the original's)
  --allow-tag        accept --image repo:tag (the Package is then not pinned to one bundle)
  -h, --help         show this help
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('from', 'image', 'namespace'), ...DEV_PACKAGE_FLAGS, ...booleans('allow-tag') });
  if (!values) return 0;
  const from = requireFlag(values.from, '--from', 'derive');
  const image = requireFlag(values.image, '--image', 'derive');
  const forced = values['dev-version'] === undefined ? undefined : parseVersionFlag(values['dev-version'], '--dev-version');
  // A FROM=TO map too (as plan and a shared devpkg.yaml write it): the original's refName maps.
  const refMap = values['ref-name']?.includes('=') ? parseRefNameMap(values['ref-name']) : undefined;
  const refName = values['ref-name'] === undefined || refMap ? undefined : checkRefName(values['ref-name']);
  const text = await readText(path.resolve(io.cwd, from), from);
  const source = parsePackageFile(text, from);
  // Loaded lazily: the one planner (plan, dev, kind and bootstrap call it too), so a forced version
  // is refused here in the same words as there.
  const { ADDONS_MANAGER_SELECTION, planDev } = await import('../packages/devplan.js');
  const plan = planDev({
    name: source.pkg.spec.refName,
    released: source.pkg.spec.version,
    inPlay: [],
    selection: ADDONS_MANAGER_SELECTION,
    seq: { timestamp: new Date() },
    forced,
  });
  if (!forced) io.stderr(`devpkg derive: version ${plan.version} (${plan.reason})\n`);
  const derived = deriveDevPackage(source, {
    version: plan.version,
    image,
    namespace: values.namespace,
    refName: refMap ? targetRefName(refMap, source.pkg.spec.refName, 1) : refName,
    allowTag: values['allow-tag'] ?? false,
  });
  if (!derived.imagePinned) io.stderr(`devpkg derive: warning: ${image} is a tag; the dev Package is not pinned to one bundle\n`);
  io.stdout(devPackageToYaml(derived.pkg));
  return 0;
}

/** --ref-name of derive is one refName (no FROM=TO map), held to the one refName rule. */
function checkRefName(text: string): string {
  const problem = refNameProblem(text.trim());
  if (problem) throw new UsageError(`--ref-name: ${problem}`);
  return text.trim();
}

export async function readText(file: string, shown: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder; name its package.yaml' : (err as Error).message;
    throw new DevpkgError(`cannot read ${shown}: ${why}`, { exitCode: 2, cause: err });
  }
}
