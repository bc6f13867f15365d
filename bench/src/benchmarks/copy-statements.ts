/**
 * Which of the statements a server ran (dashboard-target.ts) a DuckDB-alone baseline replays:
 * not those building a native copy, and the attaches of built copies once, untimed.
 */
import type { RecordedStatement } from './dashboard-target.js';

/** Statements that build, attach or drop a native copy: not part of answering a request. */
export const buildsCopy = (statement: RecordedStatement) =>
  /^(ATTACH|DETACH)\b/.test(statement.sql) || /^CREATE TABLE "native_\d+_build"/.test(statement.sql);

/**
 * The statements among `statements` that make a built native copy readable (the baseline runs
 * them once, untimed), but not those of a copy the same statements detach again: a copy replaced
 * by its clustered build is detached and its file removed, which the baseline cannot attach.
 */
export function copyAttaches(statements: readonly RecordedStatement[]): RecordedStatement[] {
  const aliasOf = (sql: string) => /^(?:ATTACH .* AS|DETACH) ("[^"]+")/.exec(sql)?.[1];
  const detached = new Set(statements.flatMap(({ sql }) => (sql.startsWith('DETACH ') ? [aliasOf(sql)] : [])));
  return statements.filter(({ sql }) => /^ATTACH .* \(READ_ONLY\)$/.test(sql) && !detached.has(aliasOf(sql)));
}
