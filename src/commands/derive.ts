import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DevpkgError } from '../errors.js';
import { deriveDevPackage, devPackageToYaml } from '../packages/derive.js';
import { parsePackageFile } from '../packages/model.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, strings } from './options.js';

const USAGE = `Usage: devpkg derive --from FILE --image REF [--version V] [--namespace NS] [--ref-name NAME] [--allow-tag]

Prints the dev Package made from a released Package: runtime and tool metadata removed,
metadata.name = refName.version, spec.version = V, the imgpkgBundle image = REF, and an
annotation devpkg.dev/derived-from naming the original.

  --from FILE        a package.yaml, or a Package read back with kubectl get package -o yaml
  --image REF        the pushed bundle, repo@sha256:<digest>
  --version V        the dev version (default: planned above the Package's version, e.g. 1.5.3-dev.20260101120000)
  --namespace NS     metadata.namespace of the dev Package (default: the original's)
  --ref-name NAME    spec.refName of the dev Package, e.g. antrea.tanzu.vmware.com (default: the original's)
  --allow-tag        accept --image repo:tag (the Package is then not pinned to one bundle)
  -h, --help         show this help
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('from', 'image', 'version', 'namespace', 'ref-name'), ...booleans('allow-tag') });
  if (!values) return 0;
  const from = requireFlag(values.from, '--from', 'derive');
  const image = requireFlag(values.image, '--image', 'derive');
  const text = await readText(path.resolve(io.cwd, from), from);
  const source = parsePackageFile(text, from);
  let version = values.version;
  if (version === undefined) {
    // Loaded lazily: only this branch needs the version planner.
    const { planDevVersion } = await import('../versions/index.js');
    const plan = planDevVersion({
      versions: [source.pkg.spec.version],
      selection: { prereleases: {} },
      base: source.pkg.spec.version,
      seq: { timestamp: new Date() },
    });
    version = plan.version;
    io.stderr(`devpkg derive: version ${version} (${plan.reason})\n`);
  }
  const derived = deriveDevPackage(source, {
    version,
    image,
    namespace: values.namespace,
    refName: values['ref-name'],
    allowTag: values['allow-tag'] ?? false,
  });
  if (!derived.imagePinned) io.stderr(`devpkg derive: warning: ${image} is a tag; the dev Package is not pinned to one bundle\n`);
  io.stdout(devPackageToYaml(derived.pkg));
  return 0;
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
