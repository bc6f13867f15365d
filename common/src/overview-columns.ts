import { IMAGE_COLUMNS } from './images.js';

/**
 * What each column of a table is to the generated overview (docs/dashboards.md "Overview
 * dashboards"): decided from the column statistics that DuckDB computes (`GET
 * /datacollections/{id}/summary`), never from the rows. Pure, unit-tested per table shape.
 */

/** One column's statistics, as the summary gives them (the fields the choice reads). */
export interface OverviewColumn {
  name: string;
  type: string;
  /** Distinct non-null values; null when unknown (map columns). */
  distinct: number | null;
  /** Non-null values (all rows when unknown). */
  count?: number;
  min?: unknown;
  max?: unknown;
  std?: number | null;
}

export type ColumnRole =
  /** Where a row came from (`_run_id`, `_file_id`) or an image's own fields: never charted. */
  | 'bookkeeping'
  /** A row's name (a sample id, an index): a join key and a filter, not a chart. */
  | 'id'
  /** Numbers worth a distribution. */
  | 'measure'
  /** Text (or booleans) of few values: bars and filters. */
  | 'category'
  /** A date or a timestamp of several values: a time series. */
  | 'time'
  | 'latitude'
  | 'longitude'
  /** Country codes or names: a choropleth. */
  | 'country'
  /** Constant, empty, near-unique text, nested: nothing to draw. */
  | 'none';

export const OVERVIEW_COLUMN_LIMITS = {
  /** A category has at most this many distinct values… */
  categories: 30,
  /** …and on average at least this many rows per value (an id column of a small table is none). */
  rowsPerCategory: 2,
  /** Text with more distinct values than this share of its values is near-unique. */
  nearUnique: 0.9,
} as const;

const BOOKKEEPING = new Set(['_run_id', '_file_id']);
/** An image collection's own columns (docs/dashboards.md "Images"): the gallery shows them. */
const OWN_IMAGE_COLUMNS: ReadonlySet<string> = new Set(Object.values(IMAGE_COLUMNS));
const NUMERIC_TYPE = /^(long|integer|short|byte|float|double|decimal)/;
const INTEGER_TYPE = /^(long|integer|short|byte)$/;
const TIME_TYPE = /^(date|timestamp)/;
const ID_NAME = /(^|[_\s.-])(id|ids|uuid|key|index|idx|accession)$|^(id|sample|samples|sample_name|name|barcode)$/i;
const SAMPLE_NAME =
  /^(sample|specimen|patient|subject|donor|individual|strain|isolate)(_?(name|label|code))?$|barcode|accession/i;
const LATITUDE = /^(lat|latitude)$|(^|_)(lat|latitude)$|latitude/i;
const LONGITUDE = /^(lon|lng|long|longitude)$|(^|_)(lon|lng|longitude)$|longitude/i;
const COUNTRY = /^(country|country_code|country_name|iso3|iso_a3|iso_3166|nation)$|(^|_)country$/i;

export const isNumericType = (type: string) => NUMERIC_TYPE.test(type);
export const isTextType = (type: string) => type === 'string';

const numberOf = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function within(column: OverviewColumn, low: number, high: number): boolean {
  const min = numberOf(column.min);
  const max = numberOf(column.max);
  return min !== null && max !== null && min >= low && max <= high;
}

/** An integer column whose values are 1…n (or 0…n−1) without repeats: a row number. */
function isRowNumber(column: OverviewColumn): boolean {
  const min = numberOf(column.min);
  const max = numberOf(column.max);
  const count = column.count ?? column.distinct ?? 0;
  return (
    INTEGER_TYPE.test(column.type) &&
    column.distinct !== null &&
    column.distinct === count &&
    count > 2 &&
    min !== null &&
    max !== null &&
    max - min + 1 === count
  );
}

/** The role of one column of a table of `rows` rows (`image`: an image collection's table). */
export function columnRole(column: OverviewColumn, rows: number, image = false): ColumnRole {
  if (BOOKKEEPING.has(column.name) || (image && OWN_IMAGE_COLUMNS.has(column.name))) return 'bookkeeping';
  const distinct = column.distinct;
  const count = column.count ?? rows;
  if (distinct === null || count === 0 || distinct === 0) return 'none';
  const nearUnique = distinct > OVERVIEW_COLUMN_LIMITS.nearUnique * count;
  if (isNumericType(column.type)) {
    if (LATITUDE.test(column.name) && within(column, -90, 90) && distinct > 1) return 'latitude';
    if (LONGITUDE.test(column.name) && within(column, -180, 180) && distinct > 1) return 'longitude';
    if (INTEGER_TYPE.test(column.type) && (isRowNumber(column) || (ID_NAME.test(column.name) && nearUnique)))
      return 'id';
    return distinct >= 2 && column.std !== 0 ? 'measure' : 'none';
  }
  if (TIME_TYPE.test(column.type)) return distinct >= 2 ? 'time' : 'none';
  if (column.type === 'boolean') return distinct === 2 ? 'category' : 'none';
  if (!isTextType(column.type)) return 'none';
  if (COUNTRY.test(column.name) && distinct >= 2) return 'country';
  if (ID_NAME.test(column.name) || SAMPLE_NAME.test(column.name)) return distinct >= 2 ? 'id' : 'none';
  if (nearUnique && count > 2) return distinct >= 2 ? 'id' : 'none';
  const few =
    distinct >= 2 &&
    distinct <= OVERVIEW_COLUMN_LIMITS.categories &&
    distinct * OVERVIEW_COLUMN_LIMITS.rowsPerCategory <= count;
  return few ? 'category' : 'none';
}

/** The columns of each role, in the table's order. */
export function columnsByRole(
  columns: readonly OverviewColumn[],
  rows: number,
  image = false,
): Record<ColumnRole, OverviewColumn[]> {
  const roles: Record<ColumnRole, OverviewColumn[]> = {
    bookkeeping: [],
    id: [],
    measure: [],
    category: [],
    time: [],
    latitude: [],
    longitude: [],
    country: [],
    none: [],
  };
  for (const column of columns) roles[columnRole(column, rows, image)].push(column);
  return roles;
}

/** The numeric columns whose pairwise correlations the server computes (at most `limit`). */
export function correlatedCandidates(columns: readonly OverviewColumn[], rows: number, limit = 8): string[] {
  return columnsByRole(columns, rows)
    .measure.slice(0, limit)
    .map((column) => column.name);
}

/**
 * Columns that may join collections: a row's name (`id`) shared by name with another collection.
 * The server reads a sample of each one's values to see whether they overlap (overview-joins.ts).
 */
export function keyCandidates(
  collections: readonly {
    data_collection_id: string;
    rows: number;
    image: boolean;
    columns: readonly OverviewColumn[];
  }[],
): { data_collection_id: string; column: string }[] {
  const keysOf = (collection: (typeof collections)[number]) =>
    collection.columns.filter((column) => {
      const role = columnRole(column, collection.rows, collection.image);
      // An image's named groups (`sample`) are few per table, yet they name what the images show.
      return role === 'id' || (collection.image && role === 'category' && SAMPLE_NAME.test(column.name));
    });
  const owners = new Map<string, string[]>();
  for (const collection of collections) {
    for (const column of keysOf(collection)) {
      owners.set(column.name, [...(owners.get(column.name) ?? []), collection.data_collection_id]);
    }
  }
  return [...owners.entries()]
    .filter(([, ids]) => ids.length > 1)
    .flatMap(([column, ids]) => ids.map((data_collection_id) => ({ data_collection_id, column })));
}
