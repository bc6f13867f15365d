import type { FigureComponent } from '@service/common';
import { chromosomeNameSql, drawnChromosomeName, MAX_CHROMOSOMES, tooManyChromosomes } from '../sql/chromosomes.js';
import type { TableSnapshot } from '../sql/columns.js';
import type { TableReader } from '../sql/reader.js';
import type { FitProblem } from './fit.js';

/**
 * A column whose values a figure cannot draw (its type fits): the component answers this in its
 * slot (`unsuitable_column`, naming the field) and the rest of the dashboard still draws.
 */
export class UnsuitableData extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a figure's columns hold that it cannot draw, found by reading the table when the
 * dashboard is saved (its columns already fit: `fitProblems`): a chromosome column of more names
 * than a genome axis lays out; a coverage track's `contig` the column lacks. The same is the
 * component's error when the data changes later.
 */
export async function dataProblems(
  reader: TableReader,
  source: TableSnapshot,
  figure: FigureComponent,
): Promise<FitProblem[]> {
  const column = figure.chromosome === undefined ? undefined : source.byName.get(figure.chromosome);
  if (source.snapshot === null || column === undefined) return [];
  if (figure.chart !== 'manhattan' && figure.chart !== 'coverage') return [];
  const name = chromosomeNameSql(column.sql);
  const contig = figure.chart === 'coverage' ? figure.contig : undefined;
  const found = await reader.withRows(source, async (connection, from) => {
    const [row = {}] = await connection.query(
      `SELECT count(*) AS "names", count(*) FILTER (WHERE "name" = $1) AS "contig" FROM ` +
        `(SELECT DISTINCT ${name} AS "name" FROM ${from} WHERE ${column.sql} IS NOT NULL LIMIT ${MAX_CHROMOSOMES + 1})`,
      [drawnChromosomeName(contig ?? '')],
    );
    return { names: Number(row.names ?? 0), contig: Number(row.contig ?? 0) };
  });
  if (found.names > MAX_CHROMOSOMES) {
    return [{ code: 'unsuitable_column', field: 'chromosome', message: tooManyChromosomes(column.name) }];
  }
  if (contig !== undefined && found.contig === 0) {
    const message = `the table has no contig ${JSON.stringify(contig)} in ${column.name}`;
    return [{ code: 'unsuitable_column', field: 'contig', message }];
  }
  return [];
}
