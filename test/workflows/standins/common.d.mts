// Types of common.mjs (plain JavaScript: act runs the stand-ins with Node and no build step).
export function inputVariable(name: string): string;
export function declaredInputs(actionDir: string): string[];
export function undeclaredInputs(env: Record<string, string | undefined>, declared: string[]): string[];
export function input(name: string): string;
export function booleanInput(name: string): boolean;
export function setOutput(name: string, value: string): void;
export function addPath(dir: string): void;
export function info(message: string): void;
export function runAction(metaUrl: string, what: string, fn: () => Promise<void>): Promise<void>;
export function runStore(repository: string, runId: string): string;
export function globRegExp(glob: string): RegExp;
export function badArtifactName(name: string): boolean;
