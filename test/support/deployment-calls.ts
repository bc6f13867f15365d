import { request as httpRequest } from 'node:http';
import { API_PREFIX } from '@service/server';
import { expect } from 'vitest';
import { call } from './test-server.js';

export interface JobAnswer {
  job_id: string;
  status: string;
  finished_at: string | null;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Waits (polling, through `server`) until the job has ended; answers it. */
export async function jobEnd(server: { url: string }, token: string, jobId: string, timeout = 90_000) {
  let ended: JobAnswer | undefined;
  await expect
    .poll(
      async () => {
        const answer = await call<JobAnswer>(server, 'GET', `/jobs/${jobId}`, { token });
        if (answer.status === 200 && answer.body.finished_at !== null) ended = answer.body;
        return ended !== undefined;
      },
      { timeout, interval: 100 },
    )
    .toBe(true);
  return ended as JobAnswer;
}

/** A CSV of `count` rows `a,b` with ids from `from` and `label` in every row. */
export function csvRows(label: string, from: number, count: number): string {
  let text = 'a,b\n';
  for (let i = 0; i < count; i++) text += `${from + i},${label}\n`;
  return text;
}

/** Uploads a CSV as `t.csv` of run `run`; answers the new file's id. */
export async function upload(
  server: { url: string },
  token: string,
  collectionId: string,
  run: string,
  content: string,
): Promise<string> {
  const form = new FormData();
  form.append('run', run);
  form.append('path', 't.csv');
  form.append('file', new Blob([content]), 't.csv');
  const answer = await call<{ file_id: string }>(server, 'POST', `/datacollections/${collectionId}/files`, {
    token,
    form,
  });
  if (answer.status !== 201) throw new Error(`upload failed: ${answer.status} ${answer.text}`);
  return answer.body.file_id;
}

/** Rows of the table, how many distinct ids, and the id range: what a lost or doubled row changes. */
export async function tableTotals(server: { url: string }, token: string, collectionId: string) {
  const answer = await call<{ rows: Record<string, unknown>[] }>(
    server,
    'POST',
    `/datacollections/${collectionId}/aggregate`,
    {
      token,
      json: {
        aggregates: [
          { fn: 'count', as: 'rows' },
          { fn: 'nunique', column: 'a', as: 'ids' },
          { fn: 'min', column: 'a', as: 'low' },
          { fn: 'max', column: 'a', as: 'high' },
        ],
      },
    },
  );
  if (answer.status !== 200) throw new Error(`aggregate failed: ${answer.status} ${answer.text}`);
  const row = answer.body.rows[0] ?? {};
  return { rows: Number(row.rows), ids: Number(row.ids), low: Number(row.low), high: Number(row.high) };
}

/**
 * An upload whose body is sent in two halves, for a request that is in flight while something
 * happens: `sendRest()` sends the second half and answers the status.
 */
export function startSlowUpload(
  server: { url: string },
  token: string,
  collectionId: string,
  run: string,
  content: string,
): { sendRest(): Promise<number> } {
  let sendRest: (() => Promise<number>) | undefined;
  const boundary = `----deployment${Date.now()}`;
  const part = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const body = Buffer.from(
    `${part('run', run)}${part('path', 't.csv')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
  const url = new URL(`${server.url}${API_PREFIX}/datacollections/${collectionId}/files`);
  const status = new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': body.length,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.subarray(0, half));
    sendRest = () => {
      req.end(body.subarray(half));
      return status;
    };
  });
  return {
    sendRest: () => {
      if (!sendRest) throw new Error('the upload did not start');
      return sendRest();
    },
  };
}
