/**
 * The last check before a mode starts anything: every tool and daemon it needs, asked once, and
 * everything missing named in one message with how to get each. What devpkg installs itself
 * (pinned, checked, into the tool cache) is installed only when nothing else is missing, so a run
 * that cannot start downloads nothing.
 */
import { DevpkgError, errorMessage } from '../errors.js';
import type { InstallPolicy } from './toolcache.js';

export interface Need {
  /** What is needed, e.g. `docker`, `kind v0.33.0`, `imgpkg`. */
  what: string;
  /** Undefined when it is there (on PATH, in the tool cache, answering); else why not. */
  missing(): Promise<string | undefined>;
  /** Installs it (absent: devpkg cannot, e.g. a daemon). */
  install?: () => Promise<void>;
  /** How to get it by hand. */
  howTo: string;
}

/** The refusal listing every gap (pure). */
export function missingMessage(mode: string, gaps: ReadonlyArray<{ need: Need; why: string }>, policy: InstallPolicy): string {
  const lines = gaps.map(({ need, why }) => {
    const get = need.install && !policy.refuse ? `devpkg installs it (pinned, checksum-checked) once the rest is there; or ${need.howTo}` : need.howTo;
    return `- ${need.what}: ${why}; ${get}`;
  });
  return `mode ${mode} cannot start: ${gaps.length === 1 ? 'one thing is' : `${gaps.length} things are`} missing${policy.refuse ? ' (--no-install)' : ''}\n${lines.join('\n')}`;
}

/**
 * Asks every need; throws one DevpkgError naming all that are missing when any of them cannot be
 * installed (or installing is refused); else installs the missing ones, and throws one error
 * naming every install that failed.
 */
export async function checkNeeds(mode: string, needs: readonly Need[], policy: InstallPolicy = {}, log: (m: string) => void = () => undefined): Promise<void> {
  const gaps: Array<{ need: Need; why: string }> = [];
  for (const need of needs) {
    const why = await need.missing().catch((err: unknown) => errorMessage(err));
    if (why) gaps.push({ need, why });
  }
  if (gaps.length === 0) return;
  if (gaps.some((g) => !g.need.install || policy.refuse)) throw new DevpkgError(missingMessage(mode, gaps, policy));
  const failed: string[] = [];
  for (const { need, why } of gaps) {
    log(`${need.what}: ${why}; installing it`);
    try {
      await need.install!();
    } catch (err) {
      failed.push(`- ${need.what}: ${errorMessage(err)}; ${need.howTo}`);
    }
  }
  if (failed.length) throw new DevpkgError(`mode ${mode} cannot start: devpkg could not install what is missing\n${failed.join('\n')}`);
}
