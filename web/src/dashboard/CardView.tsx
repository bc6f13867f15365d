import { Stack, Text } from '@mantine/core';
import { type CardComponent, type CardData, cardLabel, formatCardValue } from '@service/common';

/** Units a column name may end with (`body_mass_g`, `duration_ms`), as a value is followed by them. */
const UNIT_SUFFIXES: Record<string, string> = {
  g: 'g',
  kg: 'kg',
  mg: 'mg',
  mm: 'mm',
  cm: 'cm',
  m: 'm',
  km: 'km',
  s: 's',
  ms: 'ms',
  min: 'min',
  h: 'h',
  pct: '%',
  percent: '%',
  usd: 'USD',
  eur: 'EUR',
  bytes: 'bytes',
  mb: 'MB',
  gb: 'GB',
};

/**
 * The unit a card's values carry: the one its column's name ends with, when the card's title does
 * not already say it ("Mean mass" over `body_mass_g` → "g"; no title: the column's name says it).
 */
export function cardUnit(component: CardComponent): string | null {
  if (!component.title || component.column === undefined) return null;
  if (component.agg === 'count' || component.agg === 'count_distinct') return null;
  const suffix = /_([a-z]+)$/i.exec(component.column)?.[1]?.toLowerCase();
  const unit = suffix !== undefined && Object.hasOwn(UNIT_SUFFIXES, suffix) ? UNIT_SUFFIXES[suffix] : undefined;
  if (unit === undefined) return null;
  // Units are letters or "%": nothing to escape.
  return new RegExp(`(^|[^\\p{L}])${unit}($|[^\\p{L}])`, 'iu').test(component.title) ? null : unit;
}

/**
 * One number, and the same number over the whole table beside it: "mean body_mass_g 4,202 · all
 * 4,050", with the unit of the column's name when the title (the cell's heading) does not say it:
 * "Mean mass" over `body_mass_g` gives "4,202 g · all 4,050 g".
 */
export function CardView({
  component,
  data,
  columnLabel,
}: {
  component: CardComponent;
  data: CardData;
  columnLabel?: string;
}) {
  const label = cardLabel(component, columnLabel);
  const unit = cardUnit(component);
  const withUnit = (text: string) =>
    unit === null || text === '—' ? text : unit === '%' ? `${text}%` : `${text} ${unit}`;
  const value = withUnit(formatCardValue(component.agg, data.value));
  const all = withUnit(formatCardValue(component.agg, data.unfiltered_value));
  return (
    <Stack gap={2} role="group" aria-label={`${label}: ${value}, all ${all}`}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2} data-card-value>
        {value}
      </Text>
      <Text size="sm" c="dimmed">
        · all {all}
      </Text>
    </Stack>
  );
}
