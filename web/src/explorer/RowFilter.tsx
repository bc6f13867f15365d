import { Badge, Button, CloseButton, Group, NativeSelect, TextInput } from '@mantine/core';
import { useState } from 'react';
import { describeFilter, filterOf, needsValue, ROW_FILTER_OPERATORS, type RowFilterOperator } from './row-filter.js';
import type { ExplorerActions, ExplorerState } from './url-state.js';

/**
 * The preview's row filter (issue 26, item 11): a column, an operator and a value, applied by the
 * server in DuckDB and kept in the address bar. Several filters narrow together.
 */
export function RowFilter({
  columns,
  state,
  actions,
}: {
  columns: readonly string[];
  state: ExplorerState;
  actions: ExplorerActions;
}) {
  const [column, setColumn] = useState('');
  const [op, setOp] = useState<RowFilterOperator>('eq');
  const [value, setValue] = useState('');
  const chosen = column !== '' && columns.includes(column) ? column : (columns[0] ?? '');
  const ready = chosen !== '' && (!needsValue(op) || value.trim() !== '');
  const add = () => {
    if (!ready) return;
    actions.setFilters([...state.filters, filterOf(chosen, op, value.trim())]);
    setValue('');
  };
  return (
    <Group
      gap="xs"
      align="flex-end"
      component="form"
      onSubmit={(event) => {
        event.preventDefault();
        add();
      }}
    >
      <NativeSelect
        size="xs"
        label="Filter rows by"
        data={[...columns]}
        value={chosen}
        onChange={(event) => setColumn(event.currentTarget.value)}
      />
      <NativeSelect
        size="xs"
        label="Operator"
        data={ROW_FILTER_OPERATORS.map((operator) => ({ value: operator.value, label: operator.label }))}
        value={op}
        onChange={(event) => setOp(event.currentTarget.value as RowFilterOperator)}
      />
      {needsValue(op) && (
        <TextInput size="xs" label="Value" value={value} onChange={(event) => setValue(event.currentTarget.value)} />
      )}
      <Button size="xs" type="submit" disabled={!ready}>
        Add filter
      </Button>
      {state.filters.length > 0 && (
        <Group gap={4}>
          <Group gap={4} aria-label="Row filters" role="list">
            {state.filters.map((filter, index) => (
              <Badge
                key={JSON.stringify(filter)}
                role="listitem"
                variant="light"
                tt="none"
                size="lg"
                rightSection={
                  <CloseButton
                    size="xs"
                    aria-label={`Remove the filter ${describeFilter(filter)}`}
                    onClick={() => actions.setFilters(state.filters.filter((_, at) => at !== index))}
                  />
                }
              >
                {describeFilter(filter)}
              </Badge>
            ))}
          </Group>
          <CloseButton size="sm" aria-label="Remove every row filter" onClick={() => actions.setFilters([])} />
        </Group>
      )}
    </Group>
  );
}
