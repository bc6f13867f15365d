import {
  Alert,
  Checkbox,
  CloseButton,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  type ColumnType,
  type DataFormat,
  dataCollectionListSchema,
  formatSchema,
  type Workflow,
} from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatBytes } from '../jobs/format.js';
import { CreateData } from './CreateData.js';
import type { AddDataPlan } from './create.js';
import { FilePicker } from './FilePicker.js';
import { PreviewTable } from './PreviewTable.js';
import {
  DEFAULT_NULL_MARKERS,
  DELIMITERS,
  formatOfName,
  nullMarkersOf,
  PREVIEW_WHOLE_MAX_BYTES,
  previewable,
  proposeTag,
  readOptionsOf,
  tagProblem,
  typesEditable,
} from './plan.js';
import { usePreview } from './usePreview.js';

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

function Section({ children, onClose }: { children: ReactNode; onClose?: (() => void) | undefined }) {
  return (
    <Stack component="section" aria-labelledby="add-data-title" gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h3" id="add-data-title">
          Add data
        </Title>
        {onClose && <CloseButton aria-label="Close Add data" onClick={onClose} />}
      </Group>
      {children}
    </Stack>
  );
}

/**
 * Add data (issue 26): files dropped or picked, their first rows as the table would read them with
 * each column's type, the choices that change that reading, then Create. Its own chunk
 * (`adddata/lazy.tsx`): only editors who open it download it.
 */
export function AddData(props: AddDataProps) {
  const [files, setFiles] = useState<File[]>([]);
  const [tag, setTag] = useState('');
  const [format, setFormat] = useState<DataFormat | null>(null);
  const choose = (chosen: File[]) => {
    setFiles(chosen);
    setTag(proposeTag(chosen.map((file) => file.name)));
    setFormat(formatOfName(chosen[0]?.name ?? ''));
  };
  return (
    <Section onClose={props.onClose}>
      {files.length === 0 ? (
        <FilePicker onFiles={choose} />
      ) : (
        <Review
          // A new choice of files starts the review afresh.
          key={files.map((file) => `${file.name}:${file.size}`).join('|')}
          {...props}
          files={files}
          tag={tag}
          onTag={setTag}
          format={format}
          onFormat={setFormat}
          onFiles={choose}
        />
      )}
    </Section>
  );
}

interface ReviewProps extends AddDataProps {
  files: File[];
  tag: string;
  onTag: (tag: string) => void;
  format: DataFormat | null;
  onFormat: (format: DataFormat) => void;
  onFiles: (files: File[]) => void;
}

/** How the files are read: `undefined` delimiter and header are as detected. */
interface Reading {
  delimiter: string | undefined;
  header: boolean | undefined;
  nullText: string;
  emptyIsMissing: boolean;
}

const FIRST_READING: Reading = {
  delimiter: undefined,
  header: undefined,
  nullText: DEFAULT_NULL_MARKERS.join(', '),
  emptyIsMissing: true,
};

function Review(props: ReviewProps) {
  const { files, format } = props;
  const [reading, setReading] = useState<Reading>(FIRST_READING);
  const [types, setTypes] = useState<Record<string, ColumnType>>({});
  const [workflowId, setWorkflowId] = useState<string | null>(props.workflows[0]?.workflow_id ?? null);
  const [settledNullText] = useDebouncedValue(reading.nullText, 400);
  // Once the collection is made, its name, format, workflow and files stay; the reading may change.
  const [locked, setLocked] = useState(false);
  const nullMarkers = nullMarkersOf(settledNullText, reading.emptyIsMissing);
  const { delimiter, header } = reading;
  const readOptions = format === null ? {} : readOptionsOf({ format, delimiter, header, nullMarkers, types });
  const preview = usePreview(props.projectId, files[0], format, readOptions);
  const mixed = new Set(files.map((file) => formatOfName(file.name))).size > 1;
  const detected = preview.data?.read_options;
  const shown = format !== null && files[0] !== undefined && previewable(files[0], format);
  const taken = useTakenNames(workflowId);
  const nameProblem =
    tagProblem(props.tag) ??
    (!locked && taken.has(props.tag) ? 'the workflow already has a collection of this name' : null);
  const plan: AddDataPlan | null =
    format === null || mixed || nameProblem !== null || (shown && preview.data === undefined) || preview.isError
      ? null
      : {
          projectId: props.projectId,
          workflowId,
          tag: props.tag,
          format,
          // What the preview was read with (the detected dialect included), and the types changed.
          readOptions: readOptionsOf({
            format,
            delimiter: detected?.delimiter,
            header: detected?.header,
            nullMarkers,
            types,
          }),
          files,
        };
  return (
    <Stack gap="sm">
      <FileList files={files} onFiles={props.onFiles} locked={locked} />
      {mixed && (
        <Alert color="orange" role="alert" title="Files of different kinds">
          One collection holds files of one kind: add the CSV, TSV, Parquet and JSON files separately.
        </Alert>
      )}
      <PlaceFields
        {...props}
        workflowId={workflowId}
        onWorkflow={setWorkflowId}
        locked={locked}
        problem={nameProblem}
      />
      {format !== null && typesEditable(format) && (
        <ReadingFields reading={reading} detected={detected} onReading={setReading} />
      )}
      <PreviewArea
        preview={preview}
        editable={format !== null && typesEditable(format)}
        chosen={types}
        onType={(column, type) => setTypes((current) => ({ ...current, [column]: type }))}
        formatMissing={format === null}
        shown={shown}
        several={files.length > 1}
      />
      <CreateData
        plan={plan}
        onStarted={props.onStarted}
        onExplore={props.onExplore}
        onLocked={() => setLocked(true)}
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

function FileList({ files, onFiles, locked }: { files: File[]; onFiles: (files: File[]) => void; locked: boolean }) {
  return (
    <Group justify="space-between" align="flex-start">
      <Stack gap={2} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Chosen files">
        {files.map((file) => (
          <li key={`${file.name}:${file.size}`}>
            <Text size="sm">
              {file.name}{' '}
              <Text span c="dimmed" size="xs">
                {formatBytes(file.size)}
              </Text>
            </Text>
          </li>
        ))}
      </Stack>
      {!locked && <FilePicker onFiles={onFiles} compact />}
    </Group>
  );
}

function PreviewArea({
  preview,
  editable,
  onType,
  chosen,
  formatMissing,
  shown,
  several,
}: {
  preview: ReturnType<typeof usePreview>;
  editable: boolean;
  chosen: Record<string, ColumnType>;
  onType: (column: string, type: ColumnType) => void;
  formatMissing: boolean;
  /** False for a Parquet or JSON file too big to send for a preview. */
  shown: boolean;
  several: boolean;
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
  if (preview.isError) {
    return (
      <Alert color="red" role="alert" title="The file cannot be read this way">
        {errorMessage(preview.error)}
      </Alert>
    );
  }
  if (preview.data === undefined) return <Text c="dimmed">Reading the first rows…</Text>;
  return (
    <Stack gap={4}>
      <Text size="sm" c="dimmed">
        The first rows{several ? ' of the first file' : ''}, as the table will hold them.
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
