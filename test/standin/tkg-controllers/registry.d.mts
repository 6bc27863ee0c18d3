// Types of registry.mjs, for the TypeScript tests that import it.
export function repositoryBase(repo: string, scheme?: string): string;
export function listTags(repo: string, scheme?: string): Promise<string[]>;
export function imageFile(repo: string, tag: string, scheme?: string): Promise<string>;
export function firstFile(tar: Buffer, what?: string): string;
export function tarOne(name: string, content: Buffer): Buffer;
export function pushFileImage(ref: string, fileName: string, text: string): Promise<string>;
