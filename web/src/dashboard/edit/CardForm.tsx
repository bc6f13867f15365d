import { Accordion, ActionIcon, Button, Group, NumberInput, SegmentedControl, Stack, TextInput } from '@mantine/core';
import {
  CARD_AGGS,
  CARD_COLORS,
  type CardAgg,
  type CardComponent,
  type CardThreshold,
  type TableColumn,
  THRESHOLD_OPERATORS,
  TIME_GRAINS,
} from '@service/common';
import { Choice } from './Choice.js';
import { placeholder } from './ComponentForms.js';
import { cardColumnKinds, fittingColumns } from './column-fit.js';

const AGG_LABELS: Record<CardAgg, string> = {
  count: 'Count of rows',
  sum: 'Sum',
  mean: 'Mean',
  median: 'Median',
  min: 'Minimum',
  max: 'Maximum',
  count_distinct: 'Count of distinct values',
  nunique: 'Number of unique values (nunique)',
  std: 'Standard deviation',
  variance: 'Variance',
  percentile: 'Percentile',
  first: 'First (by a column)',
  last: 'Last (by a column)',
  mode: 'Most frequent value',
  range: 'Range (max − min)',
};
const AGG_OPTIONS = CARD_AGGS.map((agg) => ({ value: agg, label: AGG_LABELS[agg] }));

type Change = (card: CardComponent) => void;

/** The card with `fields` set, and those given as undefined removed (the saved JSON has no nulls). */
function patched(card: CardComponent, fields: Partial<CardComponent>): CardComponent {
  const next: Record<string, unknown> = { ...card, ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete next[key];
  return next as CardComponent;
}

/** A card's form: its aggregate, then what it shows beside the number (docs/dashboards.md "Cards"). */
export function CardForm({
  card,
  columns,
  onChange,
}: {
  card: CardComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: Change;
}) {
  return (
    <Stack gap="sm">
      <AggregateFields card={card} columns={columns} onChange={onChange} />
      <Accordion variant="contained" multiple>
        <Accordion.Item value="format">
          <Accordion.Control>Number format</Accordion.Control>
          <Accordion.Panel>
            <FormatFields card={card} onChange={onChange} />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="comparison">
          <Accordion.Control>Comparison</Accordion.Control>
          <Accordion.Panel>
            <ComparisonFields card={card} onChange={onChange} />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="thresholds">
          <Accordion.Control>Thresholds</Accordion.Control>
          <Accordion.Panel>
            <ThresholdFields card={card} onChange={onChange} />
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="sparkline">
          <Accordion.Control>Sparkline and gauge</Accordion.Control>
          <Accordion.Panel>
            <Stack gap="xs">
              <SparklineFields card={card} columns={columns} onChange={onChange} />
              <GaugeFields card={card} onChange={onChange} />
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </Stack>
  );
}

function AggregateFields({
  card,
  columns,
  onChange,
}: {
  card: CardComponent;
  columns?: readonly TableColumn[];
  onChange: Change;
}) {
  const options = columns === undefined ? [] : fittingColumns(columns, cardColumnKinds(card.agg));
  const chooseAgg = (agg: CardAgg) => {
    const fits =
      columns !== undefined && fittingColumns(columns, cardColumnKinds(agg)).some((o) => o.value === card.column);
    const ordered = agg === 'first' || agg === 'last';
    onChange(
      patched(card, {
        agg,
        column: fits ? card.column : undefined,
        p: agg === 'percentile' ? (card.p ?? 90) : undefined,
        order_by: ordered ? card.order_by : undefined,
      }),
    );
  };
  return (
    <>
      <Choice
        label="Aggregation"
        required
        options={AGG_OPTIONS}
        value={card.agg}
        onChange={(v) => v && chooseAgg(v as CardAgg)}
      />
      <Choice
        label="Column"
        description={card.agg === 'count' ? 'optional: counts the rows where it is not null' : undefined}
        required={card.agg !== 'count'}
        emptyLabel={card.agg === 'count' ? 'none (count rows)' : placeholder(columns)}
        options={options}
        value={card.column ?? null}
        onChange={(value) => onChange(patched(card, { column: value ?? undefined }))}
      />
      {card.agg === 'percentile' && (
        <NumberInput
          label="Percentile (0–100)"
          min={0}
          max={100}
          value={card.p ?? 90}
          onChange={(value) => onChange(patched(card, { p: typeof value === 'number' ? value : undefined }))}
        />
      )}
      {(card.agg === 'first' || card.agg === 'last') && (
        <Choice
          label="Ordered by"
          required
          emptyLabel={placeholder(columns)}
          options={columns === undefined ? [] : fittingColumns(columns, ['numeric', 'temporal', 'text'])}
          value={card.order_by ?? null}
          onChange={(value) => onChange(patched(card, { order_by: value ?? undefined }))}
        />
      )}
    </>
  );
}

function FormatFields({ card, onChange }: { card: CardComponent; onChange: Change }) {
  const format = card.format ?? {};
  const set = (fields: Partial<NonNullable<CardComponent['format']>>) => {
    const next: Record<string, unknown> = { ...format, ...fields };
    for (const [key, value] of Object.entries(next)) if (value === undefined || value === '') delete next[key];
    onChange(patched(card, { format: Object.keys(next).length === 0 ? undefined : next }));
  };
  return (
    <Stack gap="xs">
      <SegmentedControl
        aria-label="Number style"
        data={[
          { value: 'number', label: '1,234' },
          { value: 'percent', label: '12.3%' },
          { value: 'si', label: '1.2k' },
        ]}
        value={format.style ?? 'number'}
        onChange={(style) => set({ style: style === 'number' ? undefined : (style as 'percent' | 'si') })}
      />
      <NumberInput
        label="Decimals"
        min={0}
        max={10}
        value={format.decimals ?? ''}
        onChange={(value) => set({ decimals: typeof value === 'number' ? value : undefined })}
      />
      <TextInput
        label="Unit"
        maxLength={20}
        value={format.unit ?? ''}
        onChange={(event) => set({ unit: event.currentTarget.value || undefined })}
      />
    </Stack>
  );
}

function ComparisonFields({ card, onChange }: { card: CardComponent; onChange: Change }) {
  const comparison = card.comparison;
  const better = comparison?.better ?? 'higher';
  return (
    <Stack gap="xs">
      <Choice
        label="Compare with"
        options={[
          { value: 'previous_version', label: "The table's previous version" },
          { value: 'reference', label: 'A reference value' },
        ]}
        value={comparison?.against ?? null}
        onChange={(against) =>
          onChange(
            patched(card, {
              comparison:
                against === 'previous_version'
                  ? { against, better }
                  : against === 'reference'
                    ? { against, value: 0, better }
                    : undefined,
            }),
          )
        }
      />
      {comparison?.against === 'reference' && (
        <Group grow>
          <NumberInput
            label="Reference"
            value={comparison.value}
            onChange={(value) => onChange(patched(card, { comparison: { ...comparison, value: Number(value) || 0 } }))}
          />
          <TextInput
            label="Called"
            placeholder="target"
            maxLength={60}
            value={comparison.label ?? ''}
            onChange={(event) => {
              const { label: _dropped, ...rest } = comparison;
              const label = event.currentTarget.value;
              onChange(patched(card, { comparison: label === '' ? rest : { ...rest, label } }));
            }}
          />
        </Group>
      )}
      {comparison && (
        <SegmentedControl
          aria-label="A rise is"
          data={[
            { value: 'higher', label: 'Higher is better' },
            { value: 'lower', label: 'Lower is better' },
          ]}
          value={better}
          onChange={(value) =>
            onChange(patched(card, { comparison: { ...comparison, better: value as 'higher' | 'lower' } }))
          }
        />
      )}
    </Stack>
  );
}

function ThresholdFields({ card, onChange }: { card: CardComponent; onChange: Change }) {
  const rules = card.thresholds ?? [];
  const set = (next: CardThreshold[]) => onChange(patched(card, { thresholds: next.length === 0 ? undefined : next }));
  const update = (index: number, rule: Partial<CardThreshold>) =>
    set(rules.map((existing, at) => (at === index ? { ...existing, ...rule } : existing)));
  return (
    <Stack gap="xs">
      {rules.map((rule, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rules have no identity but their place
        <Group key={index} gap="xs" wrap="nowrap" align="end">
          <Choice
            label="When"
            required
            options={THRESHOLD_OPERATORS.map((op) => ({ value: op, label: op }))}
            value={rule.op}
            onChange={(op) => op && update(index, { op: op as CardThreshold['op'] })}
          />
          <NumberInput
            label="Value"
            value={rule.value}
            onChange={(value) => update(index, { value: Number(value) || 0 })}
          />
          <Choice
            label="Colour"
            required
            options={CARD_COLORS.map((color) => ({ value: color, label: color }))}
            value={rule.color}
            onChange={(color) => color && update(index, { color: color as CardThreshold['color'] })}
          />
          <ActionIcon
            variant="subtle"
            aria-label={`Remove rule ${index + 1}`}
            onClick={() => set(rules.filter((_, at) => at !== index))}
          >
            ×
          </ActionIcon>
        </Group>
      ))}
      <Button
        variant="light"
        size="xs"
        disabled={rules.length >= 10}
        onClick={() => set([...rules, { op: '<', value: 0, color: 'red' }])}
      >
        Add a rule
      </Button>
    </Stack>
  );
}

function SparklineFields({
  card,
  columns,
  onChange,
}: {
  card: CardComponent;
  columns?: readonly TableColumn[];
  onChange: Change;
}) {
  const sparkline = card.sparkline;
  const dates = columns === undefined ? [] : fittingColumns(columns, ['temporal']);
  return (
    <Stack gap="xs">
      <Choice
        label="Sparkline"
        options={[
          { value: 'versions', label: "Across the table's versions" },
          ...(dates.length > 0 ? [{ value: 'column', label: 'Per period of a date column' }] : []),
        ]}
        value={sparkline?.over ?? null}
        onChange={(over) =>
          onChange(
            patched(card, {
              sparkline:
                over === 'versions'
                  ? { over }
                  : over === 'column' && dates[0]
                    ? { over, column: dates[0].value }
                    : undefined,
            }),
          )
        }
      />
      {sparkline?.over === 'column' && (
        <Group grow>
          <Choice
            label="Date column"
            required
            options={dates}
            value={sparkline.column}
            onChange={(column) => column && onChange(patched(card, { sparkline: { ...sparkline, column } }))}
          />
          <Choice
            label="Period"
            emptyLabel="chosen from the span"
            options={TIME_GRAINS.map((grain) => ({ value: grain, label: grain }))}
            value={sparkline.grain ?? null}
            onChange={(grain) => {
              const { grain: _dropped, ...rest } = sparkline;
              onChange(
                patched(card, { sparkline: grain ? { ...rest, grain: grain as (typeof TIME_GRAINS)[number] } : rest }),
              );
            }}
          />
        </Group>
      )}
    </Stack>
  );
}

function GaugeFields({ card, onChange }: { card: CardComponent; onChange: Change }) {
  return (
    <Stack gap="xs">
      <Choice
        label="Gauge"
        options={[{ value: 'on', label: 'Draw the number on a gauge' }]}
        value={card.gauge ? 'on' : null}
        onChange={(on) => onChange(patched(card, { gauge: on ? {} : undefined }))}
      />
      {card.gauge && (
        <Group grow>
          <NumberInput
            label="Gauge from"
            value={card.gauge.min ?? 0}
            onChange={(value) => onChange(patched(card, { gauge: { ...card.gauge, min: Number(value) || 0 } }))}
          />
          <NumberInput
            label="Gauge to"
            description="default: the whole table's number"
            value={card.gauge.max ?? ''}
            onChange={(value) => {
              const { max: _dropped, ...rest } = card.gauge ?? {};
              onChange(patched(card, { gauge: typeof value === 'number' ? { ...rest, max: value } : rest }));
            }}
          />
        </Group>
      )}
    </Stack>
  );
}
