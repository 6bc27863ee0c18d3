import { DevpkgError, UsageError } from '../errors.js';
import { selectVersion, type VersionSelection } from '../versions/select.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, strings } from './options.js';

const USAGE = `Usage: devpkg select --versions V1,V2,... [--constraints RANGE] [--prereleases | --prerelease-identifiers A,B] [--explain]

Prints the version kapp-controller (v0.30-v0.53) installs for a PackageInstall whose
versionSelection is given by the flags, out of the listed Package versions.

  --versions LIST                  comma-separated Package versions (spaces around commas are ignored)
  --constraints RANGE              versionSelection.constraints, e.g. ">=1.0.0 <2.0.0" or "1.2.x || >=2.0.0"
  --prereleases                    versionSelection.prereleases: {} (keep every prerelease)
  --prerelease-identifiers LIST    versionSelection.prereleases.identifiers (keep prereleases having one)
  --explain                        also print, on stderr, why each version was kept or dropped
  -h, --help                       show this help

Without --prereleases or --prerelease-identifiers prereleases are dropped, unless the constraints
are one exact prerelease version. Build metadata counts in ordering, identifier by identifier:
numbers by value, so 1.0.0+vmware.10 > 1.0.0+vmware.9, but any other identifier byte-wise, so
1.0.0+vmware.9-tkg.1 > 1.0.0+vmware.10-tkg.1 ("9-tkg" and "10-tkg" are not numbers).

Exit codes: 0 a version was selected, 1 none can be, 2 bad usage.
`;

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('versions', 'constraints', 'prerelease-identifiers'), ...booleans('prereleases', 'explain') });
  if (!values) return 0;
  const versions = splitList(requireFlag(values.versions, '--versions', 'select'));
  if (values.prereleases && values['prerelease-identifiers'] !== undefined) {
    throw new UsageError('give either --prereleases or --prerelease-identifiers, not both');
  }
  const selection: VersionSelection = {};
  if (values.constraints !== undefined) selection.constraints = values.constraints;
  if (values.prereleases) selection.prereleases = {};
  if (values['prerelease-identifiers'] !== undefined) {
    const identifiers = splitList(values['prerelease-identifiers']);
    if (identifiers.length === 0) throw new UsageError('--prerelease-identifiers: give at least one identifier (or use --prereleases)');
    selection.prereleases = { identifiers };
  }

  let result;
  try {
    result = selectVersion(versions, selection);
  } catch (err) {
    if (err instanceof DevpkgError) throw new UsageError(`--constraints: ${err.message}`);
    throw err;
  }
  const lines = result.considered.map((c) => `  ${c.version}: ${c.reason}`);
  if (result.selected === undefined) {
    io.stderr(`devpkg select: no version can be selected. ${result.message ?? ''}\n${lines.join('\n')}\n`);
    return 1;
  }
  io.stdout(`${result.selected}\n`);
  if (values.explain) io.stderr(`${lines.join('\n')}\n(details: ${result.details})\n`);
  return 0;
}
