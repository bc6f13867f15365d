/**
 * Chromosomes in their natural order (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"):
 * 1, 2, … (numbers in numeric order), X, Y, MT, then other names alphabetically; `chr` prefixes
 * and case are ignored and `M` is `MT`. Shared by the Manhattan plot, the coverage track's contigs
 * and the genomic-interval filter a brush over them sets, so all three agree on the order.
 */

/**
 * Distinct chromosome names a figure lays out at most: each becomes a branch of the statement
 * that places its points, so a column of many names (a sample id chosen by mistake) is refused.
 */
export const MAX_CHROMOSOMES = 500;

/** A chromosome's name as drawn: without `chr`, upper case, `M` as `MT`. */
export const chromosomeNameSql = (value: string) =>
  `CASE WHEN upper(regexp_replace(trim(CAST(${value} AS VARCHAR)), '^chr', '', 'i')) = 'M' THEN 'MT' ` +
  `ELSE upper(regexp_replace(trim(CAST(${value} AS VARCHAR)), '^chr', '', 'i')) END`;

/** The same name as `chromosomeNameSql` makes of it, in JavaScript (a name a dashboard gives). */
export function drawnChromosomeName(value: string): string {
  const bare = value.trim().replace(/^chr/i, '').toUpperCase();
  return bare === 'M' ? 'MT' : bare;
}

/** Its place: numbers first in numeric order, then X, Y, MT, then the others (by name). */
export const chromosomeRankSql = (name: string) =>
  `CASE WHEN regexp_full_match(${name}, '[0-9]{1,9}') THEN CAST(${name} AS BIGINT) ` +
  `WHEN ${name} = 'X' THEN 1000000001 WHEN ${name} = 'Y' THEN 1000000002 WHEN ${name} = 'MT' THEN 1000000003 ` +
  'ELSE 1000000004 END';

/** `chromosomeRankSql` of a drawn name, in JavaScript. */
export function chromosomeRank(name: string): number {
  if (/^[0-9]{1,9}$/.test(name)) return Number(name);
  const named = ['X', 'Y', 'MT'].indexOf(name);
  return named >= 0 ? 1000000001 + named : 1000000004;
}

/** The message when a column holds more names than a figure lays out. */
export const tooManyChromosomes = (column: string) =>
  `${JSON.stringify(column)} has more than ${MAX_CHROMOSOMES} distinct names: choose the column naming the chromosome (or contig)`;

/**
 * `(name, position)` at or after `from` (`after: true`) or at or before it: compared by rank, then
 * name, then position, as the axis lays them out. `name` and `rank` are SQL of the row's drawn
 * name and its rank; `from` is bound as parameters (`bound`).
 */
export function genomicBoundSql(
  row: { name: string; rank: string; position: string },
  bound: { name: string; rank: string; position: string },
  after: boolean,
): string {
  const beyond = after ? '>' : '<';
  const within = after ? '>=' : '<=';
  return (
    `(${row.rank} ${beyond} ${bound.rank} OR (${row.rank} = ${bound.rank} AND (${row.name} ${beyond} ${bound.name} ` +
    `OR (${row.name} = ${bound.name} AND ${row.position} ${within} ${bound.position}))))`
  );
}
