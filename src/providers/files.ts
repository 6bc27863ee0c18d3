import { readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Every file under `dir`, relative to it and sorted: each entry that is not a folder (links
 * included, not followed). Folders whose name `skip` accepts are not entered. Empty when `dir`
 * does not exist.
 */
export async function listFiles(dir: string, skip: (folder: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? path.join(rel, e.name) : e.name;
      if (!e.isDirectory()) out.push(r);
      else if (!skip(e.name)) await walk(r);
    }
  };
  await walk('');
  return out.sort();
}
