import { DevpkgError } from '../errors.js';
import type { CliIO } from './io.js';

export async function run(_argv: string[], _io: CliIO): Promise<number> {
  throw new DevpkgError('devpkg detect is not available yet');
}
