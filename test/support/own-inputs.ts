// "Each input changes what the mode does": every input is run once with a changed value and
// compared with a control run of the same other inputs. Each control runs twice first (so a
// difference is the input's doing, not the run's noise), once per group of inputs that share
// their other inputs and settings. Used by test/unit/mode-own-inputs.test.ts (kind and cluster
// mode) and test/integration/bootstrap-own-inputs.test.ts.
import { expect } from '@jest/globals';

/** One input's case: its changed value, the other inputs it needs (`with`), what the change must show. */
export interface OwnInputCase {
  value: string;
  with?: Record<string, string>;
  shows?: RegExp;
}

/**
 * What is wrong, one line per input: `no change`, or `changed, but does not show <shows>`.
 * `does` runs the mode on the inputs with the case's settings (`settingsOf`: a stand-in on PATH,
 * a real push...) and returns what it did as one string. `checkControl` is called on each
 * control's first run (assert there that the control got as far as it should); `forShows` maps
 * what a changed run did before `shows` is tried on it.
 */
export async function inputsWithoutEffect<C extends OwnInputCase, S>(
  cases: Record<string, C>,
  settingsOf: (c: C) => S,
  does: (inputs: Record<string, string>, settings: S) => Promise<string>,
  o: { base?: Record<string, string>; checkControl?: (control: string) => void; forShows?: (after: string) => string } = {},
): Promise<string[]> {
  const controls = new Map<string, string>();
  const wrong: string[] = [];
  for (const [input, c] of Object.entries(cases)) {
    const settings = settingsOf(c);
    const inputs = { ...o.base, ...c.with };
    const key = JSON.stringify([c.with ?? {}, settings]);
    let control = controls.get(key);
    if (control === undefined) {
      control = await does(inputs, settings);
      o.checkControl?.(control);
      // The control: the same inputs do the same (so a difference is the input's doing).
      expect(await does(inputs, settings)).toBe(control);
      controls.set(key, control);
    }
    const after = await does({ ...inputs, [input]: c.value }, settings);
    if (after === control) wrong.push(`${input}: no change`);
    else if (c.shows && !c.shows.test(o.forShows ? o.forShows(after) : after)) wrong.push(`${input}: changed, but does not show ${c.shows}`);
  }
  return wrong;
}
