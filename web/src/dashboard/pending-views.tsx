import { Text } from '@mantine/core';
import { type CardComponent, type ComponentData, cardDataSchema, type FigureComponent } from '@service/common';
import { formatValue } from './chips.js';

// Stand-ins until the charts' own FigureView and CardView land (web/src/dashboard/, the "charts" helper).

export function FigureStandIn({ component, data }: { component: FigureComponent; data: ComponentData }) {
  const rows = 'rows' in data && Array.isArray(data.rows) ? data.rows.length : 0;
  return (
    <Text c="dimmed" size="sm">
      A {component.chart} chart of {rows} rows.
    </Text>
  );
}

export function CardStandIn({ data }: { component: CardComponent; data: ComponentData }) {
  const card = cardDataSchema.safeParse(data);
  if (!card.success) return <Text c="dimmed">No data yet.</Text>;
  return (
    <Text size="xl" fw={700}>
      {formatValue(card.data.value)}{' '}
      <Text span size="sm" c="dimmed">
        · all {formatValue(card.data.unfiltered_value)}
      </Text>
    </Text>
  );
}
