import { ActionIcon, Button, Checkbox, Group, Popover, Stack, Text, TextInput } from '@mantine/core';
import {
  COLUMN_VALUES_LIMIT,
  type ColumnFilterKind,
  columnFilterKind,
  type TableColumn,
  type TableColumnFilter,
} from '@service/common';
import { type FormEvent, useId, useState } from 'react';
import { formatValue } from '../chips.js';

/** A value a value-list filter offers (`column_values` of a table's answer). */
export type ListedValue = string | boolean | null;

/** Which filter a column's header offers: a value list when it has few values, else by its type. */
export type FilterForm = 'list' | 'contains' | 'range' | null;

export function filterForm(column: TableColumn, values: readonly ListedValue[] | undefined): FilterForm {
  const kind: ColumnFilterKind = columnFilterKind(column.type);
  if ((kind === 'text' || kind === 'boolean') && values !== undefined && values.length <= COLUMN_VALUES_LIMIT) {
    return 'list';
  }
  if (kind === 'text') return 'contains';
  return kind === 'number' || kind === 'temporal' ? 'range' : null;
}

/**
 * The filter button of a column's header and the form it opens: the values to keep (few-valued
 * text and booleans), a text the value contains (other text), or a range (numbers, dates, times).
 * "Apply" sets the filter, "Clear" removes it; either closes the form.
 */
export function ColumnFilterButton({
  column,
  form,
  values,
  filter,
  onChange,
}: {
  column: TableColumn;
  form: Exclude<FilterForm, null>;
  values: readonly ListedValue[] | undefined;
  filter: TableColumnFilter | undefined;
  onChange: (filter: TableColumnFilter | null) => void;
}) {
  const [opened, setOpened] = useState(false);
  const headingId = useId();
  const set = (next: TableColumnFilter | null) => {
    setOpened(false);
    onChange(next);
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" trapFocus withinPortal shadow="md">
      <Popover.Target>
        <ActionIcon
          size="xs"
          ml={4}
          variant={filter === undefined ? 'subtle' : 'filled'}
          color={filter === undefined ? 'gray' : undefined}
          aria-label={filter === undefined ? `Filter ${column.name}` : `Filter ${column.name} (on)`}
          aria-expanded={opened}
          onClick={() => setOpened((open) => !open)}
        >
          {/* A funnel. */}
          <svg
            width="12"
            height="12"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            aria-hidden="true"
          >
            <path d="M3 4h18l-7 8v6l-4 2v-8z" />
          </svg>
        </ActionIcon>
      </Popover.Target>
      {/* Named by its heading: Mantine names a dropdown by its target otherwise. */}
      <Popover.Dropdown aria-labelledby={headingId}>
        <Text id={headingId} size="xs" fw={700} mb={4}>
          Filter of {column.name}
        </Text>
        {opened && <FilterFields column={column} form={form} values={values ?? []} filter={filter} onSet={set} />}
      </Popover.Dropdown>
    </Popover>
  );
}

/** The form's fields by kind, with Apply and Clear. */
function FilterFields({
  column,
  form,
  values,
  filter,
  onSet,
}: {
  column: TableColumn;
  form: Exclude<FilterForm, null>;
  values: readonly ListedValue[];
  filter: TableColumnFilter | undefined;
  onSet: (filter: TableColumnFilter | null) => void;
}) {
  const name = column.name;
  const [text, setText] = useState(filter?.op === 'contains' ? filter.value : '');
  const [low, setLow] = useState(filter?.op === 'between' ? boundText(filter.value[0]) : '');
  const [high, setHigh] = useState(filter?.op === 'between' ? boundText(filter.value[1]) : '');
  const [kept, setKept] = useState<ListedValue[]>(filter?.op === 'in' ? filter.value : []);
  const numeric = columnFilterKind(column.type) === 'number';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSet(formFilter(name, form, { text, low, high, kept, numeric }));
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="xs" maw={260}>
        {form === 'contains' && (
          <TextInput
            label={`${name} contains`}
            size="xs"
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            data-autofocus
          />
        )}
        {form === 'range' && (
          <Group gap="xs" grow wrap="nowrap">
            <TextInput
              label={`${name} from`}
              size="xs"
              inputMode={numeric ? 'decimal' : 'text'}
              placeholder={numeric ? undefined : 'YYYY-MM-DD'}
              value={low}
              onChange={(event) => setLow(event.currentTarget.value)}
              data-autofocus
            />
            <TextInput
              label={`${name} to`}
              size="xs"
              inputMode={numeric ? 'decimal' : 'text'}
              placeholder={numeric ? undefined : 'YYYY-MM-DD'}
              value={high}
              onChange={(event) => setHigh(event.currentTarget.value)}
            />
          </Group>
        )}
        {form === 'list' && <ValueList name={name} values={values} kept={kept} onChange={setKept} />}
        <Group gap="xs" justify="flex-end">
          <Button size="compact-xs" variant="subtle" onClick={() => onSet(null)}>
            Clear
          </Button>
          <Button size="compact-xs" type="submit">
            Apply
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A box per value of a few-valued column: the values the filter keeps. */
function ValueList({
  name,
  values,
  kept,
  onChange,
}: {
  name: string;
  values: readonly ListedValue[];
  kept: readonly ListedValue[];
  onChange: (update: (kept: ListedValue[]) => ListedValue[]) => void;
}) {
  return (
    <Stack gap={4} mah={240} style={{ overflowY: 'auto' }} role="group" aria-label={`Values of ${name} to keep`}>
      {values.map((value) => (
        <Checkbox
          key={String(value)}
          size="xs"
          label={formatValue(value)}
          checked={kept.includes(value)}
          onChange={(event) => {
            const on = event.currentTarget.checked;
            onChange((list) => (on ? [...list, value] : list.filter((each) => each !== value)));
          }}
        />
      ))}
    </Stack>
  );
}

function boundText(bound: string | number | null): string {
  return bound === null ? '' : String(bound);
}

/** A range's end as the filter takes it: null when empty, a number on numeric columns. */
function bound(text: string, numeric: boolean): string | number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!numeric) return trimmed;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : trimmed;
}

/** The filter the form's fields say, or null when they filter nothing. */
export function formFilter(
  column: string,
  form: Exclude<FilterForm, null>,
  fields: { text: string; low: string; high: string; kept: readonly ListedValue[]; numeric: boolean },
): TableColumnFilter | null {
  if (form === 'contains') {
    const text = fields.text.trim();
    return text === '' ? null : { column, op: 'contains', value: text };
  }
  if (form === 'range') {
    const value: [string | number | null, string | number | null] = [
      bound(fields.low, fields.numeric),
      bound(fields.high, fields.numeric),
    ];
    return value[0] === null && value[1] === null ? null : { column, op: 'between', value };
  }
  return fields.kept.length === 0 ? null : { column, op: 'in', value: [...fields.kept] };
}

/** A column filter in words, for its chip above the table: "species: Adelie, Gentoo", "mass 3,000–4,000". */
export function describeColumnFilter(filter: TableColumnFilter): string {
  if (filter.op === 'contains') return `${filter.column} contains “${filter.value}”`;
  if (filter.op === 'in') {
    const shown = filter.value.slice(0, 3).map(formatValue).join(', ');
    const more = filter.value.length - 3;
    return `${filter.column}: ${more > 0 ? `${shown} and ${more} more` : shown}`;
  }
  const [low, high] = filter.value;
  if (low === null) return `${filter.column} ≤ ${formatValue(high)}`;
  if (high === null) return `${filter.column} ≥ ${formatValue(low)}`;
  return `${filter.column} ${formatValue(low)}–${formatValue(high)}`;
}
