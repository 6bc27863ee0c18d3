// The string literals of a TypeScript module that are exactly one of some names (pure, from the
// text): how test/unit/architecture.test.ts finds a layout named outside src/layouts/.
import ts from 'typescript';

export interface NamedLiteral {
  line: number;
  literal: string;
}

/** Whether a literal type is a property key handed to Pick/Omit (a field's name, not a value). */
function isKeyOfPickOrOmit(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isTypeReferenceNode(n)) return ['Pick', 'Omit'].includes(n.typeName.getText());
    if (!ts.isLiteralTypeNode(n) && !ts.isUnionTypeNode(n)) return false;
  }
  return false;
}

/**
 * Every string literal (quotes or a template without substitutions; values and literal types)
 * whose text is exactly one of `names`. Comments, longer strings and the keys given to Pick and
 * Omit do not count.
 */
export function namedLiterals(text: string, names: readonly string[], file = 'module.ts'): NamedLiteral[] {
  const wanted = new Set(names);
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: NamedLiteral[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && wanted.has(node.text) && !isKeyOfPickOrOmit(node)) {
      out.push({ line: src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1, literal: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}
