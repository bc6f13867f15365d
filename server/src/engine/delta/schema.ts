import { DeltaLogCorrupt } from './errors.js';

/**
 * A Delta table schema (the protocol's Spark-style JSON schema). Primitive types are their names:
 * `string`, `long`, `integer`, `short`, `byte`, `float`, `double`, `boolean`, `binary`, `date`,
 * `timestamp`, `timestamp_ntz`, `decimal(p,s)`, …
 */
export type DeltaType = string | StructType | ArrayType | MapType;

export interface StructType {
  type: 'struct';
  fields: StructField[];
}

export interface StructField {
  name: string;
  type: DeltaType;
  nullable: boolean;
  metadata: Record<string, unknown>;
}

export interface ArrayType {
  type: 'array';
  elementType: DeltaType;
  containsNull: boolean;
}

export interface MapType {
  type: 'map';
  keyType: DeltaType;
  valueType: DeltaType;
  valueContainsNull: boolean;
}

const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/;

/** Precision and scale of a `decimal(p,s)` type name (`decimal` alone is Spark's decimal(10,0)), or null. */
export function decimalParts(type: string): { precision: number; scale: number } | null {
  if (type === 'decimal') return { precision: 10, scale: 0 };
  const match = DECIMAL.exec(type);
  return match === null ? null : { precision: Number(match[1]), scale: Number(match[2]) };
}

export function parseSchemaString(schemaString: string): StructType {
  let json: unknown;
  try {
    json = JSON.parse(schemaString);
  } catch (error) {
    throw new DeltaLogCorrupt('metaData.schemaString is not JSON', { cause: error });
  }
  const type = parseType(json, 'schema');
  if (typeof type === 'string' || type.type !== 'struct') throw new DeltaLogCorrupt('the table schema is not a struct');
  return type;
}

export function serializeSchema(schema: StructType): string {
  return JSON.stringify(schema);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseType(json: unknown, where: string): DeltaType {
  if (typeof json === 'string') return json;
  if (!isObject(json)) throw new DeltaLogCorrupt(`schema type at ${where} is neither a name nor an object`);
  switch (json.type) {
    case 'struct': {
      if (!Array.isArray(json.fields)) throw new DeltaLogCorrupt(`struct at ${where} has no fields`);
      return { type: 'struct', fields: json.fields.map((field, index) => parseField(field, `${where}.${index}`)) };
    }
    case 'array':
      return {
        type: 'array',
        elementType: parseType(json.elementType, `${where}.element`),
        containsNull: json.containsNull !== false,
      };
    case 'map':
      return {
        type: 'map',
        keyType: parseType(json.keyType, `${where}.key`),
        valueType: parseType(json.valueType, `${where}.value`),
        valueContainsNull: json.valueContainsNull !== false,
      };
    default:
      if (typeof json.type === 'string') return json.type;
      throw new DeltaLogCorrupt(`unknown schema type at ${where}`);
  }
}

function parseField(json: unknown, where: string): StructField {
  if (!isObject(json) || typeof json.name !== 'string') throw new DeltaLogCorrupt(`schema field ${where} has no name`);
  return {
    name: json.name,
    type: parseType(json.type, `${where}(${json.name})`),
    nullable: json.nullable !== false,
    metadata: isObject(json.metadata) ? json.metadata : {},
  };
}

/** Every type in a type tree, depth first (for feature checks). */
export function* typesIn(type: DeltaType): Generator<DeltaType> {
  yield type;
  if (typeof type === 'string') return;
  if (type.type === 'struct') for (const field of type.fields) yield* typesIn(field.type);
  else if (type.type === 'array') yield* typesIn(type.elementType);
  else {
    yield* typesIn(type.keyType);
    yield* typesIn(type.valueType);
  }
}

/** Every field of a struct and of the structs nested in it, depth first. */
export function* fieldsIn(struct: StructType): Generator<StructField> {
  for (const field of struct.fields) {
    yield field;
    for (const type of typesIn(field.type)) {
      if (typeof type !== 'string' && type.type === 'struct') yield* type.fields;
    }
  }
}

/** Same types, ignoring nullability and metadata. */
export function sameType(a: DeltaType, b: DeltaType): boolean {
  if (typeof a === 'string' || typeof b === 'string') {
    if (typeof a !== 'string' || typeof b !== 'string') return false;
    const da = decimalParts(a);
    const db = decimalParts(b);
    if (da !== null || db !== null) return da?.precision === db?.precision && da?.scale === db?.scale;
    return a === b;
  }
  if (a.type === 'struct' && b.type === 'struct') {
    return (
      a.fields.length === b.fields.length &&
      a.fields.every(
        (field, index) => field.name === b.fields[index]!.name && sameType(field.type, b.fields[index]!.type),
      )
    );
  }
  if (a.type === 'array' && b.type === 'array') return sameType(a.elementType, b.elementType);
  if (a.type === 'map' && b.type === 'map') return sameType(a.keyType, b.keyType) && sameType(a.valueType, b.valueType);
  return false;
}

export function formatType(type: DeltaType): string {
  if (typeof type === 'string') return type;
  if (type.type === 'struct') return `struct<${type.fields.map((f) => `${f.name}:${formatType(f.type)}`).join(',')}>`;
  if (type.type === 'array') return `array<${formatType(type.elementType)}>`;
  return `map<${formatType(type.keyType)},${formatType(type.valueType)}>`;
}
