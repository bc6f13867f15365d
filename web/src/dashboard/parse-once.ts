import type { z } from 'zod';

/** What one schema made of each answer object it was given (undefined: the answer is not of its shape). */
type Parses = WeakMap<object, { data: unknown } | undefined>;

const bySchema = new WeakMap<z.ZodType, Parses>();

/**
 * `value` read as `schema`'s shape, the same object each time for the same answer. A cell narrows
 * its answer on every render; a new object each time would make the chart build its option and
 * draw again whenever anything on the dashboard renders (each streamed line, a tab switch).
 */
export function parseOnce<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> | undefined {
  if (typeof value !== 'object' || value === null) {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  }
  let parses = bySchema.get(schema);
  if (parses === undefined) {
    parses = new WeakMap();
    bySchema.set(schema, parses);
  }
  if (!parses.has(value)) {
    const parsed = schema.safeParse(value);
    parses.set(value, parsed.success ? { data: parsed.data } : undefined);
  }
  return parses.get(value)?.data as z.output<Schema> | undefined;
}
