import { Alert, Button, Loader, Table, Text, VisuallyHidden } from '@mantine/core';
import { type QueryKey, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../api/client.js';

/** Draws a Revoke button for one item: its id and the accessible name that says which. */
export type RevokeButton = (id: string, label: string) => ReactNode;

/**
 * A list of secrets' records that each can be revoked (access tokens, embed tokens): loaded once,
 * with its loading, error and empty states, and a Revoke button per row that refreshes the list.
 * The caller says what a row shows.
 */
export function RevocableTable<T>({
  queryKey,
  load,
  revoke,
  names,
  headers,
  minWidth,
  renderRow,
}: {
  queryKey: QueryKey;
  load: (signal: AbortSignal) => Promise<{ items: T[] }>;
  revoke: (id: string) => Promise<void>;
  /** How messages name the list: "your tokens", "the embed tokens"; `table` is the table's label. */
  names: { list: string; empty: string; table: string };
  headers: readonly string[];
  minWidth: number;
  renderRow: (item: T, revokeButton: RevokeButton) => ReactNode;
}) {
  const client = useQueryClient();
  const items = useQuery({ queryKey, queryFn: ({ signal }) => load(signal) });
  const revoking = useMutation({
    mutationFn: revoke,
    onSettled: () => client.invalidateQueries({ queryKey }),
  });
  if (items.isPending) return <Loader size="sm" aria-label={`Loading ${names.list}`} />;
  if (items.isError) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${names.list}`}>
        {errorMessage(items.error)}
      </Alert>
    );
  }
  if (items.data.items.length === 0) return <Text c="dimmed">{names.empty}</Text>;
  const revokeButton: RevokeButton = (id, label) => (
    <Button
      size="compact-xs"
      variant="subtle"
      color="red"
      loading={revoking.isPending && revoking.variables === id}
      aria-label={label}
      onClick={() => revoking.mutate(id)}
    >
      Revoke
    </Button>
  );
  return (
    <>
      {revoking.isError && (
        <Alert color="red" role="alert" title="Could not revoke the token">
          {errorMessage(revoking.error)}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={minWidth}>
        <Table aria-label={names.table} striped>
          <Table.Thead>
            <Table.Tr>
              {headers.map((header) => (
                <Table.Th key={header}>{header}</Table.Th>
              ))}
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>{items.data.items.map((item) => renderRow(item, revokeButton))}</Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
