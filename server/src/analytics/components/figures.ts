import { DEFAULT_POINT_BUDGET, type FigureComponent, type FigureData, type TimeGrain } from '@service/common';
import type { Narrowing } from '../filters/narrowing.js';
import { type Column, columnOf, count, isNumeric, type TableSnapshot } from '../sql/columns.js';
import { measuredSql, placeableSql } from '../sql/finite.js';
import { firstByHash } from '../sql/hash-sample.js';
import { type NarrowedRows, scalarRow, whereOf, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';
import { heatmapData, histogramData, violinData } from './binning.js';
import { boxData } from './box.js';
import { categoryData } from './categories.js';
import { clusteredHeatmapData } from './clustered-heatmap.js';
import { coverageData } from './coverage.js';
import { maData, volcanoData } from './field-points.js';
import {
  axisOf,
  Bins,
  drawableSql,
  figureAnswer,
  figureColumns,
  numberOf,
  numberRole,
  type Role,
  renamed,
  roleOf,
  scatterCountSelects,
} from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions, isTemporal } from './fit.js';
import { manhattanData, qqData } from './genome.js';
import { hierarchyData, sankeyData } from './hierarchy.js';
import { choroplethData } from './maps.js';
import { pointMapData } from './point-maps.js';
import { dotData, funnelData, rankedEffectData, stackedBarData } from './ranked.js';
import { oncoplotData, pcaEmbeddingData, rarefactionData } from './sample-charts.js';
import { densityData, ecdfData, stripData } from './spreads.js';
import { grainSql, timeGrainOf } from './time-grain.js';
import { treeData } from './tree.js';
import { upsetData } from './upset.js';

/** How each chart kind computes its rows; a new chart kind adds its line here. */
type FigureDataOf = (
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
) => Promise<FigureData>;

const FIGURE_DATA: Record<FigureComponent['chart'], FigureDataOf> = {
  scatter: (rows, source, figure, statement) => scatterData(rows, source, figure, statement),
  line: lineData,
  area: lineData,
  bar: categoryData,
  pie: categoryData,
  histogram: histogramData,
  box: boxData,
  violin: violinData,
  heatmap: heatmapData,
  volcano: volcanoData,
  ma: maData,
  manhattan: manhattanData,
  qq: qqData,
  coverage: coverageData,
  sunburst: hierarchyData,
  treemap: hierarchyData,
  sankey: sankeyData,
  upset: upsetData,
  clustered_heatmap: clusteredHeatmapData,
  rarefaction: rarefactionData,
  oncoplot: oncoplotData,
  lollipop: rankedEffectData,
  diverging_bar: rankedEffectData,
  dot: dotData,
  stacked_bar: stackedBarData,
  funnel: funnelData,
  strip: stripData,
  ecdf: ecdfData,
  density_contour: densityData,
  // Given coordinates are a scatter's points (coloured by `color`); PCA is computed here.
  embedding: (rows, source, figure, statement) =>
    figure.pca_columns === undefined
      ? scatterData(
          rows,
          source,
          { ...figure, chart: 'scatter', size: undefined },
          statement,
          embeddingRoles(source, figure),
        )
      : pcaEmbeddingData(rows, source, figure, statement),
  tree: (rows, source, figure, statement, options) => treeData(rows, source, figure, statement, options.tree),
  choropleth: choroplethData,
  point_map: pointMapData,
};

/** A figure's rows, aggregated, binned or sampled in DuckDB, in the column roles of its chart. */
export function figureData(
  reader: TableReader,
  source: TableSnapshot,
  figure: FigureComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<FigureData> {
  const statement = new Statement();
  const compute = FIGURE_DATA[figure.chart];
  return withNarrowedRows(
    reader,
    source,
    narrowing,
    statement,
    (rows) => compute(rows, source, figure, statement, options),
    options.shared,
  );
}

/**
 * Points with both coordinates; beyond the point budget a uniform sample of them, the same one
 * every time for the same rows: the points whose hash of their values comes first (found among
 * the rows under a hash bound, so that only those are sorted).
 */
async function scatterData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  more: { z: Column | null; label: Column | null } = { z: null, label: null },
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const { x, y, color, size } = figureColumns(source, figure);
  if (x === null || y === null) throw new Error('a scatter needs x and y');
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const { z, label } = more;
  const shown = [
    { role: roleOf('x', x), column: x },
    { role: roleOf('y', y), column: y },
    ...(z === null ? [] : [{ role: roleOf('z', z), column: z }]),
    ...(color === null ? [] : [{ role: roleOf('color', color), column: color }]),
    ...(size === null ? [] : [{ role: roleOf('size', size), column: size }]),
    ...(label === null ? [] : [{ role: roleOf('label', label), column: label }]),
  ];
  // A 3-D embedding draws the points with all three coordinates.
  const drawable = z === null ? drawableSql(x, y) : `${drawableSql(x, y)} AND ${measuredSql(z)} IS NOT NULL`;
  const selects =
    z === null
      ? scatterCountSelects(source, figure)
      : { n: 'count(*)', drawable: `count(*) FILTER (WHERE ${drawable})` };
  const counts = await scalarRow(rows, statement.params, selects);
  const sampled = count(counts.drawable) > budget;
  // Coordinates are finite (drawable); a NaN or ±Infinity color or size is drawn as none.
  const select = shown.map(({ role, column }) => `${measuredSql(column)} AS "${role.name}"`).join(', ');
  const hash = `hash(${shown.map(({ column }) => column.sql).join(', ')})`;
  const order = sampled ? `${hash}, 1, 2` : '1, 2';
  const pointsUnder = (below: string[]) =>
    connection.query(
      `SELECT * FROM (SELECT ${select} FROM ${from}${whereOf(conditions, drawable, below)} ORDER BY ${order} ` +
        `LIMIT ${budget}) ORDER BY 1, 2`,
      statement.params,
    );
  // Sampled, only rows whose hash is under a bound are sorted (sql/hash-sample.ts).
  const points = sampled
    ? await firstByHash({ hash, budget, rows: count(counts.drawable) }, (under) =>
        pointsUnder(under === null ? [] : [under]),
      )
    : await pointsUnder([]);
  return figureAnswer(
    shown.map(({ role }) => role),
    points,
    sampled,
    count(counts.n),
  );
}

/** An embedding of given coordinates: its third coordinate and its points' ids, when it has them. */
function embeddingRoles(source: TableSnapshot, figure: FigureComponent): { z: Column | null; label: Column | null } {
  return {
    z: figure.z === undefined ? null : columnOf(source, figure.z, 'z'),
    label: figure.label === undefined ? null : columnOf(source, figure.label, 'label'),
  };
}

/**
 * `agg` of y per x (and color), ordered by x. A date or timestamp x is counted by its time grain
 * (time-grain.ts: the figure's, or one from the span). More distinct x than the point budget:
 * numeric and grainless temporal x fall into that many equal-width bins (x is each bin's low
 * edge), other x keep their first values in order; either way the answer says `sampled`.
 */
async function lineData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const { x, y, color } = figureColumns(source, figure);
  if (x === null) throw new Error('a line needs x');
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const agg = figure.agg ?? 'count';
  const approximate = agg === 'median' && approximateOver(source, options);
  const value = aggSql(agg, agg === 'count' ? null : y, undefined, approximate);
  const yRole = numberRole('y', agg === 'count' ? null : y, value.type);
  const colorRole = color === null ? [] : [roleOf('color', color)];
  const colorSql = color === null ? '' : `, ${color.sql} AS "color"`;
  let drawnX = x;
  let grain: TimeGrain | null = null;
  if (isNumeric(x) || isTemporal(x)) {
    const axis = axisOf(x);
    // Only to choose between binning and grouping: on big tables a HyperLogLog estimate will do.
    const distinct = approximateOver(source, options) ? `approx_count_distinct(${x.sql})` : `count(DISTINCT ${x.sql})`;
    const [stats = {}] = await connection.query(
      `SELECT count(*) AS "n", ${distinct} AS "distinct", min(${axis.value}) AS "low", ` +
        `max(${axis.value}) AS "high" FROM ${from}${whereOf(conditions)}`,
      statement.params,
    );
    const low = numberOf(stats.low);
    const high = numberOf(stats.high);
    grain = timeGrainOf(x, figure, low, high);
    if (grain !== null) drawnX = renamed(x, grainSql(x, grain));
    else if (count(stats.distinct) > budget && low !== null && high !== null) {
      const bins = new Bins(low, high, budget);
      const binned = await connection.query(
        `SELECT ${bins.indexSql(axis.value, (v) => statement.param(v))} AS "bin"${colorSql}, ${value.sql} AS "y" ` +
          `FROM ${from}${whereOf(conditions, `${axis.value} IS NOT NULL`)} GROUP BY ALL ORDER BY 1, 2 NULLS LAST`,
        statement.params,
      );
      const xRole: Role = { name: 'x', type: axis.type, column: x.name, output: 'plain' };
      const points = binned.map((row) => ({ ...row, x: axis.edge(bins.edges(Number(row.bin))[0]) }));
      return figureAnswer([xRole, ...colorRole, yRole], points, true, count(stats.n));
    }
  }
  const placeable = placeableSql(x) ?? [];
  const grouped = await connection.query(
    'SELECT * FROM (SELECT *, max("rank") OVER () AS "last", sum("n") OVER () AS "total" FROM (' +
      `SELECT ${drawnX.sql} AS "x"${colorSql}, ${value.sql} AS "y", count(*) AS "n", ` +
      `dense_rank() OVER (ORDER BY ${drawnX.sql} ASC NULLS LAST) AS "rank" FROM ${from}${whereOf(conditions, placeable)} ` +
      `GROUP BY ${color === null ? '1' : '1, 2'})) ` +
      `WHERE "rank" <= ${budget} ORDER BY "rank"${color === null ? '' : ', "color" ASC NULLS LAST'}`,
    statement.params,
  );
  const first = grouped[0];
  const answer = figureAnswer(
    [roleOf('x', x), ...colorRole, yRole],
    grouped,
    approximate || (first !== undefined && count(first.last) > budget),
    count(first?.total),
  );
  return grain === null ? answer : { ...answer, time_grain: grain };
}
