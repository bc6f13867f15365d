import { RE2JS } from 're2js';
import { z } from 'zod';

/**
 * Derived columns (docs/project-yaml.md "Rules"): a column whose value is captured by a regular
 * expression from another column of the same row, computed by DuckDB when the table is built
 * (`regexp_extract`). Only the expression, as a string, reaches the engine, never any SQL: DuckDB
 * matches with RE2, so the expression is checked here in the RE2 dialect (re2js), at save time.
 */

/** At most this many derived columns per collection. */
export const DERIVED_COLUMNS_MAX = 20;

/** Why an expression cannot capture a derived column's value, or null when it can. */
export function derivedRegexProblem(source: string): string | null {
  // It reaches DuckDB as a string literal, which cannot hold one; RE2 writes it \x00.
  if (source.includes('\0')) return 'holds a NUL character: write it \\x00';
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `not a valid RE2 regular expression: ${message.replace(/^error parsing regexp: /, '')}`;
  }
  return compiled.groupCount() === 0 ? 'needs a capture group, e.g. "^habitat(.+)$": its match is the value' : null;
}

export const derivedColumnSchema = z.strictObject({
  name: z.string().min(1).max(200).describe('the new column (its values are strings)'),
  from: z.string().min(1).max(200).describe('the column of the file its value is read from'),
  regex: z
    .string()
    .min(1)
    .max(1000)
    .superRefine((source, context) => {
      const problem = derivedRegexProblem(source);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem });
    })
    .describe('RE2 regular expression: the first capture group is the value; no match gives null'),
});
export type DerivedColumn = z.infer<typeof derivedColumnSchema>;

export const derivedColumnsSchema = z
  .array(derivedColumnSchema)
  .max(DERIVED_COLUMNS_MAX)
  .superRefine((columns, context) => {
    const names = new Set<string>();
    columns.forEach((column, index) => {
      if (names.has(column.name))
        context.addIssue({ code: 'custom', path: [index, 'name'], message: 'another derived column has this name' });
      names.add(column.name);
    });
  })
  .describe('columns whose values are captured from another column of the same row');
