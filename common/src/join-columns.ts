import { z } from 'zod';

/**
 * A join's key columns (docs/project-yaml.md "Joins"): `on` when both collections name them alike,
 * or `left_on` with `right_on` when they do not (metadata `sample` and a table's `sample_id`),
 * matched in order. Shared by project.yaml, templates and `POST /projects/{id}/joins`.
 */

const joinColumnListSchema = z.array(z.string().min(1).max(200)).min(1).max(20);

export const joinColumnFields = {
  on: joinColumnListSchema.optional().describe('key columns both collections have, matched by name'),
  left_on: joinColumnListSchema
    .optional()
    .describe("the left collection's key columns, matched in order with right_on (instead of on)"),
  right_on: joinColumnListSchema
    .optional()
    .describe("the right collection's key columns, matched in order with left_on (instead of on)"),
};

export interface JoinColumns {
  on?: readonly string[] | undefined;
  left_on?: readonly string[] | undefined;
  right_on?: readonly string[] | undefined;
}

/** One key column of each side, left first: the same name twice for an `on` column. */
export type JoinColumnPair = readonly [left: string, right: string];

/** `on`, or `left_on` with `right_on` of one length: each problem at its field. */
export function checkJoinColumns(join: JoinColumns, context: z.RefinementCtx): void {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  const sided = join.left_on !== undefined || join.right_on !== undefined;
  if (join.on !== undefined && sided) issue('on', 'give either on, or left_on with right_on, not both');
  else if (join.on === undefined && !sided) issue('on', 'give the key columns: on, or left_on with right_on');
  else if (sided && join.left_on === undefined) issue('left_on', 'right_on needs left_on');
  else if (sided && join.right_on === undefined) issue('right_on', 'left_on needs right_on');
  else if (sided && join.left_on?.length !== join.right_on?.length)
    issue('right_on', `names ${join.right_on?.length} columns where left_on names ${join.left_on?.length}`);
}

/** The key columns as pairs (left, right), in order. */
export function joinColumnPairs(join: JoinColumns): JoinColumnPair[] {
  if (join.on !== undefined) return join.on.map((name) => [name, name] as const);
  const right = join.right_on ?? [];
  return (join.left_on ?? []).map((name, index) => [name, right[index] ?? name] as const);
}

/** Pairs written back as a join declares them: `on` when every pair names one column. */
export function joinColumnsOf(
  pairs: readonly JoinColumnPair[],
): { on: string[] } | { left_on: string[]; right_on: string[] } {
  if (pairs.every(([left, right]) => left === right)) return { on: pairs.map(([left]) => left) };
  return { left_on: pairs.map(([left]) => left), right_on: pairs.map(([, right]) => right) };
}
