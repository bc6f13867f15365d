import { MultiSelect, NumberInput, SegmentedControl, Stack } from '@mantine/core';
import {
  type ChartType,
  DEFAULT_LEVEL_BUDGET,
  DEFAULT_MAX_INTERSECTIONS,
  type FigureComponent,
  isHierarchySetChart,
  MAX_LEVELS,
  MAX_SET_COLUMNS,
  type TableColumn,
} from '@service/common';
import { Choice } from './Choice.js';
import { type ColumnKind, fittingColumns } from './column-fit.js';

/**
 * The chart builder's fields of sunburst, treemap, sankey and UpSet plots: lists of columns
 * (levels in order, sets) and the value, offering only the columns whose type fits.
 */

const LEVEL_KINDS: readonly ColumnKind[] = ['numeric', 'temporal', 'boolean', 'text'];
const SET_KINDS: readonly ColumnKind[] = ['numeric', 'boolean'];
const FIELDS = ['levels', 'value', 'sets', 'item', 'set', 'max_intersections'] as const;

/** The figure without the fields its (new) chart does not read, and without columns that no longer fit. */
export function fittedHierarchySet(
  figure: FigureComponent,
  columns: readonly TableColumn[] | undefined,
): FigureComponent {
  const next = { ...figure };
  if (!isHierarchySetChart(next.chart)) {
    for (const field of FIELDS) delete next[field];
    return next;
  }
  const keep = (names: string[] | undefined, kinds: readonly ColumnKind[]) => {
    if (names === undefined || columns === undefined) return names;
    const fitting = new Set(fittingColumns(columns, kinds).map((option) => option.value));
    const kept = names.filter((name) => fitting.has(name));
    return kept.length > 0 ? kept : undefined;
  };
  const levels = next.chart === 'upset' ? undefined : keep(next.levels, LEVEL_KINDS);
  const sets = next.chart === 'upset' ? keep(next.sets, SET_KINDS) : undefined;
  if (levels === undefined) delete next.levels;
  else next.levels = levels;
  if (sets === undefined) delete next.sets;
  else next.sets = sets;
  if (next.chart === 'upset') delete next.value;
  else {
    delete next.item;
    delete next.set;
    delete next.max_intersections;
  }
  return next;
}

export const readsLevels = (chart: ChartType) => chart === 'sunburst' || chart === 'treemap' || chart === 'sankey';

interface FieldsProps {
  figure: FigureComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (figure: FigureComponent) => void;
}

/** A hierarchy's levels (sunburst, treemap, sankey) or an UpSet plot's sets; nothing for other charts. */
export function HierarchySetFields(props: FieldsProps) {
  if (!isHierarchySetChart(props.figure.chart)) return null;
  return readsLevels(props.figure.chart) ? <LevelFields {...props} /> : <SetFields {...props} />;
}

/** Sets one field of the figure; an empty value (or list) removes it. */
function fieldSetter(figure: FigureComponent, onChange: (figure: FigureComponent) => void) {
  return <K extends (typeof FIELDS)[number]>(field: K, value: FigureComponent[K] | undefined) => {
    const next = { ...figure };
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[field];
    else next[field] = value;
    onChange(next);
  };
}

/** The columns that fit one of the kinds (none before the columns are known). */
const columnOptions = (columns: readonly TableColumn[] | undefined) => (kinds: readonly ColumnKind[]) =>
  columns === undefined ? [] : fittingColumns(columns, kinds);

/** A hierarchy's levels (or a sankey's stages), the value summed, and how many values each level keeps. */
function LevelFields({ figure, columns, onChange }: FieldsProps) {
  const set = fieldSetter(figure, onChange);
  const options = columnOptions(columns);
  return (
    <Stack gap="sm">
      <MultiSelect
        label={figure.chart === 'sankey' ? 'Stages (columns, in order)' : 'Levels (columns, outermost first)'}
        withAsterisk
        data={options(LEVEL_KINDS)}
        value={figure.levels ?? []}
        maxValues={MAX_LEVELS}
        onChange={(value) => set('levels', value)}
      />
      <Choice
        label="Value (summed)"
        description="optional: rows are counted without it"
        options={options(['numeric'])}
        value={figure.value ?? null}
        onChange={(value) => set('value', value ?? undefined)}
      />
      <NumberInput
        label="Values kept per level"
        description="the smaller ones fold into “Other”"
        min={2}
        max={500}
        placeholder={String(DEFAULT_LEVEL_BUDGET)}
        value={figure.max_categories ?? ''}
        onChange={(value) => onChange(withNumber(figure, 'max_categories', value))}
      />
    </Stack>
  );
}

/** An UpSet plot's sets, from 0/1 columns or item–set pairs, and how many intersections it shows. */
function SetFields({ figure, columns, onChange }: FieldsProps) {
  const set = fieldSetter(figure, onChange);
  const options = columnOptions(columns);
  const pairs = figure.sets === undefined && (figure.item !== undefined || figure.set !== undefined);
  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="Sets from"
        data={[
          { value: 'columns', label: 'Set columns (0/1)' },
          { value: 'pairs', label: 'Item–set pairs' },
        ]}
        value={pairs ? 'pairs' : 'columns'}
        onChange={(value) => {
          const next = { ...figure };
          delete next.sets;
          delete next.item;
          delete next.set;
          if (value === 'pairs') next.item = options(LEVEL_KINDS)[0]?.value ?? '';
          onChange(next);
        }}
      />
      {pairs ? (
        <>
          <Choice
            label="Item"
            required
            options={options(LEVEL_KINDS)}
            value={figure.item ?? null}
            onChange={(value) => set('item', value ?? undefined)}
          />
          <Choice
            label="Set (one per row)"
            required
            options={options(LEVEL_KINDS)}
            value={figure.set ?? null}
            onChange={(value) => set('set', value ?? undefined)}
          />
        </>
      ) : (
        <MultiSelect
          label="Sets (0/1 or boolean columns)"
          withAsterisk
          data={options(SET_KINDS)}
          value={figure.sets ?? []}
          maxValues={MAX_SET_COLUMNS}
          onChange={(value) => set('sets', value)}
        />
      )}
      <NumberInput
        label="Intersections shown"
        description="the smaller ones are counted as left out"
        min={1}
        max={1000}
        placeholder={String(DEFAULT_MAX_INTERSECTIONS)}
        value={figure.max_intersections ?? ''}
        onChange={(value) => onChange(withNumber(figure, 'max_intersections', value))}
      />
    </Stack>
  );
}

function withNumber(
  figure: FigureComponent,
  field: 'max_categories' | 'max_intersections',
  value: string | number,
): FigureComponent {
  const next = { ...figure };
  if (typeof value === 'number') next[field] = value;
  else delete next[field];
  return next;
}
