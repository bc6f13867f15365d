#!/usr/bin/env node
// The longest functions of the sources (issue 25: no function over ~80 lines). Prints the N longest
// (default 10) with their lines: `node scripts/function-lengths.mjs [N]`, or `npm run function-lengths`;
// `--json` prints every function as `[{ name, file, line, lines }]` for the architecture test
// (server/test/architecture/function-length.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repository = fileURLToPath(new URL('../', import.meta.url));
const FOLDERS = ['server/src', 'server/export-page', 'cli/src', 'common/src', 'web/src', 'bench/src'];

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A function's own name, if it has one: `Class.method`, `name`, or the variable it is bound to. */
function ownName(node) {
  const own = node.name?.getText?.();
  const owner = ts.isClassLike(node.parent) ? node.parent.name?.getText() : undefined;
  if (own !== undefined) return owner === undefined ? own : `${owner}.${own}`;
  if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return undefined;
}

/**
 * A function's name as a reader would look it up; a callback is named after the function it sits
 * in (`dataCollectionsRoutes > (anonymous)`), so that a name finds it again after lines move.
 */
function nameOf(node) {
  const own = ownName(node);
  if (own !== undefined) return own;
  for (let outer = node.parent; outer !== undefined; outer = outer.parent) {
    if (ts.isFunctionLike(outer) && ownName(outer) !== undefined) return `${nameOf(outer)} > (anonymous)`;
  }
  return '(anonymous)';
}

function functions(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: nameOf(node), file: relative(repository, file), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const all = FOLDERS.flatMap((folder) => sourceFiles(join(repository, folder)).flatMap(functions));
all.sort((a, b) => b.lines - a.lines);

function report(count) {
  for (const { name, file, line, lines } of all.slice(0, count))
    console.log(`${String(lines).padStart(4)}  ${name}  ${file}:${line}`);
  console.log(
    `\n${all.filter((f) => f.lines > 80).length} functions over 80 lines, ${all.filter((f) => f.lines > 100).length} over 100, of ${all.length}.`,
  );
}

if (process.argv.includes('--json')) console.log(JSON.stringify(all));
else report(Number(process.argv[2] ?? 10));
