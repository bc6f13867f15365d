import { Group, Stack, Text } from '@mantine/core';
import {
  CARD_COLOR_HEX,
  type CardColor,
  type CardComponent,
  type CardData,
  cardFormatOf,
  cardLabel,
  comparisonView,
  formatCardNumber,
  gaugeView,
  sparklinePath,
  TONE_COLOR,
  thresholdColor,
} from '@service/common';
import type { CSSProperties } from 'react';

/**
 * One number, and the same number over the whole table beside it: "mean body_mass_g 4,202 · all
 * 4,050", with the unit of the column's name when the title (the cell's heading) does not say it
 * ("4,202 g · all 4,050 g") or the card's own format; coloured by its thresholds, with its change
 * against a previous version or a reference, a sparkline and a gauge when it asks for them. The
 * exported card is written by the same functions (common/src/format/card-present.ts).
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
  const format = cardFormatOf(component);
  const value = formatCardNumber(component.agg, data.value, format);
  const all = formatCardNumber(component.agg, data.unfiltered_value, format);
  const tone = thresholdColor(component.thresholds, data.value);
  const comparison = comparisonView(component.agg, component.comparison, data.comparison, format);
  const summary = comparison === null ? '' : `, ${comparison.change} ${comparison.against}`;
  return (
    <Stack gap={2} role="group" aria-label={`${label}: ${value}${summary}, all ${all}`} className="card-view">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text
        fw={700}
        lh={1.2}
        className={tone === null ? undefined : 'card-tone'}
        style={toneStyle(tone)}
        data-card-value
        data-tone={tone ?? undefined}
      >
        {value}
      </Text>
      {comparison && (
        <Group gap={6} data-card-comparison>
          <Text
            size="sm"
            c={comparison.tone === 'neutral' ? 'dimmed' : undefined}
            className={comparison.tone === 'neutral' ? undefined : 'card-tone'}
            style={comparison.tone === 'neutral' ? undefined : toneStyle(TONE_COLOR[comparison.tone])}
          >
            {comparison.arrow} {comparison.change}
          </Text>
          <Text size="sm" c="dimmed">
            {comparison.against}
          </Text>
        </Group>
      )}
      <Text size="sm" c="dimmed">
        · all {all}
      </Text>
      <CardArt component={component} data={data} color={tone ?? 'blue'} />
    </Stack>
  );
}

/**
 * A tone's colour in both themes (shades 9 and 4 of the palette, as the exported page): the
 * stylesheet's `.card-tone` picks the one of the scheme shown, for contrast in each.
 */
function toneStyle(color: CardColor | null): CSSProperties | undefined {
  if (color === null) return undefined;
  return {
    '--card-tone-light': CARD_COLOR_HEX[color].light,
    '--card-tone-dark': CARD_COLOR_HEX[color].dark,
  } as CSSProperties;
}

/** The sparkline and the gauge, stroked in the colour of the card's tone. */
function CardArt({ component, data, color }: { component: CardComponent; data: CardData; color: CardColor }) {
  const line = data.sparkline === undefined ? null : sparklinePath(data.sparkline.points, 120, 28);
  const gauge = gaugeView(component, data);
  return (
    <>
      {line !== null && (
        <svg
          width={120}
          height={32}
          viewBox="-2 -2 124 32"
          aria-hidden="true"
          className="card-tone"
          style={toneStyle(color)}
          data-card-sparkline
        >
          <path d={line} fill="none" stroke="currentColor" strokeWidth={1.5} />
        </svg>
      )}
      {gauge !== null && (
        <svg
          width={120}
          height={66}
          viewBox="0 0 100 55"
          aria-hidden="true"
          className="card-tone"
          style={toneStyle(color)}
          data-card-gauge={gauge.fraction}
        >
          <path d={gauge.track} fill="none" stroke="var(--mantine-color-default-border)" strokeWidth={8} />
          {gauge.fill !== '' && <path d={gauge.fill} fill="none" stroke="currentColor" strokeWidth={8} />}
        </svg>
      )}
    </>
  );
}
