import {
  DEFAULT_CATEGORY_BUDGET,
  DEFAULT_ONCOPLOT_GENES,
  DEFAULT_POINT_BUDGET,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import type { SqlRow } from '../../engine/duckdb.js';
import { quoteString } from '../../engine/sql.js';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { doubleSql } from './field-points.js';
import { figureAnswer, numberRole, type Role, roleOf } from './figure-rows.js';
import { pca } from './pca.js';

/**
 * Embeddings with PCA computed on the server, rarefaction curves and oncoplots (docs/dashboards.md
 * "Clustered heatmaps, embeddings, rarefaction curves and oncoplots"). An embedding of given
 * coordinates is a scatter (figures.ts).
 */

/** Samples an oncoplot draws at most: the most altered. */
export const ONCOPLOT_SAMPLE_BUDGET = 1000;

const optional = (source: TableSnapshot, name: string | undefined, path: string): Column | null =>
  name === undefined ? null : columnOf(source, name, path);

const totalSql = ({ from, conditions }: NarrowedRows) => `(SELECT count(*) FROM ${from}${whereOf(conditions)})`;

/**
 * PCA of `pca_columns` over the rows where all are finite (beyond `max_points` of them, the same
 * hash sample every time; the components are then those of the sample): PC1 and PC2 as x and y
 * (and PC3 as z with `dimensions: 3`).
 */
export async function pcaEmbeddingData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const measures = (figure.pca_columns ?? []).map((name, index) => columnOf(source, name, `pca_columns[${index}]`));
  const color = optional(source, figure.color, 'color');
  const label = optional(source, figure.label, 'label');
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const values = measures.map((column, index) => `${doubleSql(column)} AS "m${index}"`);
  const complete = measures.map((column) => `${measuredSql(column)} IS NOT NULL`);
  const extra = [color && `${color.sql} AS "color"`, label && `${label.sql} AS "label"`].filter(Boolean);
  const found = await connection.query(
    `SELECT ${[...values, ...extra].join(', ')}, count(*) OVER () AS "complete", ${totalSql(rows)} AS "total" ` +
      `FROM ${from}${whereOf(conditions, complete)} ` +
      `ORDER BY hash(${measures.map((column) => column.sql).join(', ')}), ${measures.map((_, i) => i + 1).join(', ')} ` +
      `LIMIT ${budget}`,
    statement.params,
  );
  const matrix = found.map((row) => measures.map((_, index) => Number(row[`m${index}`])));
  const dimensions = figure.dimensions ?? 2;
  const { scores, explained } = pca(matrix, dimensions);
  const points = found.map((row, index) => {
    const [x, y, z] = scores[index] ?? [];
    return { ...row, x, y, ...(dimensions === 3 ? { z } : {}) };
  });
  const component = (name: string): Role => ({ name, type: 'double', column: null, output: 'plain' });
  const roles: Role[] = [
    component('x'),
    component('y'),
    ...(dimensions === 3 ? [component('z')] : []),
    ...(color === null ? [] : [roleOf('color', color)]),
    ...(label === null ? [] : [roleOf('label', label)]),
  ];
  const [first] = found;
  const total = first === undefined ? await countAll(rows, statement) : count(first.total);
  return {
    ...figureAnswer(roles, points, count(first?.complete) > budget, total),
    explained_variance: explained,
  };
}

async function countAll(rows: NarrowedRows, statement: Statement): Promise<number> {
  const [row = {}] = await rows.connection.query(`SELECT ${totalSql(rows)} AS "n"`, statement.params);
  return count(row.n);
}

/**
 * Mean of y per curve (`color`: a sample or a group; one curve without it) and x (the depth),
 * over every row there (the iterations, and a group's samples), with a band of ± one standard
 * deviation or min–max. The first `max_categories` curves by name are drawn.
 */
export async function rarefactionData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const x = columnOf(source, figure.x ?? '', 'x');
  const y = columnOf(source, figure.y ?? '', 'y');
  const color = optional(source, figure.color, 'color');
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const value = doubleSql(y);
  const band =
    figure.band === 'range'
      ? `min(${value}) AS "low", max(${value}) AS "high"`
      : `avg(${value}) - coalesce(stddev_samp(${value}), 0) AS "low", avg(${value}) + coalesce(stddev_samp(${value}), 0) AS "high"`;
  const curve = color === null ? 'NULL' : color.sql;
  const found = await connection.query(
    'SELECT * FROM (SELECT *, max("curve") OVER () AS "curves" FROM (' +
      `SELECT ${curve} AS "color", ${measuredSql(x)} AS "x", avg(${value}) AS "mean", ${band}, count(*) AS "n", ` +
      `dense_rank() OVER (ORDER BY ${curve} ASC NULLS LAST) AS "curve", ${totalSql(rows)} AS "total" ` +
      `FROM ${from}${whereOf(conditions, `${measuredSql(x)} IS NOT NULL`, `${value} IS NOT NULL`)} GROUP BY 1, 2)) ` +
      `WHERE "curve" <= ${budget} ORDER BY "curve", "x"`,
    statement.params,
  );
  const roles: Role[] = [
    ...(color === null ? [] : [roleOf('color', color)]),
    roleOf('x', x),
    numberRole('mean', y),
    numberRole('low', y),
    numberRole('high', y),
    numberRole('n', null, 'long'),
  ];
  const curves = count(found[0]?.curves);
  const total = found[0] === undefined ? await countAll(rows, statement) : count(found[0].total);
  return { ...figureAnswer(roles, found, curves > budget, total), total_curves: curves };
}

/**
 * An oncoplot: per sample (x) and gene (y) its alteration (`color`; `multiple` when a sample has
 * several kinds in a gene). The `max_categories` genes altered in most samples are drawn, over
 * every sample of the rows (unaltered ones too: rows with no alteration), at most
 * `ONCOPLOT_SAMPLE_BUDGET` of them, the most altered. Samples are sorted as oncoprints are: by
 * their alterations gene by gene, most altered gene first.
 */
export async function oncoplotData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const [x, y, color] = (['x', 'y', 'color'] as const).map((field) => columnOf(source, figure[field] ?? '', field));
  if (x === undefined || y === undefined || color === undefined) throw new Error('an oncoplot needs x, y and color');
  const text = (column: Column) => `CAST(${column.sql} AS VARCHAR)`;
  const cells =
    `SELECT ${text(x)} AS "x", ${text(y)} AS "y", CASE WHEN count(DISTINCT ${color.sql}) > 1 THEN 'multiple' ` +
    `ELSE ${text({ ...color, sql: `min(${color.sql})` })} END AS "color" FROM ${from}` +
    `${whereOf(
      conditions,
      [x, y, color].map((column) => `${column.sql} IS NOT NULL`),
    )} GROUP BY 1, 2`;
  const budget = figure.max_categories ?? DEFAULT_ONCOPLOT_GENES;
  const genes = await connection.query(
    `SELECT "y", count(*) AS "n", count(*) OVER () AS "genes" FROM (${cells}) GROUP BY 1 ` +
      `ORDER BY "n" DESC, "y" LIMIT ${budget}`,
    statement.params,
  );
  const geneNames = genes.map((gene) => String(gene.y));
  const kept = `"y" IN (${geneNames.length > 0 ? geneNames.map(quoteString).join(', ') : 'NULL'})`;
  const drawn = await connection.query(
    `WITH "cells" AS MATERIALIZED (SELECT * FROM (${cells}) WHERE ${kept}), "samples" AS (` +
      `SELECT DISTINCT ${text(x)} AS "x" FROM ${from}${whereOf(conditions, `${x.sql} IS NOT NULL`)}), ` +
      '"ranked" AS (SELECT "x", count("y") AS "n", count(*) OVER () AS "samples" FROM "samples" ' +
      `LEFT JOIN "cells" USING ("x") GROUP BY 1 ORDER BY "n" DESC, "x" LIMIT ${ONCOPLOT_SAMPLE_BUDGET}) ` +
      `SELECT "ranked".*, "y", "color", ${totalSql(rows)} AS "total" FROM "ranked" LEFT JOIN "cells" USING ("x")`,
    statement.params,
  );
  const samples = sortedSamples(drawn, geneNames);
  const position = new Map(samples.map((sample, at) => [sample.name, at]));
  const geneAt = new Map(geneNames.map((gene, at) => [gene, at]));
  const altered = drawn
    .filter((row) => row.y !== null)
    .sort(
      (a, b) =>
        (geneAt.get(String(a.y)) ?? 0) - (geneAt.get(String(b.y)) ?? 0) ||
        (position.get(String(a.x)) ?? 0) - (position.get(String(b.x)) ?? 0),
    );
  const roles = [roleOf('x', x), roleOf('y', y), { ...roleOf('color', color), type: 'string' }];
  const total = drawn[0] === undefined ? await countAll(rows, statement) : count(drawn[0].total);
  return {
    ...figureAnswer(roles, altered, count(drawn[0]?.samples) > samples.length, total),
    oncoplot: {
      genes: genes.map((gene) => ({ name: String(gene.y), count: count(gene.n) })),
      samples,
      total_genes: count(genes[0]?.genes),
    },
  };
}

/** Samples by their alterations in the genes' order (altered before not, gene by gene), then by name. */
function sortedSamples(drawn: readonly SqlRow[], genes: readonly string[]): { name: string; count: number }[] {
  const alteredIn = new Map<string, Set<string>>();
  for (const row of drawn) {
    const name = String(row.x);
    const set = alteredIn.get(name) ?? new Set<string>();
    if (row.y !== null) set.add(String(row.y));
    alteredIn.set(name, set);
  }
  const pattern = (name: string) => genes.map((gene) => (alteredIn.get(name)?.has(gene) ? '1' : '0')).join('');
  return [...alteredIn.keys()]
    .sort((a, b) => {
      const [pa, pb] = [pattern(a), pattern(b)];
      return pa === pb ? (a < b ? -1 : a > b ? 1 : 0) : pa > pb ? -1 : 1;
    })
    .map((name) => ({ name, count: alteredIn.get(name)?.size ?? 0 }));
}
