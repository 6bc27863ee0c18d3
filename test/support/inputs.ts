/**
 * An InputSource over a record, standing in for @actions/core in tests that build a ModeContext
 * by hand. Booleans accept only what the stand-in needs (true, false); the action's own parsing
 * is @actions/core's, exercised in test/unit/action.test.ts.
 */
import type { InputSource } from '../../src/inputs.js';

export function inputsFrom(values: Record<string, string>): InputSource {
  const getInput = (name: string): string => (values[name] ?? '').trim();
  return {
    getInput,
    getBooleanInput: (name) => {
      const v = getInput(name);
      if (v !== 'true' && v !== 'false') throw new TypeError(`stand-in: ${name}="${v}" is not true or false`);
      return v === 'true';
    },
    getMultilineInput: (name) => getInput(name).split('\n').filter((l) => l !== '').map((l) => l.trim()),
  };
}
