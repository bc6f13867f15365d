import { Group, MultiSelect, NumberInput, SegmentedControl, Stack, Tabs, Textarea } from '@mantine/core';
import {
  INTERACTIVE_WIDGETS,
  type InteractiveComponent,
  type InteractiveWidget,
  TABLE_SCALE_SCHEMES,
  type TableColumn,
  type TableComponent,
  type TableScaleScheme,
  type TextComponent,
} from '@service/common';
import { Markdown } from '../../components/Markdown.js';
import { Choice } from './Choice.js';
import { fittingColumns, WIDGET_KINDS } from './column-fit.js';

const WIDGET_LABELS: Record<InteractiveWidget, string> = {
  select: 'Select (one value)',
  multiselect: 'Multi-select (values)',
  range: 'Range slider (numbers)',
  date_range: 'Date range',
  switch: 'Switch (true/false)',
  search: 'Text search',
};

export const placeholder = (columns: readonly TableColumn[] | undefined) =>
  columns === undefined ? 'Pick a data collection first' : 'Pick a column';

export function InteractiveForm({
  interactive,
  columns,
  onChange,
}: {
  interactive: InteractiveComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (interactive: InteractiveComponent) => void;
}) {
  const options = columns === undefined ? [] : fittingColumns(columns, WIDGET_KINDS[interactive.widget]);
  return (
    <Stack gap="sm">
      <Choice
        label="Widget"
        required
        options={INTERACTIVE_WIDGETS.map((widget) => ({ value: widget, label: WIDGET_LABELS[widget] }))}
        value={interactive.widget}
        onChange={(value) => {
          if (!value) return;
          const widget = value as InteractiveWidget;
          const fits =
            columns !== undefined &&
            fittingColumns(columns, WIDGET_KINDS[widget]).some((option) => option.value === interactive.column);
          onChange({ ...interactive, widget, column: fits ? interactive.column : '' });
        }}
      />
      <Choice
        label="Column"
        required
        emptyLabel={placeholder(columns)}
        options={options}
        value={interactive.column || null}
        onChange={(value) => onChange({ ...interactive, column: value ?? '' })}
      />
    </Stack>
  );
}

/** Numeric columns coloured by their value, all in one scheme (docs/dashboards.md "Tables"). */
function ColorScaleFields({
  table,
  columns,
  onChange,
}: {
  table: TableComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (table: TableComponent) => void;
}) {
  const scales = table.color_scales ?? [];
  const scheme = scales[0]?.scheme ?? 'blues';
  const numeric = columns === undefined ? [] : fittingColumns(columns, ['numeric']);
  const set = (names: string[], chosen: TableScaleScheme) => {
    const next = { ...table };
    if (names.length > 0) next.color_scales = names.map((column) => ({ column, scheme: chosen }));
    else delete next.color_scales;
    onChange(next);
  };
  return (
    <Group grow align="flex-end">
      <MultiSelect
        label="Colour cells of"
        description="Numeric columns, by their value"
        data={numeric}
        value={scales.map((scale) => scale.column)}
        onChange={(names) => set(names, scheme)}
      />
      <Choice
        label="Colour scale"
        required
        options={TABLE_SCALE_SCHEMES.map((name) => ({ value: name, label: name }))}
        value={scheme}
        onChange={(name) =>
          name &&
          set(
            scales.map((scale) => scale.column),
            name as TableScaleScheme,
          )
        }
      />
    </Group>
  );
}

export function TableForm({
  table,
  columns,
  onChange,
}: {
  table: TableComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (table: TableComponent) => void;
}) {
  const names = (columns ?? []).map((column) => column.name);
  const sortKey = table.sort[0];
  const shown = table.columns ?? [];
  return (
    <Stack gap="sm">
      <MultiSelect
        label="Columns, in order"
        description="All of them when none is picked"
        placeholder={placeholder(columns)}
        data={names}
        value={shown}
        searchable
        onChange={(value) => {
          const next = { ...table };
          if (value.length > 0) next.columns = value;
          else delete next.columns;
          onChange(next);
        }}
      />
      <Group grow align="flex-end">
        <Choice
          label="Order by"
          emptyLabel="as stored"
          options={(shown.length > 0 ? shown : names).map((name) => ({ value: name, label: name }))}
          value={sortKey?.column ?? null}
          onChange={(value) =>
            onChange({ ...table, sort: value ? [{ column: value, direction: sortKey?.direction ?? 'asc' }] : [] })
          }
        />
        <SegmentedControl
          aria-label="Direction"
          disabled={sortKey === undefined}
          data={[
            { value: 'asc', label: 'Ascending' },
            { value: 'desc', label: 'Descending' },
          ]}
          value={sortKey?.direction ?? 'asc'}
          onChange={(direction) =>
            sortKey &&
            onChange({ ...table, sort: [{ column: sortKey.column, direction: direction as 'asc' | 'desc' }] })
          }
        />
      </Group>
      <NumberInput
        label="Rows per page"
        min={1}
        max={1000}
        value={table.page_size}
        onChange={(value) => onChange({ ...table, page_size: typeof value === 'number' ? value : 25 })}
      />
      <ColorScaleFields table={table} columns={columns} onChange={onChange} />
    </Stack>
  );
}

export function TextForm({ text, onChange }: { text: TextComponent; onChange: (text: TextComponent) => void }) {
  return (
    <Tabs defaultValue="write">
      <Tabs.List>
        <Tabs.Tab value="write">Write</Tabs.Tab>
        <Tabs.Tab value="preview">Preview</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="write" pt="xs">
        <Textarea
          label="Markdown"
          autosize
          minRows={6}
          maxRows={20}
          value={text.markdown}
          onChange={(event) => onChange({ ...text, markdown: event.currentTarget.value })}
        />
      </Tabs.Panel>
      <Tabs.Panel value="preview" pt="xs">
        <Markdown text={text.markdown} />
      </Tabs.Panel>
    </Tabs>
  );
}
