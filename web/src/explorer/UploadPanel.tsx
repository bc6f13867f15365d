import { Alert, Button, FileInput, Group, Progress, Stack, Text, TextInput } from '@mantine/core';
import { type DataCollection, fileSchema, upsertAnswerSchema, userSchema } from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { z } from 'zod';
import { errorMessage, isApiError } from '../api/client.js';
import { type UploadHandle, type UploadProgress, uploadWithProgress } from '../api/upload.js';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';
import { formatBytes } from '../jobs/format.js';
import { PathFitOffer, usePathFit } from './PathFitOffer.js';
import { invalidateTableQueries } from './queries.js';

type Uploaded = z.infer<typeof fileSchema>;

/**
 * Sending one file with its progress, cancellable: before the token check (`cancelledEarly`) or
 * while the bytes go (the handle aborts the request).
 */
function useFileUpload(collection: DataCollection, setError: (error: string | null) => void) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [uploaded, setUploaded] = useState<Uploaded | null>(null);
  const [uploading, setUploading] = useState(false);
  const handle = useRef<UploadHandle<Uploaded> | null>(null);
  // Cancel pressed before the request went out (during the token check).
  const cancelledEarly = useRef(false);

  const begin = (file: File) => {
    setError(null);
    setUploaded(null);
    setUploading(true);
    cancelledEarly.current = false;
    setProgress({ loaded: 0, total: file.size });
  };
  const stopCancelled = () => {
    setError('Upload cancelled.');
    setProgress(null);
    setUploading(false);
  };

  async function upload(file: File, run: string, chosenPath: string) {
    begin(file);
    await refreshTokens(api);
    if (cancelledEarly.current) return stopCancelled();
    const current = uploadWithProgress({
      path: `/datacollections/${collection.data_collection_id}/files`,
      form: uploadForm(file, run, chosenPath),
      schema: fileSchema,
      tokens: api.tokens,
      onProgress: setProgress,
    });
    handle.current = current;
    try {
      setUploaded(await current.done);
      // An upload may make ingestion available (reason `no_data` before).
      void queryClient.invalidateQueries({ queryKey: ['ingestion-status', collection.project_id] });
    } catch (failure) {
      setError(isApiError(failure, 'aborted') ? 'Upload cancelled.' : errorMessage(failure));
      setProgress(null);
    } finally {
      handle.current = null;
      setUploading(false);
    }
  }

  const cancel = () => {
    if (handle.current === null) cancelledEarly.current = true;
    else handle.current.abort();
  };
  return { upload, cancel, progress, uploaded, uploading };
}

/** A cheap authenticated call first, so an expired access token is refreshed before the upload. */
async function refreshTokens(api: ReturnType<typeof useApi>) {
  if (api.tokens.get() === null) return;
  try {
    await api.request('/auth/me', userSchema);
  } catch {
    // The upload itself reports what is wrong.
  }
}

function uploadForm(file: File, run: string, chosenPath: string): FormData {
  const form = new FormData();
  if (run.trim() !== '') form.append('run', run.trim());
  if (chosenPath.trim() !== '') form.append('path', chosenPath.trim());
  form.append('file', file, file.name);
  return form;
}

/** Upload one file into a data collection (editors), then offer to update its table. */
export function UploadPanel({ collection }: { collection: DataCollection }) {
  const [file, setFile] = useState<File | null>(null);
  const [run, setRun] = useState('');
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { upload, cancel, progress, uploaded, uploading } = useFileUpload(collection, setError);
  const start = async (chosenPath: string) => {
    if (file !== null) await upload(file, run, chosenPath);
  };
  // Asked before any bytes are sent: a path the pattern does not take is offered the ways to fit.
  const fitting = usePathFit(collection.data_collection_id, setError, (chosenPath) => start(chosenPath));
  const { misfit, widening } = fitting;
  const chooseFile = (chosen: File | null) => {
    // A path typed or offered for the previous file is not this one's.
    setFile(chosen);
    setPath('');
    fitting.dismiss();
  };

  return (
    <Stack gap="xs" component="section" aria-label="Upload a file">
      <Text fw={600} size="sm">
        Upload a file
      </Text>
      <UploadFields
        file={[file, chooseFile]}
        run={[run, setRun]}
        path={[path, setPath]}
        uploading={uploading}
        onCancel={cancel}
        onUpload={() => file !== null && void fitting.check(path, file.name)}
        uploadDisabled={file === null || widening}
      />
      {progress !== null && (
        <UploadProgressLine
          progress={progress}
          total={progress.total || file?.size || 0}
          uploaded={uploaded}
          uploading={uploading}
        />
      )}
      {misfit && (
        <PathFitOffer
          fit={misfit}
          busy={widening}
          onWiden={(pattern) => void fitting.widen(pattern, path)}
          onRename={(renamed) => {
            setPath(renamed);
            fitting.dismiss();
            void start(renamed);
          }}
          onDismiss={fitting.dismiss}
        />
      )}
      {error && (
        <Alert color="red" role="alert" title="Upload failed">
          {error}
        </Alert>
      )}
      {/* A new upload clears `uploaded`, and with it the last update's outcome. */}
      {uploaded && <UpdateTable collection={collection} />}
    </Stack>
  );
}

type Field<T> = [T, (value: T) => void];

/** The file, its run tag and path, and Upload (or, while sending, Cancel upload). */
function UploadFields({
  file: [file, chooseFile],
  run: [run, setRun],
  path: [path, setPath],
  uploading,
  onCancel,
  onUpload,
  uploadDisabled,
}: {
  file: Field<File | null>;
  run: Field<string>;
  path: Field<string>;
  uploading: boolean;
  onCancel: () => void;
  onUpload: () => void;
  uploadDisabled: boolean;
}) {
  return (
    <Group align="flex-end" gap="xs">
      <FileInput
        label="File"
        placeholder="Choose a file"
        value={file}
        onChange={chooseFile}
        clearable
        disabled={uploading}
        w={240}
      />
      <TextInput
        label="Run tag"
        placeholder="uploads"
        value={run}
        onChange={(event) => setRun(event.currentTarget.value)}
        disabled={uploading}
        w={140}
      />
      <TextInput
        label="Path in the run"
        placeholder="the file’s name"
        value={path}
        onChange={(event) => setPath(event.currentTarget.value)}
        disabled={uploading}
        w={200}
      />
      {uploading ? (
        <Button color="red" variant="light" onClick={onCancel}>
          Cancel upload
        </Button>
      ) : (
        <Button onClick={onUpload} disabled={uploadDisabled}>
          Upload
        </Button>
      )}
    </Group>
  );
}

function UploadProgressLine({
  progress,
  total,
  uploaded,
  uploading,
}: {
  progress: UploadProgress;
  total: number;
  uploaded: Uploaded | null;
  uploading: boolean;
}) {
  const percent = total > 0 ? Math.min(100, (progress.loaded / total) * 100) : 0;
  return (
    <Stack gap={2}>
      <Progress
        value={uploaded ? 100 : percent}
        animated={uploading}
        striped={uploading}
        aria-label={`Upload progress: ${Math.round(uploaded ? 100 : percent)}%`}
      />
      <Text size="xs" c="dimmed">
        {uploaded
          ? `Uploaded ${uploaded.path} (${formatBytes(uploaded.size)})`
          : `${formatBytes(progress.loaded)} of ${formatBytes(total)} sent`}
      </Text>
    </Stack>
  );
}

/** "Update table" after an upload: an upsert of the collection's table, with its outcome. */
function UpdateTable({ collection }: { collection: DataCollection }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const upsert = useMutation({
    mutationFn: () =>
      api.request('/deltatables/upsert', upsertAnswerSchema, {
        json: { data_collection_id: collection.data_collection_id },
      }),
    onSuccess: () => {
      invalidateTableQueries(queryClient, collection.data_collection_id);
    },
  });
  return (
    <Group gap="xs">
      <Button variant="light" loading={upsert.isPending} onClick={() => upsert.mutate()}>
        Update table
      </Button>
      {upsert.data && (
        <Text size="sm" c="teal">
          Table updated: version {upsert.data.version ?? '—'}, {formatCount(upsert.data.rows)} rows.
        </Text>
      )}
      {upsert.isError && <Text c="red">{errorMessage(upsert.error)}</Text>}
    </Group>
  );
}
