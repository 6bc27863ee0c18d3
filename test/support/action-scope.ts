// Tests that run the action in-process change process.env and process.exitCode and make temp
// folders: this puts all three back after each test (and removes the folders at the end).
import { rmSync } from 'node:fs';

/** Registers the hooks; returns the list to push temp folders onto. */
export function actionTestScope(): string[] {
  const dirs: string[] = [];
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    process.exitCode = 0;
  });
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return dirs;
}
