import { Alert, Checkbox, NativeSelect, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  type ColumnType,
  type DataFormat,
  dataCollectionListSchema,
  formatSchema,
  type Workflow,
} from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatBytes } from '../jobs/format.js';
import { CreateData } from './CreateData.js';
import type { AddDataPlan } from './create.js';
import { PreviewTable } from './PreviewTable.js';
import {
  DEFAULT_NULL_MARKERS,
  DELIMITERS,
  nullMarkersOf,
  PREVIEW_WHOLE_MAX_BYTES,
  previewable,
  readOptionsOf,
  tagProblem,
  typesEditable,
} from './plan.js';
import { type Preview, usePreviews } from './usePreview.js';

export interface AddDataProps {
  projectId: string;
  /** The project's workflows: the collection goes into the one chosen, or into a new one when there is none. */
  workflows: Workflow[];
  /** Create was pressed: the page keeps this screen open while what it makes appears around it. */
  onStarted: () => void;
  onClose?: () => void;
  /** Opens the new collection in the explorer. */
  onExplore: (collectionId: string) => void;
}

interface ReviewProps extends AddDataProps {
  /** The files of this collection: one format, the same columns. */
  files: File[];
  firstTag: string;
  firstFormat: DataFormat | null;
  /** The files chosen make several collections: this review says which files it holds. */
  several: boolean;
  /** The collection is made; `workflowId`: the workflow it went into (the next collections go there too). */
  onLocked: (workflowId: string | null) => void;
  /** A workflow another collection of the same files was made in. */
  madeWorkflowId: string | null;
}

/** How the files are read: `undefined` delimiter and header are as detected. */
export interface Reading {
  delimiter: string | undefined;
  header: boolean | undefined;
  nullText: string;
  emptyIsMissing: boolean;
}

export const FIRST_READING: Reading = {
  delimiter: undefined,
  header: undefined,
  nullText: DEFAULT_NULL_MARKERS.join(', '),
  emptyIsMissing: true,
};

/**
 * The read options of a reading: the preview's (`detected` unknown: what is not chosen is
 * detected) or the collection's (`detected`: what the preview read the files with).
 */
export function readOptionsFor(
  format: DataFormat,
  reading: Reading,
  types: Record<string, ColumnType>,
  detected: { delimiter?: string | undefined; header?: boolean | undefined } | undefined,
): Record<string, unknown> {
  return readOptionsOf({
    format,
    delimiter: detected === undefined ? reading.delimiter : detected.delimiter,
    header: detected === undefined ? reading.header : detected.header,
    nullMarkers: nullMarkersOf(reading.nullText, reading.emptyIsMissing),
    types,
  });
}

/** The first preview that failed, with its file's name. */
function firstFailure(files: readonly File[], previews: readonly Preview[]): { name: string; error: unknown } | null {
  const index = previews.findIndex((preview) => preview.isError);
  return index < 0 ? null : { name: files[index]?.name ?? '', error: previews[index]?.error };
}

/**
 * One collection to make from some of the chosen files: its name, format and workflow, how its
 * files are read, the first rows of each file (every file is read, so one that does not fit the
 * choices says so before anything is made), and Create.
 */
export function Review(props: ReviewProps) {
  const { files } = props;
  const [tag, setTag] = useState(props.firstTag);
  const [format, setFormat] = useState(props.firstFormat);
  const [reading, setReading] = useState<Reading>(FIRST_READING);
  const [types, setTypes] = useState<Record<string, ColumnType>>({});
  const [chosenWorkflowId, setWorkflowId] = useState<string | null>(null);
  const workflowId = chosenWorkflowId ?? props.madeWorkflowId ?? props.workflows[0]?.workflow_id ?? null;
  const [settledNullText] = useDebouncedValue(reading.nullText, 400);
  // Once the collection is made, its name, format, workflow and files stay; the reading may change.
  const [locked, setLocked] = useState(false);
  const settled = { ...reading, nullText: settledNullText };
  const readOptions = format === null ? {} : readOptionsFor(format, settled, types, undefined);
  const previews = usePreviews(
    props.projectId,
    files.map((file) => ({ file, format, readOptions })),
  );
  const detected = previews[0]?.data?.read_options;
  const unread = files.some(
    (file, index) => format !== null && previewable(file, format) && previews[index]?.data === undefined,
  );
  const failed = previews.some((preview) => preview.isError);
  const taken = useTakenNames(workflowId);
  const nameProblem =
    tagProblem(tag) ?? (!locked && taken.has(tag) ? 'the workflow already has a collection of this name' : null);
  const plan: AddDataPlan | null =
    format === null || nameProblem !== null || unread || failed
      ? null
      : {
          projectId: props.projectId,
          workflowId,
          tag,
          format,
          // What the preview was read with (the detected dialect included), and the types changed.
          readOptions: readOptionsFor(format, settled, types, detected ?? {}),
          files,
        };
  return (
    <Stack gap="sm" component="section" aria-label={`Collection ${tag}`}>
      {props.several && (
        <Text size="sm" fw={600}>
          {files.map((file) => file.name).join(', ')}
        </Text>
      )}
      <PlaceFields
        {...props}
        tag={tag}
        onTag={setTag}
        format={format}
        onFormat={setFormat}
        workflowId={workflowId}
        onWorkflow={setWorkflowId}
        locked={locked}
        problem={nameProblem}
      />
      {format !== null && typesEditable(format) && (
        <ReadingFields reading={reading} detected={detected} onReading={setReading} />
      )}
      <FileRows
        files={files}
        previews={previews}
        format={format}
        types={types}
        onType={(column, type) => setTypes((current) => ({ ...current, [column]: type }))}
      />
      <CreateData
        plan={plan}
        onStarted={props.onStarted}
        onExplore={props.onExplore}
        onLocked={(made) => {
          setLocked(true);
          props.onLocked(made);
        }}
      />
    </Stack>
  );
}

/** The names of the workflow's collections (the project page's own query of them: one request for both). */
function useTakenNames(workflowId: string | null): Set<string> {
  const api = useApi();
  const collections = useQuery({
    queryKey: ['datacollections', workflowId],
    queryFn: ({ signal }) =>
      api.request(`/workflows/${workflowId}/datacollections`, dataCollectionListSchema, {
        query: { limit: 200 },
        signal,
      }),
    enabled: workflowId !== null,
  });
  return new Set(collections.data?.items.map((collection) => collection.tag) ?? []);
}

/** Where the data goes: the collection's name, the files' format, the workflow. */
function PlaceFields(
  props: ReviewProps & {
    tag: string;
    onTag: (tag: string) => void;
    format: DataFormat | null;
    onFormat: (format: DataFormat) => void;
    workflowId: string | null;
    onWorkflow: (id: string) => void;
    locked: boolean;
    problem: string | null;
  },
) {
  const { format, locked, problem } = props;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
      <TextInput
        label="Collection name"
        description="The table’s name in the project"
        value={props.tag}
        disabled={locked}
        onChange={(event) => props.onTag(event.currentTarget.value)}
        error={props.tag === '' ? undefined : problem}
      />
      <NativeSelect
        label="Format"
        description="Told from the file’s name"
        data={[...(format === null ? [{ value: '', label: 'Choose…' }] : []), ...formatSchema.options]}
        value={format ?? ''}
        disabled={locked}
        onChange={(event) => props.onFormat(event.currentTarget.value as DataFormat)}
      />
      {props.workflows.length > 0 ? (
        <NativeSelect
          label="Workflow"
          description="Where the collection goes"
          data={props.workflows.map((workflow) => ({ value: workflow.workflow_id, label: workflow.name }))}
          value={props.workflowId ?? ''}
          disabled={locked}
          onChange={(event) => props.onWorkflow(event.currentTarget.value)}
        />
      ) : (
        <Text size="sm" c="dimmed">
          The project has no workflow yet: one named “Uploads” is made for these files.
        </Text>
      )}
    </SimpleGrid>
  );
}

/** How a CSV or TSV file is read: delimiter, header, missing-value markers. */
function ReadingFields({
  reading,
  detected,
  onReading,
}: {
  reading: Reading;
  detected: { delimiter?: string | undefined; header?: boolean | undefined } | undefined;
  onReading: (update: (current: Reading) => Reading) => void;
}) {
  const change = (part: Partial<Reading>) => onReading((current) => ({ ...current, ...part }));
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
      <NativeSelect
        label="Delimiter"
        data={delimiterOptions(reading.delimiter ?? detected?.delimiter)}
        value={reading.delimiter ?? detected?.delimiter ?? ','}
        onChange={(event) => change({ delimiter: event.currentTarget.value })}
      />
      <Checkbox
        mt="lg"
        label="The first line holds the column names"
        checked={reading.header ?? detected?.header ?? true}
        onChange={(event) => change({ header: event.currentTarget.checked })}
      />
      <TextInput
        label="Missing-value markers"
        description="Comma-separated; read as missing (∅)"
        value={reading.nullText}
        onChange={(event) => change({ nullText: event.currentTarget.value })}
      />
      <Checkbox
        mt="lg"
        label="Empty cells are missing"
        checked={reading.emptyIsMissing}
        onChange={(event) => change({ emptyIsMissing: event.currentTarget.checked })}
      />
    </SimpleGrid>
  );
}

function delimiterOptions(current: string | undefined) {
  if (current === undefined || DELIMITERS.some((option) => option.value === current)) return DELIMITERS;
  return [...DELIMITERS, { value: current, label: `“${current}”` }];
}

/**
 * Each file's first rows, one file at a time (**Rows of**), and the first file that cannot be read
 * with the choices, named.
 */
function FileRows(props: {
  files: readonly File[];
  previews: readonly Preview[];
  format: DataFormat | null;
  types: Record<string, ColumnType>;
  onType: (column: string, type: ColumnType) => void;
}) {
  const { files, previews, format } = props;
  const [shownIndex, setShownIndex] = useState(0);
  const preview = previews[shownIndex] ?? previews[0];
  const shownFile = files[shownIndex];
  const failure = firstFailure(files, previews);
  return (
    <>
      {failure !== null && (
        <Alert color="red" role="alert" title={`${failure.name} cannot be read this way`}>
          {errorMessage(failure.error)}
        </Alert>
      )}
      {files.length > 1 && (
        <NativeSelect
          label="Rows of"
          data={files.map((file, index) => ({ value: String(index), label: file.name }))}
          value={String(shownIndex)}
          onChange={(event) => setShownIndex(Number(event.currentTarget.value))}
          maw={360}
        />
      )}
      {preview !== undefined && (
        <PreviewArea
          preview={preview}
          editable={format !== null && typesEditable(format)}
          chosen={props.types}
          onType={props.onType}
          formatMissing={format === null}
          shown={format !== null && shownFile !== undefined && previewable(shownFile, format)}
        />
      )}
    </>
  );
}

function PreviewArea({
  preview,
  editable,
  onType,
  chosen,
  formatMissing,
  shown,
}: {
  preview: Preview;
  editable: boolean;
  chosen: Record<string, ColumnType>;
  onType: (column: string, type: ColumnType) => void;
  formatMissing: boolean;
  /** False for a Parquet or JSON file too big to send for a preview. */
  shown: boolean;
}) {
  if (formatMissing) return <Text c="dimmed">Choose the files’ format to see their first rows.</Text>;
  if (!shown) {
    return (
      <Text c="dimmed">
        A Parquet or JSON file over {formatBytes(PREVIEW_WHOLE_MAX_BYTES)} is not previewed (it would be sent whole):
        its columns and types show once the table is built.
      </Text>
    );
  }
  // Said above, in the alert that names the file.
  if (preview.isError) return <Text c="dimmed">This file cannot be read with these choices.</Text>;
  if (preview.data === undefined) return <Text c="dimmed">Reading the first rows…</Text>;
  return (
    <Stack gap={4}>
      <Text size="sm" c="dimmed">
        The first rows, as the table will hold them.
        {editable &&
          ' Types you change are kept in the collection’s definition; the others are detected again from every row when the table is built.'}
      </Text>
      <PreviewTable
        preview={preview.data}
        editable={editable}
        onType={onType}
        chosen={chosen}
        stale={preview.isFetching}
      />
    </Stack>
  );
}
