import { DEFAULT_LEVEL_BUDGET, type FigureComponent, type FigureData, OTHER_LABEL } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { type Column, columnOf, count, jsonValue, outputOf, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { numberRole, type Role, roleOf } from './figure-rows.js';

/**
 * Sunburst, treemap and sankey (docs/dashboards.md "Sunburst, treemap, sankey and UpSet"): rows
 * grouped by an ordered list of columns, summing `value` (counting rows without it). Each level
 * keeps its `max_categories` largest values (by their total over the level) and folds the rest
 * into one "Other" per parent, so a long tail stays one node; the answer says how many were folded.
 */

type Row = Record<string, JsonValue | undefined>;
type Scalar = string | number | boolean | null;

interface Levels {
  columns: Column[];
  value: Column | null;
  budget: number;
}

function levelsOf(source: TableSnapshot, figure: FigureComponent): Levels {
  return {
    columns: (figure.levels ?? []).map((name, index) => columnOf(source, name, `levels[${index}]`)),
    value: figure.value === undefined ? null : columnOf(source, figure.value, 'value'),
    budget: figure.max_categories ?? DEFAULT_LEVEL_BUDGET,
  };
}

/**
 * `WITH` the rows as `"folded"` (`"l0"`, `"o0"`, … `"v"`, `"n"`: each level's value, null when
 * folded and then `"o<i>"` true; the sum of `value` and the count of rows) and `"r<i>"` (each
 * level's values ranked by their total). The rows are first grouped by their whole path
 * (`"paths"`): sums and counts add up, so ranking, folding and the totals read those groups, a few
 * thousand where the table has millions of rows. A sankey leaves nulls out of the ranking: they
 * are never drawn.
 */
function foldedSql(rows: NarrowedRows, levels: Levels, rankNulls: boolean): string {
  const { columns, value, budget } = levels;
  const v = value === null ? '1' : `CAST(${measuredSql(value)} AS DOUBLE)`;
  const names = columns.map((_, i) => `"l${i}"`);
  const paths =
    `SELECT ${columns.map((column, i) => `${column.sql} AS "l${i}"`).join(', ')}, sum(${v}) AS "v", count(*) AS "n" ` +
    `FROM ${rows.from}${whereOf(rows.conditions)} GROUP BY ${names.join(', ')}`;
  const ranks = columns.map(
    (_, i) =>
      `"r${i}" AS (SELECT "l${i}" AS "k", row_number() OVER (ORDER BY sum("v") DESC NULLS LAST, sum("n") DESC, ` +
      `"l${i}" NULLS LAST) AS "rank" FROM "paths"${rankNulls ? '' : ` WHERE "l${i}" IS NOT NULL`} GROUP BY "l${i}")`,
  );
  const select = columns.map(
    (_, i) =>
      `CASE WHEN "r${i}"."rank" > ${budget} THEN NULL ELSE "paths"."l${i}" END AS "l${i}", ` +
      `coalesce("r${i}"."rank" > ${budget}, false) AS "o${i}"`,
  );
  const joins = columns.map((_, i) => ` LEFT JOIN "r${i}" ON "paths"."l${i}" IS NOT DISTINCT FROM "r${i}"."k"`);
  return (
    `WITH "paths" AS (${paths}), ${ranks.join(', ')}, ` +
    `"folded" AS (SELECT ${select.join(', ')}, "paths"."v", "paths"."n" FROM "paths"${joins.join('')}) `
  );
}

/** The rows a `"folded"` group stands for. */
const ROWS_SQL = 'CAST(coalesce(sum("n"), 0) AS BIGINT)';

/** The values folded per level (those ranked beyond the budget), as a row `f0`, `f1`, …. */
const foldedCountsSql = (levels: Levels) =>
  `SELECT ${levels.columns.map((_, i) => `(SELECT count(*) FROM "r${i}" WHERE "rank" > ${levels.budget}) AS "f${i}"`).join(', ')}`;

function foldedOf(levels: Levels, row: Row | undefined): { level: number; values: number }[] {
  return levels.columns.flatMap((_, i) => {
    const values = count(row?.[`f${i}`]);
    return values > 0 ? [{ level: i, values }] : [];
  });
}

/** A level's value as it leaves: the table's, or "Other" when folded. */
function levelValue(levels: Levels, row: Row, i: number): Scalar {
  if (row[`o${i}`] === true) return OTHER_LABEL;
  const column = levels.columns[i];
  const value = jsonValue(row[`l${i}`], column === undefined ? 'plain' : outputOf(column.kind));
  // Levels are of simple types (fit.ts): never a list or map.
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
}

/** Every prefix of every row's path (GROUPING SETS: a parent is the sum of its children). */
export async function hierarchyData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const levels = levelsOf(source, figure);
  const n = levels.columns.length;
  const keys = levels.columns.map((_, i) => `"l${i}", "o${i}"`);
  const sets = keys.map((_, depth) => `(${keys.slice(0, depth + 1).join(', ')})`);
  const grouped = await rows.connection.query(
    `${foldedSql(rows, levels, true)}SELECT "g".*, "f".* FROM (SELECT ${keys.join(', ')}, ` +
      `CAST(coalesce(sum("v"), 0) AS DOUBLE) AS "value", ${ROWS_SQL} AS "n", ` +
      `${levels.columns.map((_, i) => `grouping("l${i}") AS "g${i}"`).join(', ')} FROM "folded" ` +
      `GROUP BY GROUPING SETS (${sets.join(', ')})) AS "g", (${foldedCountsSql(levels)}) AS "f"`,
    statement.params,
  );
  const nodes = grouped.map((row) => {
    const depth = levels.columns.filter((_, i) => count(row[`g${i}`]) === 0).length;
    const path = Array.from({ length: depth }, (_, i) => levelValue(levels, row, i));
    const other = Array.from({ length: depth }, (_, i) => row[`o${i}`] === true).some(Boolean);
    return { path, value: Number(row.value), rows: count(row.n), ...(other ? { other: true } : {}) };
  });
  // Each path written once: written in the comparison, 4,000 nodes took ~80 ms to sort.
  const written = new Map(nodes.map((node) => [node, JSON.stringify(node.path)]));
  nodes.sort(
    (a, b) =>
      a.path.length - b.path.length || b.value - a.value || compareKeys(written.get(a) ?? '', written.get(b) ?? ''),
  );
  const roles: Role[] = [
    ...levels.columns.map((column, i) => roleOf(`level_${i}`, column)),
    numberRole('value', levels.value),
  ];
  const leaves = nodes.filter((node) => node.path.length === n);
  const total = nodes.filter((node) => node.path.length === 1).reduce((sum, node) => sum + node.rows, 0);
  const folded = foldedOf(levels, grouped[0]);
  return {
    columns: roles.map(({ name, type, column }) => ({ name, type, column })),
    rows: leaves.map((leaf) => [...leaf.path, leaf.value]),
    sampled: folded.length > 0,
    total_rows: total,
    nodes: nodes.map(({ rows: _rows, ...node }) => node),
    ...(folded.length > 0 ? { folded } : {}),
  };
}

/**
 * The sankey's statement: each pair of successive levels (`level`: the first), its values (`"l<i>"`,
 * `"o<i>"` of the pair; the other levels null) and their `value`, largest first per pair; with the
 * rows (`n`) and the folded counts (`f<i>`) on every line.
 */
function sankeySql(rows: NarrowedRows, levels: Levels): string {
  const indices = levels.columns.map((_, i) => i);
  const pairs = indices.slice(1).map((i) => i - 1);
  const present = (i: number) => `("l${i}" IS NOT NULL OR "o${i}")`;
  const grouped = (i: number) => `grouping("l${i}") = 0`;
  const level = `CASE ${pairs.map((i) => `WHEN ${grouped(i)} AND ${grouped(i + 1)} THEN ${i}`).join(' ')} END`;
  const flows =
    `SELECT ${indices.map((i) => `"l${i}", "o${i}"`).join(', ')}, ${level} AS "level", ` +
    `CAST(coalesce(sum("v"), 0) AS DOUBLE) AS "value" FROM "folded" ` +
    `GROUP BY GROUPING SETS (${pairs.map((i) => `("l${i}", "o${i}", "l${i + 1}", "o${i + 1}")`).join(', ')}) ` +
    `HAVING ${pairs.map((i) => `(${grouped(i)} AND ${grouped(i + 1)} AND ${present(i)} AND ${present(i + 1)})`).join(' OR ')}`;
  const counts = `SELECT (SELECT ${ROWS_SQL} FROM "paths") AS "n", "c".* FROM (${foldedCountsSql(levels)}) AS "c"`;
  // Within a pair the other levels are null: ordering by every level orders by the pair's two.
  const order = ['"level"', '"value" DESC', ...indices.map((i) => `"l${i}"`)].join(', ');
  return `${foldedSql(rows, levels, false)}SELECT * FROM (${counts}) AS "f" LEFT JOIN (${flows}) AS "p" ON true ORDER BY ${order}`;
}

/** Paths (as JSON) in a stable order (nulls last) where values tie. */
const compareKeys = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);

/**
 * The flows between each pair of successive levels; rows with a null in either level are left out.
 * One statement: the pairs are grouping sets of the grouped paths, and the counts come on each line
 * (and on a line of their own when no flow is left), where a statement a pair read every row again.
 */
export async function sankeyData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const levels = levelsOf(source, figure);
  const answer = await rows.connection.query(sankeySql(rows, levels), statement.params);
  const links: NonNullable<FigureData['links']> = [];
  for (const flow of answer) {
    if (flow.level === null || flow.level === undefined) continue;
    const level = count(flow.level);
    const other = flow[`o${level}`] === true || flow[`o${level + 1}`] === true;
    links.push({
      level,
      from: levelValue(levels, flow, level),
      to: levelValue(levels, flow, level + 1),
      value: Number(flow.value),
      ...(other ? { other: true } : {}),
    });
  }
  const stats = answer[0] ?? {};
  const folded = foldedOf(levels, stats);
  const roles: Role[] = [
    numberRole('level', null, 'long'),
    { name: 'from', type: 'string', column: null, output: 'plain' },
    { name: 'to', type: 'string', column: null, output: 'plain' },
    numberRole('value', levels.value),
  ];
  return {
    columns: roles.map(({ name, type, column }) => ({ name, type, column })),
    rows: links.map((link) => [link.level, link.from, link.to, link.value]),
    sampled: folded.length > 0,
    total_rows: count(stats.n),
    links,
    ...(folded.length > 0 ? { folded } : {}),
  };
}
