import { Alert, Button, Checkbox, Group, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import {
  COLUMN_TYPES,
  type ColumnType,
  type DataCollection,
  dataCollectionSchema,
  fileListSchema,
  filePreviewSchema,
  upsertAnswerSchema,
} from '@service/common';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { PreviewTable } from '../adddata/PreviewTable.js';
import { nullMarkersOf } from '../adddata/plan.js';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';
import { invalidateTableQueries } from './queries.js';

/** What a collection reads its files with today: its types (ours by name) and its null markers as typed. */
export function currentReading(collection: DataCollection) {
  const options = collection.read_options as { null_values?: string[]; columns?: Record<string, string> };
  const types = Object.fromEntries(
    Object.entries(options.columns ?? {}).filter(([, type]) => Object.hasOwn(COLUMN_TYPES, type)),
  ) as Record<string, ColumnType>;
  // Without null markers, DuckDB takes an empty cell as missing and nothing else.
  const markers = options.null_values ?? [''];
  return {
    types,
    markersText: markers.filter((marker) => marker !== '').join(', '),
    emptyIsMissing: markers.includes(''),
  };
}

/**
 * Fixing a table later (issue 26, item 2): the newest file read with the chosen types and null
 * markers, then the table rebuilt from every file with them (`overwrite`: a new version, whose
 * schema may differ; time travel still reads the old one). The choices go into the collection's
 * `read_options`, so project.yaml and every later upsert read the files the same way.
 */
export function FixTypesButton({ collection }: { collection: DataCollection }) {
  const [open, setOpen] = useState(false);
  if (collection.type !== 'table' || (collection.format !== 'csv' && collection.format !== 'tsv')) return null;
  return (
    <>
      <Button size="xs" variant="light" onClick={() => setOpen(true)}>
        Fix types…
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Fix the types of ${collection.tag}`} size="xl">
        {open && <FixTypesForm collection={collection} onDone={() => setOpen(false)} />}
      </Modal>
    </>
  );
}

function FixTypesForm({ collection, onDone }: { collection: DataCollection; onDone: () => void }) {
  const initial = currentReading(collection);
  const [types, setTypes] = useState(initial.types);
  const [markersText, setMarkersText] = useState(initial.markersText);
  const [emptyIsMissing, setEmptyIsMissing] = useState(initial.emptyIsMissing);
  const readOptions = {
    ...collection.read_options,
    null_values: nullMarkersOf(markersText, emptyIsMissing),
    ...(Object.keys(types).length === 0 ? {} : { columns: types }),
  };
  const preview = useNewestFilePreview(collection.data_collection_id, fileReadOptions(readOptions));
  const rebuild = useRebuild(collection, readOptions);
  return (
    <Stack gap="sm">
      <Text size="sm">
        Choose each column’s type and which values mean “missing”. The table is then built again from every file: a new
        version, while earlier versions keep their types.
      </Text>
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Missing values"
          description="Comma-separated, e.g. NA, N/A, null"
          value={markersText}
          onChange={(event) => setMarkersText(event.currentTarget.value)}
          w={260}
        />
        <Checkbox
          label="Empty cells are missing"
          checked={emptyIsMissing}
          onChange={(event) => setEmptyIsMissing(event.currentTarget.checked)}
        />
      </Group>
      {preview.isPending && preview.fetchStatus !== 'idle' && <Loader size="sm" aria-label="Reading the newest file" />}
      {preview.isError && (
        <Alert color="red" role="alert" title="The newest file cannot be read this way">
          {errorMessage(preview.error)}
        </Alert>
      )}
      {preview.data && (
        <PreviewTable
          preview={preview.data}
          editable
          chosen={types}
          onType={(column, type) => setTypes((current) => ({ ...current, [column]: type }))}
          stale={preview.isPlaceholderData || preview.isFetching}
        />
      )}
      {rebuild.isError && (
        <Alert color="red" role="alert" title="The table was not rebuilt">
          {errorMessage(rebuild.error)}
        </Alert>
      )}
      {rebuild.data && (
        <Alert color="teal" title="Table rebuilt">
          Version {rebuild.data.version ?? '—'}, {formatCount(rebuild.data.rows)} rows. Earlier versions are under
          Versions.
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          {rebuild.data ? 'Done' : 'Cancel'}
        </Button>
        <Button loading={rebuild.isPending} disabled={preview.isError} onClick={() => rebuild.mutate()}>
          Save and rebuild the table
        </Button>
      </Group>
    </Stack>
  );
}

/** The options that read the file's own columns: derived ones (docs/project-yaml.md "Rules") have no type to choose. */
function fileReadOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([key]) => key !== 'derive'));
}

/** The newest file of the collection, read as it would be with `readOptions` (before any rebuild). */
function useNewestFilePreview(collectionId: string, readOptions: Record<string, unknown>) {
  const api = useApi();
  const newest = useQuery({
    queryKey: ['collection-files', collectionId, 'newest'],
    queryFn: ({ signal }) =>
      api.request(`/datacollections/${collectionId}/files`, fileListSchema, { query: { limit: 1 }, signal }),
  });
  const fileId = newest.data?.items[0]?.file_id;
  const options = JSON.stringify({ read_options: readOptions, limit: 20 });
  return useQuery({
    queryKey: ['file-preview', fileId, options],
    queryFn: ({ signal }) =>
      api.request(`/files/${fileId}/preview`, filePreviewSchema, { json: JSON.parse(options), signal }),
    enabled: fileId !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/** Saves the read options, then rebuilds the table from every file with them. */
function useRebuild(collection: DataCollection, readOptions: Record<string, unknown>) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const save = (options: Record<string, unknown>) =>
        api.request(`/datacollections/${collection.data_collection_id}`, dataCollectionSchema, {
          method: 'PATCH',
          json: { read_options: options },
        });
      await save(readOptions);
      try {
        return await api.request('/deltatables/upsert', upsertAnswerSchema, {
          json: { data_collection_id: collection.data_collection_id, overwrite: true },
        });
      } catch (failure) {
        // The table stayed as it was: so do the choices it was built with.
        await save(collection.read_options).catch(() => undefined);
        throw failure;
      } finally {
        void queryClient.invalidateQueries({ queryKey: ['datacollections'] });
      }
    },
    onSuccess: () => {
      invalidateTableQueries(queryClient, collection.data_collection_id);
      void queryClient.invalidateQueries({ queryKey: ['schema', collection.data_collection_id] });
    },
  });
}
