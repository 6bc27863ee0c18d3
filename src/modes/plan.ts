import { DevpkgError } from '../errors.js';
import type { ModeContext } from './types.js';

export async function run(_ctx: ModeContext): Promise<void> {
  throw new DevpkgError('mode "plan" is not available yet in this version of devpkg; use mode plan or detect');
}
