import { z } from 'zod';
import { columnNameSchema } from './queries.js';
import { timeGrainSchema } from './time-grain.js';

/**
 * What a card shows beyond its one number (docs/dashboards.md "Cards"): more aggregates, a
 * comparison, colour thresholds, a sparkline, a gauge and a number format. Kept apart from
 * dashboard-components.ts, which spreads these fields into the card's schema.
 */

/** The figures' aggregates, and those only a card computes (one number needs no axis). */
export const CARD_AGGS = [
  'count',
  'sum',
  'mean',
  'median',
  'min',
  'max',
  'count_distinct',
  /** Alias of `count_distinct`, as pandas names it. */
  'nunique',
  /** Sample standard deviation and variance (n − 1), as pandas computes them. */
  'std',
  'variance',
  /** The `p`-th percentile (0–100), interpolated between the two nearest values. */
  'percentile',
  /** The value of the row with the lowest (`first`) or highest (`last`) `order_by`. */
  'first',
  'last',
  /** The most frequent value (the smallest of equally frequent ones). */
  'mode',
  /** max − min. */
  'range',
] as const;
export const cardAggSchema = z.enum(CARD_AGGS);
export type CardAgg = z.infer<typeof cardAggSchema>;

/** Aggregates whose number counts something: written as whole numbers. */
export const COUNTING_AGGS: readonly CardAgg[] = ['count', 'count_distinct', 'nunique'];

/** Versions a sparkline over the table's versions draws when `count` is not given. */
export const DEFAULT_SPARKLINE_VERSIONS = 12;
/** Points a sparkline over a date column draws at most: the grain is the finest that keeps within it. */
export const MAX_SPARKLINE_POINTS = 60;

/** Colours a threshold may paint a card's number with (the app's palette names them). */
export const CARD_COLORS = ['red', 'orange', 'yellow', 'green', 'teal', 'blue', 'violet', 'gray'] as const;
export type CardColor = (typeof CARD_COLORS)[number];

export const THRESHOLD_OPERATORS = ['<', '<=', '>', '>=', '='] as const;
export type ThresholdOperator = (typeof THRESHOLD_OPERATORS)[number];

/** `< 0.9 red`: the first rule that holds colours the number. */
export const cardThresholdSchema = z.strictObject({
  op: z.enum(THRESHOLD_OPERATORS),
  value: z.number(),
  color: z.enum(CARD_COLORS),
});
export type CardThreshold = z.infer<typeof cardThresholdSchema>;

/** Against what the number's change is shown: the table's previous version, or a fixed value. */
export const cardComparisonSchema = z.discriminatedUnion('against', [
  z.strictObject({
    against: z.literal('previous_version'),
    /** Whether a rise is good news (green) or bad (red); default `higher`. */
    better: z.enum(['higher', 'lower']).optional(),
  }),
  z.strictObject({
    against: z.literal('reference'),
    value: z.number(),
    /** What the reference is ("target", "last year"). */
    label: z.string().max(60).optional(),
    better: z.enum(['higher', 'lower']).optional(),
  }),
]);
export type CardComparison = z.infer<typeof cardComparisonSchema>;

/** The number across the table's last versions, or per period of a date column. */
export const cardSparklineSchema = z.discriminatedUnion('over', [
  z.strictObject({ over: z.literal('versions'), count: z.number().int().min(2).max(30).optional() }),
  z.strictObject({ over: z.literal('column'), column: columnNameSchema, grain: timeGrainSchema.optional() }),
]);
export type CardSparkline = z.infer<typeof cardSparklineSchema>;

/** How the number is written: `percent` multiplies a fraction by 100; `si` writes 12.3k, 4.5M. */
export const cardFormatSchema = z.strictObject({
  decimals: z.number().int().min(0).max(10).optional(),
  style: z.enum(['number', 'percent', 'si']).optional(),
  /** Written after the number ("g", "reads"); `%` sticks to it. */
  unit: z.string().min(1).max(20).optional(),
});
export type CardFormat = z.infer<typeof cardFormatSchema>;

export const cardFields = {
  agg: cardAggSchema,
  /** `percentile`: which one, 0–100. */
  p: z.number().min(0).max(100).optional(),
  /** `first` and `last`: the column that orders the rows. */
  order_by: columnNameSchema.optional(),
  comparison: cardComparisonSchema.optional(),
  thresholds: z.array(cardThresholdSchema).max(10).optional(),
  sparkline: cardSparklineSchema.optional(),
  /** Draw the number on a gauge from `min` (default 0) to `max` (default the whole table's number). */
  gauge: z.strictObject({ min: z.number().optional(), max: z.number().optional() }).optional(),
  format: cardFormatSchema.optional(),
};

interface CardFieldValues {
  agg: CardAgg;
  column?: string | undefined;
  p?: number | undefined;
  order_by?: string | undefined;
  gauge?: { min?: number | undefined; max?: number | undefined } | undefined;
}

/** What the fields' types cannot say: which aggregate needs which field. */
export function checkCardFields(card: CardFieldValues, context: z.RefinementCtx): void {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  if (card.column === undefined && card.agg !== 'count') issue('column', 'this aggregate needs a column');
  if (card.agg === 'percentile' && card.p === undefined) issue('p', 'a percentile needs p (0–100)');
  if (card.agg !== 'percentile' && card.p !== undefined) issue('p', 'p is the percentile of agg "percentile"');
  const ordered = card.agg === 'first' || card.agg === 'last';
  if (ordered && card.order_by === undefined) issue('order_by', `${card.agg} needs the column that orders the rows`);
  if (!ordered && card.order_by !== undefined) issue('order_by', 'order_by orders the rows of "first" and "last"');
  const { min = 0, max } = card.gauge ?? {};
  if (max !== undefined && max <= min) issue('gauge', 'the gauge needs max above min');
}

/** What a card's answer holds beyond its number and the whole table's. */
export const cardDataFields = {
  /** The same number over the compared version, or the reference, and the change to it. */
  comparison: z
    .object({
      reference: z.number().nullable(),
      /** The version compared with (previous_version); null when the table has no earlier one. */
      version: z.number().int().nullable().optional(),
      change: z.number().nullable(),
      /** The change in percent of the reference; null when the reference is 0 or unknown. */
      change_pct: z.number().nullable(),
    })
    .optional(),
  /** The number per version (`x` the version) or per period (`x` its start, ISO), oldest first. */
  sparkline: z
    .object({
      points: z.array(z.object({ x: z.union([z.number(), z.string()]), value: z.number().nullable() })),
      grain: timeGrainSchema.optional(),
    })
    .optional(),
};
