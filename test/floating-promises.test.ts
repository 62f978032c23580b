// No promise in src/ is left floating (neither awaited, returned, stored nor
// passed on): such a call loses its errors and its ordering. The stores are
// moving to an async port, and a forgotten `await` type-checks whenever the
// result is unused. `void promise` marks one meant to run on its own.
import { expect, test } from 'bun:test';
import ts from 'typescript';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');

const configPath = ts.findConfigFile(ROOT, ts.sys.fileExists, 'tsconfig.json')!;
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const problems: string[] = [];

function isPromise(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isPromise);
  const symbol = type.getSymbol();
  return (
    symbol?.getName() === 'Promise' ||
    (symbol !== undefined && checker.getPropertyOfType(type, 'then') !== undefined && symbol.getName() !== 'Object')
  );
}

/** A promise, or an array of them. */
function holdsPromise(type: ts.Type): boolean {
  return isPromise(type) || isPromiseArray(type);
}

function isPromiseArray(type: ts.Type): boolean {
  if (!checker.isArrayType(type)) return false;
  const [element] = checker.getTypeArguments(type as ts.TypeReference);
  return element !== undefined && isPromise(element);
}

/** `p.catch(f)` and `p.then(f, g)` deal with the failure themselves. */
function handlesRejection(call: ts.CallExpression | ts.NewExpression): boolean {
  if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression)) return false;
  const name = call.expression.name.text;
  return name === 'catch' || (name === 'then' && call.arguments.length >= 2);
}

function report(node: ts.Node, file: ts.SourceFile, what: string): void {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  problems.push(`${file.fileName.replace(ROOT + '/', '')}:${line + 1}:${character + 1}: ${what}: ${node.getText(file).slice(0, 80)}`);
}

function visit(node: ts.Node, file: ts.SourceFile): void {
  if (ts.isExpressionStatement(node)) {
    let expr = node.expression;
    while (ts.isParenthesizedExpression(expr)) expr = expr.expression;
    const call = ts.isCallExpression(expr) || ts.isNewExpression(expr) ? expr : null;
    if (call && !handlesRejection(call) && isPromise(checker.getTypeAtLocation(call))) {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      problems.push(
        `${file.fileName.replace(ROOT + '/', '')}:${line + 1}:${character + 1}: promise not awaited: ${node.getText(file).slice(0, 80)}`,
      );
    }
  }
  // A promise handed where any value goes (`ok(promise)`, `{ ...promise }`) type-checks and answers `{}`.
  if (ts.isSpreadAssignment(node) && isPromise(checker.getTypeAtLocation(node.expression))) report(node, file, 'promise spread');
  // …or read as text, added, compared with a value, or negated (`${promise}` is "[object Promise]", `!promise` is false).
  const promiseAt = (e: ts.Expression) => isPromise(checker.getTypeAtLocation(e));
  const onlyPromise = (e: ts.Expression) => checker.getTypeAtLocation(e).getSymbol()?.getName() === 'Promise';
  if (ts.isTemplateSpan(node) && promiseAt(node.expression)) report(node.expression, file, 'promise used as a value');
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken && onlyPromise(node.operand))
    report(node.operand, file, 'promise used as a value');
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    const equality = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(op);
    if (op === ts.SyntaxKind.PlusToken || equality) {
      for (const [side, other] of [
        [node.left, node.right],
        [node.right, node.left],
      ] as const) {
        // Two promises compared is a question of identity: fine.
        if (equality ? onlyPromise(side) && !promiseAt(other) : promiseAt(side)) report(side, file, 'promise used as a value');
      }
    }
  }
  // …or kept in an object or array that goes out as data (`{ current: view() }`, `items.map(asyncView)`).
  if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
    const value = ts.isPropertyAssignment(node) ? node.initializer : node.name;
    // An object going where any value goes (a response body, an error's details) is data; without a
    // contextual type the object is the code's own (`{ finished: new Promise(…) }`).
    const outer = checker.getContextualType(node.parent as ts.ObjectLiteralExpression);
    const expected = outer && outer.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any) ? outer : checker.getContextualType(value);
    if (expected && holdsPromise(checker.getTypeAtLocation(value)) && !holdsPromise(expected))
      report(value, file, 'promise used as a value');
  }
  if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments) {
    for (const arg of node.arguments) {
      const expected = checker.getContextualType(arg);
      if (expected && expected.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any) && isPromiseArray(checker.getTypeAtLocation(arg)))
        report(arg, file, 'promises used as values');
    }
  }
  if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments) {
    for (const arg of node.arguments) {
      if (!(ts.isCallExpression(arg) || ts.isNewExpression(arg)) || !isPromise(checker.getTypeAtLocation(arg))) continue;
      const expected = checker.getContextualType(arg);
      if (expected && expected.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) report(arg, file, 'promise passed as a value');
    }
  }
  ts.forEachChild(node, (child) => visit(child, file));
}

test('every promise in src/ is awaited, returned, handled or marked void, never used as a value', () => {
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(ROOT + '/src/')) continue;
    visit(file, file);
  }
  expect(problems).toEqual([]);
}, 120_000);
