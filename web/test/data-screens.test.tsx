// @vitest-environment jsdom
import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, TokenStore } from '../src/api/client.js';
import { uploadWithProgress } from '../src/api/upload.js';
import { ErrorList } from '../src/components/ProjectActions.js';
import { IngestionPanel } from '../src/projects/IngestionPanel.js';
import { ADMIN, renderWith } from './support/render-with-api.js';

const RUNNING_JOB = {
  job_id: 'j1',
  kind: 'project.ingest',
  status: 'running',
  step: 'scan',
  detail: 'measure',
  progress: 0.25,
  project_id: 'p1',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  poll_after_seconds: 60,
};
const NO_RUNS = { items: [], total: 0, limit: 20, skip: 0 };

describe('Run ingestion button', () => {
  it('is hidden when the trigger is not enabled', async () => {
    renderWith(
      {
        '/projects/ingestion/trigger-status/p1': { enabled: false, available: false, reason: 'disabled' },
        '/projects/ingestion-runs/p1': NO_RUNS,
      },
      <IngestionPanel projectId="p1" />,
    );
    await screen.findByText('No ingestion has run yet.');
    expect(screen.queryByRole('button', { name: 'Run ingestion' })).toBeNull();
  });

  it('is disabled with its reason when not available', async () => {
    renderWith(
      {
        '/projects/ingestion/trigger-status/p1': { enabled: true, available: false, reason: 'forbidden' },
        '/projects/ingestion-runs/p1': NO_RUNS,
      },
      <IngestionPanel projectId="p1" />,
    );
    const button = await screen.findByRole('button', { name: 'Run ingestion' });
    expect(button.hasAttribute('disabled')).toBe(true);
    expect(screen.getByText(/Only the project’s editors and owners/)).toBeTruthy();
  });

  it('follows a run already going, lists the history, and cancels the job', async () => {
    const calls: string[] = [];
    const run = {
      run_id: 'r1',
      project_id: 'p1',
      job_id: 'j1',
      status: 'running',
      trigger: 'cli',
      triggered_by: 'u0',
      started_at: '2026-01-01T00:00:00.000Z',
      finished_at: null,
      overwrite: false,
      steps: [{ name: 'scan measure', status: 'running', started_at: null, finished_at: null, detail: '2 runs' }],
      data_collections: [],
      error: null,
    };
    renderWith(
      {
        '/projects/ingestion/trigger-status/p1': { enabled: true, available: true, reason: null },
        '/projects/ingestion-runs/p1': { items: [run], total: 1, limit: 20, skip: 0 },
        '/jobs/j1': RUNNING_JOB,
        '/jobs/j1/cancel': { ...RUNNING_JOB, status: 'cancelled', poll_after_seconds: null },
      },
      <IngestionPanel projectId="p1" />,
      calls,
    );
    await screen.findByLabelText('Job progress: 25%');
    expect(calls).toContain('GET /jobs/j1');
    expect(screen.getByText('scan — measure')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ingestion running…' })).toBeTruthy();
    expect(screen.getByRole('table', { name: 'Ingestion history' }).textContent).toMatch(/cli/);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await screen.findByLabelText('Job status: cancelled');
    expect(calls).toContain('POST /jobs/j1/cancel');
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
  });
});

describe('error list', () => {
  it('shows each field error as line:column path — message', () => {
    const error = new ApiError(400, 'validation_failed', 'the project.yaml is not valid', {
      type: 'urn:service:problem:validation_failed',
      title: 'Validation Failed',
      status: 400,
      code: 'validation_failed',
      errors: [
        { path: 'workflows[0].data_collections[1].pattern', message: 'Unterminated group', line: 14, column: 18 },
        { path: 'name', message: 'Required' },
      ],
    });
    render(
      <MantineProvider>
        <ErrorList error={error} title="Not imported" />
      </MantineProvider>,
    );
    const items = screen.getAllByRole('listitem').map((item) => item.textContent);
    expect(items).toEqual(['14:18 workflows[0].data_collections[1].pattern — Unterminated group', 'name — Required']);
    expect(screen.getByText('the project.yaml is not valid')).toBeTruthy();
  });
});

const okSchema = z.object({ ok: z.boolean() });

describe('upload with XMLHttpRequest', () => {
  class FakeXhr extends EventTarget {
    status = 0;
    responseText = '';
    readonly upload = new EventTarget();
    readonly headers: Record<string, string> = {};
    url = '';
    sent: unknown = null;
    open(_method: string, url: string) {
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }
    getResponseHeader() {
      return 'application/json';
    }
    send(body: unknown) {
      this.sent = body;
    }
    abort() {
      this.dispatchEvent(new Event('abort'));
    }
  }

  it('reports bytes sent, sends the token, and rejects as aborted on cancel', async () => {
    const tokens = new TokenStore(null);
    tokens.set({ access_token: 'at', refresh_token: 'rt', user: ADMIN as never });
    const fake = new FakeXhr();
    const seen: number[] = [];
    const handle = uploadWithProgress({
      path: '/datacollections/d1/files',
      form: new FormData(),
      schema: okSchema,
      tokens,
      onProgress: (progress) => seen.push(progress.loaded),
      xhr: () => fake as unknown as XMLHttpRequest,
    });
    const progress = new Event('progress') as Event & { loaded: number; total: number; lengthComputable: boolean };
    Object.assign(progress, { loaded: 512, total: 1024, lengthComputable: true });
    fake.upload.dispatchEvent(progress);
    expect(seen).toEqual([512]);
    expect(fake.url).toBe('/service/api/v1/datacollections/d1/files');
    expect(fake.headers.authorization).toBe('Bearer at');
    handle.abort();
    await expect(handle.done).rejects.toMatchObject({ code: 'aborted' });
  });

  it('settles with the parsed answer on load', async () => {
    const fake = new FakeXhr();
    const handle = uploadWithProgress({
      path: '/datacollections/d1/files',
      form: new FormData(),
      schema: okSchema,
      tokens: new TokenStore(null),
      xhr: () => fake as unknown as XMLHttpRequest,
    });
    expect(fake.headers.authorization).toBeUndefined();
    fake.status = 201;
    fake.responseText = '{"ok":true}';
    fake.dispatchEvent(new Event('load'));
    await expect(handle.done).resolves.toEqual({ ok: true });
  });
});
