import type { SqlColumn, SqlType } from '../engine/duckdb.js';

/** Integer and floating types by width: a narrower one widens into a wider one without loss. */
const NUMERIC_ORDER = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE'];

function typeName(type: SqlType): string {
  return type.kind === 'scalar' ? type.name : JSON.stringify(type);
}

/** The type both can be stored as without losing data, or null when there is none. */
export function widen(a: SqlType, b: SqlType): SqlType | null {
  if (typeName(a) === typeName(b)) return a;
  if (a.kind !== 'scalar' || b.kind !== 'scalar') return null;
  const ia = NUMERIC_ORDER.indexOf(a.name);
  const ib = NUMERIC_ORDER.indexOf(b.name);
  if (ia >= 0 && ib >= 0) {
    const widest = NUMERIC_ORDER[Math.max(ia, ib)] as string;
    // FLOAT holds integers only up to 2^24: mixing integers with FLOAT goes to DOUBLE.
    return { kind: 'scalar', name: widest === 'FLOAT' && Math.min(ia, ib) < 4 ? 'DOUBLE' : widest };
  }
  const times = ['DATE', 'TIMESTAMP', 'TIMESTAMP_TZ'];
  if (times.includes(a.name) && times.includes(b.name)) {
    // Naive timestamps are taken as UTC (as the Delta writer does), so the instant is kept.
    return { kind: 'scalar', name: a.name === 'TIMESTAMP' && b.name === 'TIMESTAMP' ? 'TIMESTAMP' : 'TIMESTAMP_TZ' };
  }
  return null;
}

export interface SchemaConflict {
  column: string;
  existing: string;
  incoming: string;
}

/**
 * Merges columns into a schema: new columns are appended, shared ones widened where that loses
 * nothing. A column whose types cannot be reconciled is a conflict, never silently converted.
 */
export function mergeColumns(
  base: SqlColumn[],
  incoming: SqlColumn[],
): { columns: SqlColumn[]; conflict?: SchemaConflict } {
  const columns = base.map((column) => ({ ...column }));
  for (const column of incoming) {
    const existing = columns.find((candidate) => candidate.name === column.name);
    if (!existing) {
      columns.push({ ...column });
      continue;
    }
    // A column that only ever held NULLs (read as VARCHAR or "NULL") takes the other's type.
    if (existing.type.kind === 'scalar' && existing.type.name === 'SQLNULL') {
      existing.type = column.type;
      continue;
    }
    if (column.type.kind === 'scalar' && column.type.name === 'SQLNULL') continue;
    const widened = widen(existing.type, column.type);
    if (widened === null) {
      return {
        columns,
        conflict: { column: column.name, existing: typeName(existing.type), incoming: typeName(column.type) },
      };
    }
    existing.type = widened;
  }
  return { columns };
}

export function sqlTypeText(type: SqlType): string {
  switch (type.kind) {
    case 'scalar':
      return type.name === 'TIMESTAMP_TZ' ? 'TIMESTAMPTZ' : type.name;
    case 'decimal':
      return `DECIMAL(${type.precision}, ${type.scale})`;
    case 'list':
      return `${sqlTypeText(type.element)}[]`;
    case 'struct':
      return `STRUCT(${type.fields.map((f) => `"${f.name.replaceAll('"', '""')}" ${sqlTypeText(f.type)}`).join(', ')})`;
    case 'map':
      return `MAP(${sqlTypeText(type.key)}, ${sqlTypeText(type.value)})`;
  }
}
