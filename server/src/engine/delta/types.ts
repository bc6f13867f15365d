import type { SqlColumn, SqlType } from '../duckdb.js';
import { quoteIdentifier } from '../sql.js';
import { SchemaMismatch, UnsupportedTableFeature } from './errors.js';
import { type DeltaType, decimalParts, type StructField, type StructType } from './schema.js';

const PRIMITIVE_TO_SQL: Record<string, string> = {
  string: 'VARCHAR',
  long: 'BIGINT',
  integer: 'INTEGER',
  short: 'SMALLINT',
  byte: 'TINYINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  binary: 'BLOB',
  date: 'DATE',
  // A Delta timestamp is an instant (Parquet isAdjustedToUTC = true).
  timestamp: 'TIMESTAMPTZ',
};

/** The DuckDB type a Delta type reads as. */
export function sqlTypeOf(type: DeltaType): string {
  if (typeof type === 'string') {
    const primitive = PRIMITIVE_TO_SQL[type];
    if (primitive !== undefined) return primitive;
    const decimal = decimalParts(type);
    if (decimal !== null) return `DECIMAL(${decimal.precision}, ${decimal.scale})`;
    if (type === 'timestamp_ntz') {
      throw new UnsupportedTableFeature('timestampNtz', 'the table has a timestamp_ntz column (timestampNtz)');
    }
    if (type === 'variant') throw new UnsupportedTableFeature('variantType', 'the table has a variant column');
    throw new UnsupportedTableFeature(type, `the table has a column of unsupported type ${type}`);
  }
  if (type.type === 'struct') {
    return `STRUCT(${type.fields.map((field) => `${quoteIdentifier(field.name)} ${sqlTypeOf(field.type)}`).join(', ')})`;
  }
  if (type.type === 'array') return `${sqlTypeOf(type.elementType)}[]`;
  return `MAP(${sqlTypeOf(type.keyType)}, ${sqlTypeOf(type.valueType)})`;
}

const SCALAR_TO_DELTA: Record<string, string> = {
  BOOLEAN: 'boolean',
  TINYINT: 'byte',
  SMALLINT: 'short',
  INTEGER: 'integer',
  BIGINT: 'long',
  FLOAT: 'float',
  DOUBLE: 'double',
  VARCHAR: 'string',
  BLOB: 'binary',
  DATE: 'date',
  TIMESTAMP_TZ: 'timestamp',
};

/**
 * What a DuckDB type must be cast to before it can go into a Delta table (Delta has no unsigned,
 * 128-bit, time, interval, UUID or naive-timestamp types); null when it can go in as it is.
 */
function writableCast(type: SqlType): string | null {
  switch (type.kind) {
    case 'decimal':
      return null;
    case 'list': {
      const element = writableCast(type.element);
      return element === null ? null : `${element}[]`;
    }
    case 'map': {
      const key = writableCast(type.key);
      const value = writableCast(type.value);
      return key === null && value === null
        ? null
        : `MAP(${key ?? sqlTypeOf(deltaTypeOf(type.key))}, ${value ?? sqlTypeOf(deltaTypeOf(type.value))})`;
    }
    case 'struct': {
      const fields = type.fields.map((field) => writableCast(field.type));
      if (fields.every((cast) => cast === null)) return null;
      return `STRUCT(${type.fields
        .map((field, index) => `${quoteIdentifier(field.name)} ${fields[index] ?? sqlTypeOf(deltaTypeOf(field.type))}`)
        .join(', ')})`;
    }
    case 'scalar':
      switch (type.name) {
        case 'UTINYINT':
          return 'SMALLINT';
        case 'USMALLINT':
          return 'INTEGER';
        case 'UINTEGER':
          return 'BIGINT';
        case 'UBIGINT':
          return 'DECIMAL(20, 0)';
        case 'HUGEINT':
        case 'UHUGEINT':
        case 'BIGNUM':
          return 'DECIMAL(38, 0)';
        case 'TIMESTAMP':
        case 'TIMESTAMP_S':
        case 'TIMESTAMP_MS':
        case 'TIMESTAMP_NS':
          return 'TIMESTAMPTZ';
        default:
          return SCALAR_TO_DELTA[type.name] === undefined ? 'VARCHAR' : null;
      }
  }
}

/**
 * A select list that turns a relation with the given columns into one every column of which maps
 * to a Delta type (naive timestamps are taken as UTC; types Delta lacks become wider numbers or
 * text). Use it in the `COPY (SELECT … FROM x) TO 'file.parquet'` that writes data files.
 */
export function writableSelectList(columns: readonly SqlColumn[]): string {
  return columns
    .map((column) => {
      const cast = writableCast(column.type);
      const name = quoteIdentifier(column.name);
      return cast === null ? name : `CAST(${name} AS ${cast}) AS ${name}`;
    })
    .join(', ');
}

/** The Delta type of a DuckDB column type (after `writableSelectList`). */
export function deltaTypeOf(type: SqlType): DeltaType {
  switch (type.kind) {
    case 'decimal':
      if (type.precision > 38) throw new SchemaMismatch(`decimal precision ${type.precision} exceeds 38`);
      return `decimal(${type.precision},${type.scale})`;
    case 'list':
      return { type: 'array', elementType: deltaTypeOf(type.element), containsNull: true };
    case 'map':
      return {
        type: 'map',
        keyType: deltaTypeOf(type.key),
        valueType: deltaTypeOf(type.value),
        valueContainsNull: true,
      };
    case 'struct':
      return { type: 'struct', fields: type.fields.map(deltaField) };
    case 'scalar': {
      const name = SCALAR_TO_DELTA[type.name];
      if (name === undefined) {
        throw new SchemaMismatch(`DuckDB type ${type.name} has no Delta equivalent; cast it (see writableSelectList)`);
      }
      return name;
    }
  }
}

function deltaField(column: SqlColumn): StructField {
  return { name: column.name, type: deltaTypeOf(column.type), nullable: true, metadata: {} };
}

/** The Delta schema of a relation's columns. */
export function deltaSchemaOf(columns: readonly SqlColumn[]): StructType {
  return { type: 'struct', fields: columns.map(deltaField) };
}
