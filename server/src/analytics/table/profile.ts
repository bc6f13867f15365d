import { isNumeric, type TableSnapshot } from '../sql/columns.js';
import { finiteOrNull } from '../sql/finite.js';
import type { TableReader } from '../sql/reader.js';

/**
 * What the generated overview reads of a table beyond its summary (docs/dashboards.md "Overview
 * dashboards"), computed in DuckDB in one scan: the Pearson correlation of each pair of the given
 * numeric columns, and a sample of the distinct values of each candidate join key (as text,
 * smallest first). Columns the table lacks, or that hold no numbers, are passed over.
 */
export async function profile(
  reader: TableReader,
  source: TableSnapshot,
  request: { correlate: readonly string[]; keys: readonly string[]; keySample: number },
): Promise<{ correlations: { x: string; y: string; r: number }[]; keys: Record<string, string[]> }> {
  const numeric = request.correlate.flatMap((name) => {
    const column = source.byName.get(name);
    return column !== undefined && isNumeric(column) ? [column] : [];
  });
  const keys = request.keys.flatMap((name) => {
    const column = source.byName.get(name);
    return column !== undefined && column.kind !== 'nested' ? [column] : [];
  });
  if (source.snapshot === null || (numeric.length < 2 && keys.length === 0)) return { correlations: [], keys: {} };
  const pairs = numeric.flatMap((x, i) => numeric.slice(i + 1).map((y) => [x, y] as const));
  // An aggregate query, so that the key samples (constant subqueries) come once.
  const selects = ['count(*) AS "rows"'];
  selects.push(
    ...pairs.map(([x, y], index) => {
      const a = finiteOrNull(`CAST(${x.sql} AS DOUBLE)`);
      const b = finiteOrNull(`CAST(${y.sql} AS DOUBLE)`);
      return `${finiteOrNull(`corr(${a}, ${b})`)} AS "r${index}"`;
    }),
  );
  keys.forEach((column, index) => {
    const text = `CAST(${column.sql} AS VARCHAR)`;
    selects.push(
      `(SELECT list(v ORDER BY v) FROM (SELECT DISTINCT ${text} AS v FROM __rows WHERE ${column.sql} IS NOT NULL ` +
        `ORDER BY v LIMIT ${Math.max(1, Math.floor(request.keySample))})) AS "k${index}"`,
    );
  });
  return reader.withRows(source, async (connection, from) => {
    const [row = {}] = await connection.query(
      `WITH __rows AS (SELECT * FROM ${from}) SELECT ${selects.join(', ')} FROM __rows`,
    );
    const correlations = pairs.flatMap(([x, y], index) => {
      const r = row[`r${index}`];
      return typeof r === 'number' && Number.isFinite(r) ? [{ x: x.name, y: y.name, r }] : [];
    });
    const sampled: Record<string, string[]> = {};
    keys.forEach((column, index) => {
      const values = row[`k${index}`];
      sampled[column.name] = Array.isArray(values)
        ? values.filter((value): value is string => typeof value === 'string')
        : [];
    });
    return { correlations, keys: sampled };
  });
}
