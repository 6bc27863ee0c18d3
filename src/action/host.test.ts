import * as core from '@actions/core';
import { jest } from '@jest/globals';
import { coreHost, properties } from './host.js';

/** What @actions/core writes to stdout for each call, as the runner reads it. */
function commands(fn: () => void): string[] {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split(/\r?\n/).filter(Boolean));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe('annotations as workflow commands', () => {
  test('properties keeps only what is set', () => {
    expect(properties()).toBeUndefined();
    expect(properties({})).toBeUndefined();
    expect(properties({ title: 'devpkg antrea' })).toEqual({ title: 'devpkg antrea' });
    expect(properties({ file: 'a/package.yaml', line: 3 })).toEqual({ file: 'a/package.yaml', startLine: 3 });
  });

  test('a warning without file or title is ::warning::message (no space)', () => {
    const host = coreHost(core);
    expect(commands(() => host.warning('registry is ignored'))).toEqual(['::warning::registry is ignored']);
    expect(commands(() => host.error('broken', {}))).toEqual(['::error::broken']);
    expect(commands(() => host.notice('hello'))).toEqual(['::notice::hello']);
  });

  test('a warning with a file, line and title carries them', () => {
    const host = coreHost(core);
    expect(commands(() => host.warning('bad version', { file: 'addons/packages/a/1.0.0/package.yaml', line: 4, title: 'devpkg a/1.0.0' }))).toEqual([
      '::warning title=devpkg a/1.0.0,file=addons/packages/a/1.0.0/package.yaml,line=4::bad version',
    ]);
  });
});
