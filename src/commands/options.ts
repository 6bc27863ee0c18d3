/**
 * The commands' flag tables, built from names (util.parseArgs wants `{ name: { type } }` per
 * flag), and the groups of flags that several commands share with one meaning. A command's
 * --help text still describes each flag in its own words.
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseWaits } from '../flags.js';
import { parseAssertions, type Assertion } from '../verify/assertions.js';
import { parseToolPin, withChecksumsFile, type Installable, type ToolPins } from '../tools/releases.js';
import { requireCreatableFolder, type CliIO } from './io.js';
import { LAYOUT_CHOICES } from '../layouts/index.js';

type Typed<N extends string, T extends 'string' | 'boolean'> = { [K in N]: { type: T } };

function typed<const N extends string, T extends 'string' | 'boolean'>(type: T, names: N[]): Typed<N, T> {
  return Object.fromEntries(names.map((n) => [n, { type }])) as Typed<N, T>;
}

/** Flags that take a value: `--name VALUE` or `--name=VALUE`. */
export const strings = <const N extends string>(...names: N[]): Typed<N, 'string'> => typed('string', names);

/** Flags that are on when given: `--name`. */
export const booleans = <const N extends string>(...names: N[]): Typed<N, 'boolean'> => typed('boolean', names);

/** Which package versions of a packages repository a run is about (plan, detect, kind). */
/** The --layout choices in words, for the usage texts (LAYOUT_CHOICES: one list). */
export const LAYOUT_WORDS = `auto (default), ${LAYOUT_CHOICES.filter((c) => c !== 'auto').join(', ')}`;

export const SELECTION_FLAGS = { ...strings('repo', 'base', 'head', 'packages-dir', 'layout', 'released-version'), ...booleans('all') };

/** How a dev Package is named and versioned (plan, dev, kind, bootstrap, derive). */
export const DEV_PACKAGE_FLAGS = strings('ref-name', 'dev-version');

/** How a bundle is pushed (push, dev, kind). */
export const PUSH_FLAGS = { ...strings('push-command', 'push-timeout'), ...booleans('lock-images') };

/**
 * The releases of the tools a command may install, each a version and (for one devpkg does not
 * pin) its sha256: --imgpkg-version/--imgpkg-sha256 (push, dev, kind, bootstrap), --kbld-* (with
 * --lock-images), --ytt-* (bootstrap). The action's inputs of the same names.
 */
export const IMGPKG_FLAGS = strings('imgpkg-version', 'imgpkg-sha256', 'tool-checksums');
export const KBLD_FLAGS = strings('kbld-version', 'kbld-sha256');
export const YTT_FLAGS = strings('ytt-version', 'ytt-sha256');

/**
 * The releases those flags ask for, checked (a usage error naming the flag), with the sums of a
 * --tool-checksums file (relative to the current folder); absent tools get the default.
 */
export async function toolPinsFlags(values: Record<string, unknown>, tools: readonly Installable[], io: CliIO): Promise<ToolPins> {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const pins: ToolPins = Object.fromEntries(tools.map((t) => [t, parseToolPin(t, text(`${t}-version`), text(`${t}-sha256`), 'flag')]));
  const checksums = text('tool-checksums');
  if (!checksums) return pins;
  return withChecksumsFile(pins, resolve(io.cwd, checksums), '--tool-checksums');
}

/** How long a verdict waits and how it is printed (verify, dev, kind, bootstrap). */
export const VERDICT_FLAGS = { ...strings('settle', 'timeout'), ...booleans('json') };

/** A verdict on a running cluster (verify, dev): the cluster, the assertions, where diagnostics go. */
export const CLUSTER_VERDICT_FLAGS = { ...VERDICT_FLAGS, ...strings('kubeconfig', 'assert', 'diagnostics') };

/**
 * Where `dev` and `verify` write diagnostics unless --diagnostics says: outside the work tree
 * (they have no results folder; the result printed names the folder).
 */
export const DEFAULT_DIAGNOSTICS_DIR = join(tmpdir(), 'devpkg-diagnostics');

/** What CLUSTER_VERDICT_FLAGS say, checked: a bad value is a usage error naming its flag. */
export async function clusterVerdictSettings(
  values: { settle?: string; timeout?: string; assert?: string; diagnostics?: string },
  io: CliIO,
): Promise<{ settleMs: number; timeoutMs: number; diagnosticsDir: string; assertions: Assertion[] }> {
  const { settleMs, timeoutMs } = parseWaits(values, { settle: '--settle', timeout: '--timeout' });
  const diagnosticsDir = await requireCreatableFolder(values.diagnostics === undefined ? DEFAULT_DIAGNOSTICS_DIR : resolve(io.cwd, values.diagnostics), '--diagnostics');
  const assertions = await assertionsFlag(values.assert, io);
  return { settleMs, timeoutMs, diagnosticsDir, assertions };
}

/** --assert FILE: the checks it lists (none without the flag). */
export async function assertionsFlag(file: string | undefined, io: CliIO): Promise<Assertion[]> {
  return file ? parseAssertions(await readFile(resolve(io.cwd, file), 'utf8')) : [];
}
