/**
 * What the `field-charts` benchmark reads, written as Parquet by DuckDB in one statement each
 * (deterministic: every value a hash of the row number):
 * - a GWAS of `variants` rows: `chromosome` (1…22, X; as many variants per chromosome on
 *   average), `position` (uniform along GRCh38's chromosome lengths), `p` (uniform background)
 *   and `maf` (the filter); about 300 true peaks of 10 variants each, p from 1e-6 to 1e-16;
 * - `items` rows of 20 sets (`s01`…`s20`, 0/1, each less common than the one before, so that the
 *   intersections concentrate as real ones do), a `score` (the filter) and one column for each of
 *   the other new kinds (taxonomy levels, a chromosome, a position, a p value, a fold change, a mean,
 *   a sequencing depth, an alteration);
 * - a wide matrix of `features` rows × `samples` columns (`s001`…), each feature's spread its own
 *   (so the most variable are a real choice), and a `score` (the filter);
 * - coverage: depth at every position 1…`length` of `samples` samples (a slow wave per sample, a
 *   dropout and a peak), 6 M rows at 30 kb × 200.
 */
import type { DashboardFilter } from '@service/common';

const LENGTHS = [
  248956422, 242193529, 198295559, 190214555, 181538259, 170805979, 159345973, 145138636, 138394717, 133797422,
  135086622, 133275309, 114364328, 107043718, 101991189, 90338345, 83257441, 80373285, 58617616, 64444167, 46709983,
  50818468, 156040895,
];
const NAMES = [...Array.from({ length: 22 }, (_, i) => String(i + 1)), 'X'];
export const PEAKS = 300;
const PEAK_WIDTH = 10;
export const SETS = Array.from({ length: 20 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`);
export const GENOME_THRESHOLD = 5e-8;

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
const list = (values: readonly (string | number)[]) =>
  `[${values.map((value) => (typeof value === 'number' ? String(value) : quote(value))).join(', ')}]`;
/** A uniform double in [0, 1) from `key` and a salt. */
const uniform = (salt: number, key = 'i') => `((hash(${key}, ${salt}) % 1000000007) / 1000000007.0)`;

export function gwasSql(path: string, variants: number): string {
  const every = Math.max(PEAK_WIDTH * 2, Math.floor(variants / PEAKS));
  return `COPY (
  SELECT list_extract(${list(NAMES)}, "chr" + 1) AS chromosome,
    CAST(CASE WHEN "peak" THEN floor(${uniform(12, '"k"')} * (list_extract(${list(LENGTHS)}, "chr" + 1) - 1000000)) + ("i" % ${every}) * 50
      ELSE floor(${uniform(2)} * list_extract(${list(LENGTHS)}, "chr" + 1)) END AS BIGINT) AS position,
    CASE WHEN "peak" THEN pow(10, -(6 + 10 * ${uniform(3)})) ELSE greatest(${uniform(3)}, 1e-12) END AS p,
    0.01 + 0.49 * ${uniform(4)} AS maf
  FROM (SELECT i, i // ${every} AS "k", i % ${every} < ${PEAK_WIDTH} AS "peak",
    CAST(CASE WHEN i % ${every} < ${PEAK_WIDTH} THEN hash(i // ${every}, 11) % 23 ELSE hash(i, 1) % 23 END AS INTEGER) AS "chr"
    FROM range(${variants}) AS numbers(i))
) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`;
}

export function itemsSql(path: string, items: number): string {
  const sets = SETS.map((name, k) => `CAST(${uniform(100 + k)} < ${(0.4 / (1 + k)).toFixed(4)} AS INTEGER) AS ${name}`);
  return `COPY (
  SELECT i AS item, ${sets.join(', ')},
    ${uniform(5)} AS score,
    CASE WHEN ${uniform(6)} < 0.05 THEN 'Archaea' ELSE 'Bacteria' END AS kingdom,
    'Phylum_' || CAST(floor(40 * pow(${uniform(7)}, 2)) AS INTEGER) AS phylum,
    'Genus_' || CAST(floor(2000 * pow(${uniform(8)}, 3)) AS INTEGER) AS genus,
    list_extract(${list(NAMES)}, CAST(hash(i, 9) % 23 AS INTEGER) + 1) AS chromosome,
    CAST(floor(${uniform(13)} * 100000000) AS BIGINT) AS position,
    greatest(pow(${uniform(10)}, 3), 1e-300) AS p,
    (${uniform(11)} - 0.5) * 8 AS lfc,
    15 * ${uniform(14)} AS mean,
    1000 * (1 + i % 10) AS depth,
    list_extract(['missense', 'nonsense', 'frameshift', 'splice'], CAST(hash(i, 15) % 4 AS INTEGER) + 1) AS alteration
  FROM range(${items}) AS numbers(i)
) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`;
}

/** The matrix's sample columns: `s001`, `s002`, … */
export const sampleColumns = (samples: number) =>
  Array.from({ length: samples }, (_, j) => `s${String(j + 1).padStart(3, '0')}`);

export function matrixSql(path: string, features: number, samples: number): string {
  const columns = sampleColumns(samples).map(
    (name, j) => `round(exp(3 * ${uniform(20)}) * ${uniform(300 + j)}, 4) AS ${name}`,
  );
  return `COPY (
  SELECT 'F' || lpad(CAST(i AS VARCHAR), 5, '0') AS feature, ${uniform(21)} AS score, ${columns.join(', ')}
  FROM range(${features}) AS numbers(i)
) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd)`;
}

export function coverageSql(path: string, length: number, samples: number): string {
  return `COPY (
  SELECT 'S' || lpad(CAST(s AS VARCHAR), 3, '0') AS sample, p AS position,
    CASE WHEN p BETWEEN 12000 + s AND 12040 + s THEN 0
      WHEN p = 20000 + 7 * s THEN 400
      ELSE CAST(30 + 20 * sin(p / 900.0 + s) + 8 * ((hash(s, p) % 1000) / 1000.0) AS INTEGER) END AS depth
  FROM range(${samples}) AS a(s), range(1, ${length + 1}) AS b(p)
  ORDER BY s, p
) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`;
}

/** A Newick tree over the items' genera `Genus_0`…: balanced, each clade split in two halves. */
export function generaNewick(genera: number): string {
  const clade = (from: number, to: number): string => {
    if (to - from === 1) return `Genus_${from}:1`;
    const middle = Math.floor((from + to) / 2);
    return `(${clade(from, middle)},${clade(middle, to)}):1`;
  };
  return `${clade(0, genera).replace(/:1$/, '')};`;
}

const range = (id: string, column: string) => ({ component_id: id, type: 'interactive', widget: 'range', column });
const figure = (id: string, fields: Record<string, unknown>) => ({
  component_id: id,
  type: 'figure',
  title: id,
  ...fields,
});

export const gwasComponents = () => [
  figure('manhattan', { chart: 'manhattan', chromosome: 'chromosome', position: 'position', y: 'p' }),
  range('maf', 'maf'),
];

export const heatmapComponents = (samples: number) => [
  figure('heatmap', {
    chart: 'clustered_heatmap',
    row: 'feature',
    matrix_columns: sampleColumns(samples),
    scale: 'row',
    max_rows: 1000,
  }),
  range('score', 'score'),
];

export const coverageComponents = () => [
  figure('coverage', { chart: 'coverage', position: 'position', y: 'depth', color: 'sample' }),
  range('position', 'position'),
];

export const upsetComponents = () => [figure('upset', { chart: 'upset', sets: SETS }), range('score', 'score')];

/** One of each new kind on the items table, and the score filter. */
export const everyKindComponents = () => [
  figure('volcano', { chart: 'volcano', x: 'lfc', y: 'p' }),
  figure('ma', { chart: 'ma', x: 'mean', y: 'lfc', p: 'p' }),
  figure('manhattan', { chart: 'manhattan', chromosome: 'chromosome', position: 'position', y: 'p' }),
  figure('qq', { chart: 'qq', y: 'p' }),
  figure('sunburst', { chart: 'sunburst', levels: ['kingdom', 'phylum', 'genus'] }),
  figure('treemap', { chart: 'treemap', levels: ['phylum', 'genus'] }),
  figure('sankey', { chart: 'sankey', levels: ['kingdom', 'phylum', 'genus'] }),
  figure('upset', { chart: 'upset', sets: SETS }),
  figure('heatmap', { chart: 'clustered_heatmap', row: 'phylum', column: 'kingdom', value: 'lfc' }),
  figure('embedding', { chart: 'embedding', x: 'lfc', y: 'mean', color: 'kingdom' }),
  figure('rarefaction', { chart: 'rarefaction', x: 'depth', y: 'mean', color: 'kingdom' }),
  figure('oncoplot', { chart: 'oncoplot', x: 'phylum', y: 'genus', color: 'alteration' }),
  figure('coverage', { chart: 'coverage', position: 'position', y: 'mean', color: 'kingdom' }),
  figure('tree', { chart: 'tree', tip: 'genus', color: 'kingdom' }),
  figure('lollipop', { chart: 'lollipop', x: 'phylum', y: 'lfc' }),
  figure('diverging', { chart: 'diverging_bar', x: 'phylum', y: 'lfc' }),
  figure('dot', { chart: 'dot', x: 'kingdom', y: 'phylum', color: 'p' }),
  figure('stacked', { chart: 'stacked_bar', x: 'phylum', color: 'genus' }),
  figure('strip', { chart: 'strip', x: 'lfc', y: 'kingdom' }),
  figure('ecdf', { chart: 'ecdf', x: 'lfc', color: 'kingdom' }),
  figure('density', { chart: 'density_contour', x: 'lfc', y: 'mean' }),
  figure('funnel', { chart: 'funnel', x: 'phylum' }),
  range('score', 'score'),
];

/** Random `[low, high]` ranges on `id` within [min, max], the same every run. */
export function rangeWalk(id: string, min: number, max: number, seed: number): () => DashboardFilter[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return () => {
    const [a, b] = [next(), next()].sort((x, y) => x - y) as [number, number];
    const at = (u: number) => Number((min + (max - min) * u).toFixed(4));
    return [{ component_id: id, value: [at(a), at(Math.max(b, a + 0.05))] }];
  };
}
