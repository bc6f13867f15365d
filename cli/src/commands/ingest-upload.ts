import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { API_PREFIX } from '@service/server/basics';
import { progress } from '../progress.js';

/** A file of the results folder, as `service ingest` uploads it. */
export interface LocalFile {
  run: string;
  /** Relative to the run folder, `/`-separated. */
  path: string;
  absolute: string;
}

/** A file matched to the data collection whose pattern takes it. */
export interface Upload {
  file: LocalFile;
  collection: { data_collection_id: string };
}

interface UploadApi {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  token: string;
}

/** Progress goes to standard error; standard output carries only the magic link. */
const say = (line: string) => progress.line(line);

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Uploads each matched file, one bar over all their bytes; a file the collection already has with
 * the same content is skipped, so an interrupted run can simply be repeated.
 */
export async function uploadFiles(api: UploadApi, server: string, matched: readonly Upload[]): Promise<void> {
  const sizes = await Promise.all(matched.map(({ file }) => stat(file.absolute).then((info) => info.size)));
  const totalBytes = sizes.reduce((sum, size) => sum + size, 0);
  let doneBytes = 0;
  for (const [index, upload] of matched.entries()) {
    const size = sizes[index] ?? 0;
    const counter = `[${index + 1}/${matched.length}] ${upload.file.run}/${upload.file.path}`;
    if (await alreadyUploaded(api, upload)) {
      say(`${counter} already uploaded`);
    } else {
      const onSent = (sent: number) => progress.bar('Uploading', doneBytes + Math.min(sent, size), totalBytes, 'bytes');
      await sendFile(api.token, server, upload, onSent);
      say(`${counter} uploaded`);
    }
    doneBytes += size;
    progress.bar('Uploading', doneBytes, totalBytes, 'bytes');
  }
  progress.clear();
}

/** Whether the collection has this file (same path) with the same content (same SHA-256). */
async function alreadyUploaded(api: UploadApi, { file, collection }: Upload): Promise<boolean> {
  const existing = await api.call<{ items: { path: string; sha256: string; run_id: string }[] }>(
    'GET',
    `/datacollections/${collection.data_collection_id}/files?limit=200`,
  );
  const digest = await sha256(file.absolute);
  return existing.items.some((item) => item.path === file.path && item.sha256 === digest);
}

/** `POST /datacollections/{id}/files`, streamed from disk; `onSent` hears the bytes sent so far. */
async function sendFile(
  token: string,
  server: string,
  { file, collection }: Upload,
  onSent: (sent: number) => void,
): Promise<void> {
  const form = new FormData();
  form.append('run', file.run);
  form.append('path', file.path);
  // A file-backed blob: the upload streams from disk instead of loading the file. The
  // encoded form is streamed through a counter that moves the bar as bytes go out.
  form.append('file', await openAsBlob(file.absolute), basename(file.path));
  const encoded = new Response(form);
  let sent = 0;
  const counted = encoded.body?.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        onSent(sent);
        controller.enqueue(chunk);
      },
    }),
  );
  const response = await fetch(`${server}${API_PREFIX}/datacollections/${collection.data_collection_id}/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': encoded.headers.get('content-type') ?? 'multipart/form-data',
    },
    body: counted ?? null,
    duplex: 'half',
  });
  if (!response.ok)
    throw new Error(`uploading ${file.run}/${file.path} failed: ${response.status} ${await response.text()}`);
}
