import { parseAllDocuments, parseDocument } from 'yaml';
import { DevpkgError } from '../errors.js';
import { parsePackageDocs, parsePackageFile } from './model.js';
import { duplicateKey } from './yaml-keys.js';

const doc = (text: string) => parseDocument(text, { uniqueKeys: false });

describe('duplicateKey (linear; the yaml library is not asked)', () => {
  it('finds a repeated key of a nested map, at the repeated one', () => {
    const text = 'a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n';
    expect(duplicateKey(doc(text))).toEqual({ key: 'c', pos: text.indexOf('c: 3') });
  });

  it('reports the first repeat in document order, in whichever map it is', () => {
    const text = 'a:\n  x: 1\n  x: 2\nb: 1\na: 3\n';
    expect(duplicateKey(doc(text))?.pos).toBe(text.indexOf('x: 2'));
  });

  it('keeps keys of different maps and of different types apart', () => {
    expect(duplicateKey(doc('a:\n  k: 1\nb:\n  k: 1\nl:\n  - k: 1\n  - k: 2\n'))).toBeUndefined();
    expect(duplicateKey(doc('1: a\n"1": b\n'))).toBeUndefined();
  });

  it.each([
    ['a map used as a key', '? {a: 1, a: 2}\n: x\n', 'a: 2'],
    ['a map in a flow pair of a sequence', 'l: [k: {z: 1, z: 2}]\n', 'z: 2'],
    ['a map in a sequence of a sequence', 'l:\n- - m: 1\n    m: 2\n', 'm: 2'],
  ])('finds a repeat in %s', (_what, text, at) => {
    expect(duplicateKey(doc(text))?.pos).toBe(text.indexOf(at));
  });

  it('agrees with the library on where a repeat is', () => {
    const text = 'spec:\n  refName: a.b.c\n  version: 1.0.0\n  version: 1.0.1\n';
    const lib = parseAllDocuments(text, { uniqueKeys: true })[0]!.errors.find((e) => e.code === 'DUPLICATE_KEY');
    expect(duplicateKey(doc(text))?.pos).toBe(lib!.pos[0]);
  });

  it('is linear: twice the keys take about twice the steps (counted, not timed)', () => {
    // Counted through the key reads: a quadratic check would read the keys n^2/2 times.
    const map = (n: number) => `x:\n${Array.from({ length: n }, (_, i) => `  k${i}: ${i}\n`).join('')}  k0: again\n`;
    const reads = (n: number) => {
      const d = doc(map(n));
      let count = 0;
      const items = ((d.contents as unknown as { items: { value: { items: { key: object }[] } }[] }).items[0]!.value.items);
      for (const it of items) {
        const key = it.key as { value: unknown };
        const v = key.value;
        Object.defineProperty(key, 'value', { get: () => (count++, v) });
      }
      expect(duplicateKey(d)?.key).toBe('k0');
      return count;
    };
    const small = reads(1000);
    const big = reads(4000);
    expect(big).toBeLessThan(small * 4 * 1.5);
  });
});

describe('strict YAML of package files: a repeated key is still an error with its line', () => {
  const pkg = 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: a.b.c.1.0.0\nspec:\n  refName: a.b.c\n  version: 1.0.0\n  version: 1.0.1\n';
  it('parsePackageFile', () => {
    expect(() => parsePackageFile(pkg, 'p.yaml')).toThrow(DevpkgError);
    try {
      parsePackageFile(pkg, 'p.yaml');
    } catch (err) {
      expect((err as DevpkgError).message).toMatch(/DUPLICATE_KEY.*"version" is repeated/);
      expect((err as DevpkgError).line).toBe(8);
      expect((err as DevpkgError).file).toBe('p.yaml');
    }
  });
  it('parsePackageDocs (a package repository file), in a later document', () => {
    try {
      parsePackageDocs(`kind: PackageMetadata\n---\n${pkg}`, 'r.yml');
      throw new Error('not refused');
    } catch (err) {
      expect((err as DevpkgError).line).toBe(10);
    }
  });
});
