#!/usr/bin/env node
// Which server files name which database table in a Kysely call (issue 25: one owner per table).
// A query belongs to the table it reads from or writes to (`selectFrom`, `insertInto`, `updateTable`,
// `deleteFrom`…); it may join other tables to read their columns. `node scripts/table-queries.mjs`
// prints, per table, the files that query it and those that only join it; `--json` prints
// `{ table: { file: [method, …] } }` for the architecture test (server/test/architecture/).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repository = fileURLToPath(new URL('../', import.meta.url));
const SOURCES = 'server/src';
/** Migrations create and reshape every table: they are the one place exempt from ownership. */
const EXEMPT = 'server/src/db/migrations/';
/** The Kysely builder methods that start a query on the table their first argument names. */
export const QUERY_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
]);
/** The methods that add a table to a query someone else started. */
const TABLE_METHODS = new Set([
  ...QUERY_METHODS,
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
  'using',
]);

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The tables of the database, as `db/tables.ts` declares them in its `Tables` interface. */
function declaredTables() {
  const text = readFileSync(join(repository, SOURCES, 'db/tables.ts'), 'utf8');
  const body = /export interface Tables \{([^}]*)\}/.exec(text)?.[1] ?? '';
  return new Set([...body.matchAll(/^\s*(\w+):/gm)].map((match) => match[1]));
}

/** `'projects as p'` → `projects`; anything not a string literal (a subquery, a callback) names none. */
function tableNames(argument) {
  if (argument === undefined) return [];
  if (ts.isStringLiteralLike(argument)) return [argument.text.split(/\s+as\s+/i)[0].trim()];
  if (ts.isArrayLiteralExpression(argument)) return argument.elements.flatMap(tableNames);
  return [];
}

function tablesNamedIn(file, tables) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = new Map();
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      TABLE_METHODS.has(node.expression.name.text)
    ) {
      const method = node.expression.name.text;
      for (const name of tableNames(node.arguments[0])) {
        if (tables.has(name)) found.set(name, new Set([...(found.get(name) ?? []), method]));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `{ table: { file: [method, …] } }` for every declared table, files relative to the repository. */
export function tableQueries() {
  const tables = declaredTables();
  const byTable = Object.fromEntries([...tables].sort().map((table) => [table, {}]));
  for (const file of sourceFiles(join(repository, SOURCES)).sort()) {
    const path = relative(repository, file);
    if (path.startsWith(EXEMPT)) continue;
    for (const [table, methods] of tablesNamedIn(file, tables)) byTable[table][path] = [...methods].sort();
  }
  return byTable;
}

function report(byTable) {
  const querying = (files) => Object.keys(files).filter((file) => files[file].some((m) => QUERY_METHODS.has(m)));
  const rows = Object.entries(byTable).sort(([, a], [, b]) => querying(b).length - querying(a).length);
  for (const [table, files] of rows) {
    const joining = Object.keys(files).filter((file) => !querying(files).includes(file));
    const joins = joining.length === 0 ? '' : `  (joined in ${joining.join(' ')})`;
    console.log(`${String(querying(files).length).padStart(3)}  ${table}  ${querying(files).join(' ')}${joins}`);
  }
  const all = new Set(rows.flatMap(([, files]) => querying(files)));
  const shared = rows.filter(([, files]) => querying(files).length > 1).length;
  console.log(`\n${all.size} files query a table inline; ${shared} tables are queried in more than one file.`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--json')) console.log(JSON.stringify(tableQueries()));
  else report(tableQueries());
}
