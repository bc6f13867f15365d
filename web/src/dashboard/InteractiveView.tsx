import { Group, MultiSelect, NumberInput, RangeSlider, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import {
  type DashboardFilterValue,
  type InteractiveComponent,
  type OptionsData,
  optionsDataSchema,
  rangeDataSchema,
} from '@service/common';
import { useState } from 'react';
import { formatCount } from '../format/number.js';
import { componentLabel, formatNumber } from './chips.js';
import type { HistoryMode } from './filter-state.js';
import { parseOnce } from './parse-once.js';
import {
  chosenKeys,
  chosenValues,
  dateInputValue,
  dateRangeFilter,
  numericBounds,
  rangeFilter,
  SEARCHABLE_OPTIONS,
  type SelectItem,
  selectItems,
  sliderStep,
  sliderValue,
  stepDecimals,
} from './widget-values.js';

/** How long the search box waits after the last key before it filters. */
const SEARCH_DELAY_MS = 300;

type OnFilter = (value: DashboardFilterValue | null, mode?: HistoryMode) => void;

interface WidgetProps {
  label: string;
  value: DashboardFilterValue | undefined;
  onFilter: OnFilter;
}

function optionCount(items: readonly SelectItem[]) {
  const counts = new Map(items.map((item) => [item.value, item.count]));
  return ({ option }: { option: { value: string; label: string } }) => {
    const count = counts.get(option.value);
    return (
      <Group justify="space-between" wrap="nowrap" w="100%" gap="xs">
        <span>{option.label}</span>
        {count !== null && count !== undefined && (
          <Text span size="xs" c="dimmed">
            {formatCount(count)}
          </Text>
        )}
      </Group>
    );
  };
}

function ChoiceWidget({
  label,
  value,
  onFilter,
  data,
  multiple,
}: WidgetProps & { data: OptionsData; multiple: boolean }) {
  const chosen = chosenKeys(value);
  const items = selectItems(data.options, Array.isArray(value) ? value : []);
  const common = {
    label,
    data: items.map(({ value: key, label: text }) => ({ value: key, label: text })),
    renderOption: optionCount(items),
    searchable: items.length > SEARCHABLE_OPTIONS,
    clearable: true,
    nothingFoundMessage: 'No such value',
    description: data.truncated ? `The ${formatCount(data.options.length)} most frequent values` : undefined,
  };
  return multiple ? (
    <MultiSelect {...common} value={chosen} onChange={(keys) => onFilter(chosenValues(keys))} />
  ) : (
    <Select
      {...common}
      value={chosen[0] ?? null}
      onChange={(key) => onFilter(key === null ? null : chosenValues([key]))}
    />
  );
}

function RangeWidget({ label, value, onFilter, bounds }: WidgetProps & { bounds: { min: number; max: number } }) {
  const committed = sliderValue(value, bounds);
  // While a thumb is dragged (or a bound typed) the widget shows where it is; the filter changes
  // once, when it is let go, so the dashboard is not asked again for every pixel.
  const [moving, setMoving] = useState<[number, number] | null>(null);
  const shown = moving ?? committed;
  const step = sliderStep(bounds);
  const commit = (next: [number, number]) => {
    setMoving(null);
    onFilter(rangeFilter(next, bounds));
  };
  const typed = (index: 0 | 1) => (input: number | string) => {
    if (typeof input !== 'number') return;
    const next: [number, number] = [...shown];
    next[index] = Math.min(bounds.max, Math.max(bounds.min, input));
    setMoving(next);
  };
  const bound = (index: 0 | 1, name: string) => (
    <NumberInput
      size="xs"
      aria-label={`${label} ${name}`}
      value={shown[index]}
      min={bounds.min}
      max={bounds.max}
      step={step}
      decimalScale={stepDecimals(step) + 2}
      thousandSeparator=","
      onChange={typed(index)}
      onBlur={() => moving !== null && commit(shown)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && moving !== null) commit(shown);
      }}
      w="45%"
    />
  );
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <RangeSlider
        min={bounds.min}
        max={bounds.max}
        step={step}
        precision={stepDecimals(step)}
        minRange={0}
        value={shown}
        onChange={setMoving}
        onChangeEnd={commit}
        label={formatNumber}
        thumbFromLabel={`${label} from`}
        thumbToLabel={`${label} to`}
        thumbValueText={formatNumber}
      />
      <Group justify="space-between" wrap="nowrap">
        {bound(0, 'from')}
        {bound(1, 'to')}
      </Group>
    </Stack>
  );
}

function DateRangeWidget({ label, value, onFilter, min, max }: WidgetProps & { min: string; max: string }) {
  const [from, to] = Array.isArray(value) ? value.map(dateInputValue) : ['', ''];
  const input = (name: string, current: string, change: (next: string) => void) => (
    <TextInput
      type="date"
      size="xs"
      aria-label={`${label} ${name.toLowerCase()}`}
      title={name}
      value={current}
      min={min || undefined}
      max={max || undefined}
      onChange={(event) => change(event.currentTarget.value)}
      style={{ flex: '1 1 8.75rem' }}
    />
  );
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} className="date-range-label">
        {label}
      </Text>
      <div className="date-range-inputs">
        {input('From', from ?? '', (next) => onFilter(dateRangeFilter(next, to ?? '')))}
        {input('To', to ?? '', (next) => onFilter(dateRangeFilter(from ?? '', next)))}
      </div>
    </Stack>
  );
}

function SwitchWidget({ label, value, onFilter, data }: WidgetProps & { data: OptionsData }) {
  const yes = data.options.find((option) => option.value === true);
  return (
    <Switch
      label={yes === undefined ? label : `${label} (${formatCount(yes.count)})`}
      checked={value === true}
      onChange={(event) => onFilter(event.currentTarget.checked ? true : null)}
    />
  );
}

function SearchWidget({ label, value, onFilter }: WidgetProps) {
  const current = typeof value === 'string' ? value : '';
  const [text, setText] = useState(current);
  // A filter changed elsewhere (a chip removed, "Clear all", Back) shows in the box.
  const [seen, setSeen] = useState(current);
  if (seen !== current) {
    setSeen(current);
    setText(current);
  }
  const commit = useDebouncedCallback((next: string) => onFilter(next), SEARCH_DELAY_MS);
  return (
    <TextInput
      type="search"
      label={label}
      placeholder="Contains…"
      value={text}
      onChange={(event) => {
        setText(event.currentTarget.value);
        commit(event.currentTarget.value);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') commit.flush();
      }}
    />
  );
}

/** An interactive component: its widget, fed by its options (counted under the other filters) or its column's bounds. */
export function InteractiveView({
  component,
  data,
  value,
  onFilter,
}: {
  component: InteractiveComponent;
  data: unknown;
  value: DashboardFilterValue | undefined;
  onFilter: OnFilter;
}) {
  const props = { label: componentLabel(component), value, onFilter };
  const none = <Text c="dimmed">No data yet.</Text>;
  switch (component.widget) {
    case 'select':
    case 'multiselect':
    case 'switch': {
      const options = parseOnce(optionsDataSchema, data);
      if (options === undefined) return none;
      if (component.widget === 'switch') return <SwitchWidget {...props} data={options} />;
      return <ChoiceWidget {...props} data={options} multiple={component.widget === 'multiselect'} />;
    }
    case 'search':
      return <SearchWidget {...props} />;
    case 'range': {
      const range = parseOnce(rangeDataSchema, data);
      const bounds = range === undefined ? null : numericBounds(range);
      if (bounds === null) return none;
      return <RangeWidget {...props} bounds={bounds} />;
    }
    case 'date_range': {
      const range = parseOnce(rangeDataSchema, data);
      if (range === undefined) return none;
      return <DateRangeWidget {...props} min={dateInputValue(range.min)} max={dateInputValue(range.max)} />;
    }
  }
}
