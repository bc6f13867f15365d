import { Alert, CloseButton, Group, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { formatBytes } from '../jobs/format.js';
import { FilePicker } from './FilePicker.js';
import { type FileGroup, formatOfName, groupFiles, proposeTags } from './plan.js';
import { type AddDataProps, FIRST_READING, Review, readOptionsFor } from './Review.js';
import { usePreviews } from './usePreview.js';

export type { AddDataProps };

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
 * Add data (issue 26): files dropped or picked, each file's first rows as the table would read
 * them with each column's type, the choices that change that reading, then Create. Files whose
 * columns differ become collections of their own. Its own chunk (`adddata/lazy.tsx`): only
 * editors who open it download it.
 */
export function AddData(props: AddDataProps) {
  const [files, setFiles] = useState<File[]>([]);
  return (
    <Section onClose={props.onClose}>
      {files.length === 0 ? (
        <FilePicker onFiles={setFiles} />
      ) : (
        <Collections
          // A new choice of files starts the review afresh.
          key={files.map((file) => `${file.name}:${file.size}`).join('|')}
          {...props}
          files={files}
          onFiles={setFiles}
        />
      )}
    </Section>
  );
}

/**
 * Every file read as first proposed, then split by format and column names: one review (name,
 * reading, types, Create) per collection to make.
 */
function Collections(props: AddDataProps & { files: File[]; onFiles: (files: File[]) => void }) {
  const { files } = props;
  const previews = usePreviews(
    props.projectId,
    files.map((file) => {
      const format = formatOfName(file.name);
      return { file, format, readOptions: format === null ? {} : readOptionsFor(format, FIRST_READING, {}, undefined) };
    }),
  );
  const [locked, setLocked] = useState(false);
  // The first collection made without a workflow makes one; the next ones go into it.
  const [madeWorkflowId, setMadeWorkflowId] = useState<string | null>(null);
  const reading = previews.some((preview) => preview.isPending && preview.fetchStatus === 'fetching');
  const groups: FileGroup<File>[] = reading
    ? []
    : groupFiles(files, (_file, index) => previews[index]?.data?.columns.map((column) => column.name) ?? null);
  const tags = proposeTags(groups);
  return (
    <Stack gap="sm">
      <FileList files={files} onFiles={props.onFiles} locked={locked} />
      {reading && <Text c="dimmed">Reading the files…</Text>}
      {groups.length > 1 && (
        <Alert color="blue" title={`${groups.length} collections`}>
          These files do not all have the same columns (or format): each set becomes a collection of its own, with its
          own name. Create each one below.
        </Alert>
      )}
      {groups.map((group, index) => (
        <Review
          key={group.files.map((file) => file.name).join('|')}
          {...props}
          files={group.files}
          firstTag={tags[index] ?? 'data'}
          firstFormat={group.format}
          several={groups.length > 1}
          madeWorkflowId={madeWorkflowId}
          onLocked={(workflowId) => {
            setLocked(true);
            setMadeWorkflowId(workflowId);
          }}
        />
      ))}
    </Stack>
  );
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
