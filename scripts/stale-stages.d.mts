// Types of stale-stages.mjs, for the TypeScript tests that import it.
export function processAlive(pid: number): boolean;
export function staleStages(names: string[], out: string, self: number, alive?: (pid: number) => boolean): Array<{ name: string; pid: number }>;
export function removeStaleStages(out: string, self?: number, log?: (message: string) => void): string[];
