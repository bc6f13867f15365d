import { ActionIcon, Button, Checkbox, Group, Popover, Stack, Text } from '@mantine/core';
import type { TableColumn } from '@service/common';
import { useId } from 'react';

/**
 * The columns a reader shows, in order: `chosen` (the names, in order) kept to the table's columns,
 * or all of them in the table's order when the reader chose nothing.
 */
export function shownColumns(all: readonly TableColumn[], chosen: readonly string[] | undefined): TableColumn[] {
  if (chosen === undefined) return [...all];
  const byName = new Map(all.map((column) => [column.name, column]));
  const shown = chosen.flatMap((name) => byName.get(name) ?? []);
  // Every column hidden reads as the table's own: a table of no columns shows nothing useful.
  return shown.length === 0 ? [...all] : shown;
}

/** The reader's order of every column: the shown ones first, in their order, then the hidden ones. */
function orderOf(all: readonly TableColumn[], chosen: readonly string[] | undefined): string[] {
  const shown = shownColumns(all, chosen).map((column) => column.name);
  return [...shown, ...all.map((column) => column.name).filter((name) => !shown.includes(name))];
}

/**
 * "Columns": the reader shows or hides each column of the table and moves it up or down; "Reset"
 * goes back to the table's own columns (the editor's "Columns, in order"). `onChange` gets the
 * shown columns in order, or undefined for the table's own.
 */
export function ColumnsMenu({
  label,
  all,
  chosen,
  onChange,
}: {
  label: string;
  all: readonly TableColumn[];
  chosen: readonly string[] | undefined;
  onChange: (columns: string[] | undefined) => void;
}) {
  const headingId = useId();
  const order = orderOf(all, chosen);
  const shown = new Set(shownColumns(all, chosen).map((column) => column.name));
  const write = (names: readonly string[], visible: ReadonlySet<string>) => {
    const next = names.filter((name) => visible.has(name));
    const own = all.map((column) => column.name);
    onChange(next.length === own.length && next.every((name, index) => name === own[index]) ? undefined : next);
  };
  const move = (index: number, by: number) => {
    const next = [...order];
    const [name] = next.splice(index, 1);
    if (name === undefined) return;
    next.splice(index + by, 0, name);
    write(next, shown);
  };
  const toggle = (name: string, on: boolean) => {
    const visible = new Set(shown);
    if (on) visible.add(name);
    else if (visible.size > 1) visible.delete(name);
    write(order, visible);
  };
  return (
    <Popover position="bottom-end" withinPortal trapFocus shadow="md">
      <Popover.Target>
        <Button size="compact-xs" variant="subtle" aria-label={`Columns of ${label}`}>
          Columns
        </Button>
      </Popover.Target>
      {/* Named by its heading: Mantine names a dropdown by its target otherwise. */}
      <Popover.Dropdown aria-labelledby={headingId}>
        <Text id={headingId} size="xs" fw={700} mb={4}>
          Columns of {label}
        </Text>
        <Stack gap={4} mah={320} style={{ overflowY: 'auto' }}>
          {order.map((name, index) => (
            <ColumnLine
              key={name}
              name={name}
              shown={shown.has(name)}
              only={shown.has(name) && shown.size === 1}
              first={index === 0}
              last={index === order.length - 1}
              onToggle={(on) => toggle(name, on)}
              onMove={(by) => move(index, by)}
            />
          ))}
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => onChange(undefined)}
            disabled={chosen === undefined}
          >
            Reset
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** A column in the menu: its box (shown or not; the last shown one stays) and its up and down buttons. */
function ColumnLine({
  name,
  shown,
  only,
  first,
  last,
  onToggle,
  onMove,
}: {
  name: string;
  shown: boolean;
  only: boolean;
  first: boolean;
  last: boolean;
  onToggle: (on: boolean) => void;
  onMove: (by: number) => void;
}) {
  return (
    <Group gap={4} wrap="nowrap" justify="space-between">
      <Checkbox
        size="xs"
        label={name}
        checked={shown}
        disabled={only}
        onChange={(event) => onToggle(event.currentTarget.checked)}
      />
      <Group gap={2} wrap="nowrap">
        <ActionIcon
          size="xs"
          variant="subtle"
          aria-label={`Move ${name} up`}
          disabled={first}
          onClick={() => onMove(-1)}
        >
          <span aria-hidden="true">↑</span>
        </ActionIcon>
        <ActionIcon
          size="xs"
          variant="subtle"
          aria-label={`Move ${name} down`}
          disabled={last}
          onClick={() => onMove(1)}
        >
          <span aria-hidden="true">↓</span>
        </ActionIcon>
      </Group>
    </Group>
  );
}
