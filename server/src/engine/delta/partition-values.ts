import { quoteString } from '../sql.js';
import { DeltaLogCorrupt } from './errors.js';
import { type DeltaType, decimalParts } from './schema.js';
import { sqlTypeOf } from './types.js';

/**
 * A partition value as the log holds it: a string, or null. By the protocol an empty string is
 * null too, for every type; the four characters `null` are a string like any other.
 */
export function normalizePartitionValue(raw: string | null | undefined): string | null {
  return raw === undefined || raw === null || raw === '' ? null : raw;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|NaN|Infinity|-Infinity)$/;
const DATE = /^\d{4,}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4,}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/;

/** Checks that a serialized partition value fits its type, so a bad log fails with a clear message. */
function check(value: string, type: DeltaType, column: string): void {
  const fail = () => {
    throw new DeltaLogCorrupt(`partition value ${JSON.stringify(value)} of ${column} is not a valid ${String(type)}`);
  };
  if (typeof type !== 'string') throw new DeltaLogCorrupt(`partition column ${column} is not of a primitive type`);
  switch (type) {
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
      if (!INTEGER.test(value)) fail();
      return;
    case 'float':
    case 'double':
      if (!NUMBER.test(value)) fail();
      return;
    case 'boolean':
      if (!/^(true|false)$/i.test(value)) fail();
      return;
    case 'date':
      if (!DATE.test(value)) fail();
      return;
    case 'timestamp':
      if (!TIMESTAMP.test(value)) fail();
      return;
    default:
      if (decimalParts(type) !== null && !NUMBER.test(value)) fail();
  }
}

/**
 * A SQL expression of the partition column's type for a file's partition value. Timestamps
 * without a zone are read as UTC (the engine's session zone).
 */
export function partitionValueSql(raw: string | null | undefined, type: DeltaType, column: string): string {
  const sqlType = sqlTypeOf(type);
  const value = normalizePartitionValue(raw);
  if (value === null) return `CAST(NULL AS ${sqlType})`;
  check(value, type, column);
  if (type === 'string') return quoteString(value);
  if (type === 'binary') return `unhex(${quoteString(Buffer.from(value, 'utf8').toString('hex'))})`;
  return `CAST(${quoteString(value)} AS ${sqlType})`;
}
