// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { JobsPage } from '../src/pages/JobsPage.js';
import { renderWith } from './support/render-with-api.js';

const job = (index: number) => ({
  job_id: `j${index}`,
  kind: 'project.ingest',
  status: 'success',
  step: null,
  detail: null,
  progress: 1,
  project_id: 'p1',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
  poll_after_seconds: null,
});

describe('the jobs page', () => {
  it('asks for the page chosen in its pagination', async () => {
    const calls: string[] = [];
    // 60 jobs: three pages of 25.
    const jobs = (url: URL) => {
      const skip = Number(url.searchParams.get('skip') ?? 0);
      return {
        items: Array.from({ length: Math.min(25, 60 - skip) }, (_, i) => job(skip + i)),
        total: 60,
        limit: 25,
        skip,
      };
    };
    renderWith({ '/jobs': jobs }, <JobsPage />, calls, ['/jobs']);
    fireEvent.click(await screen.findByRole('button', { name: '2' }));
    const skips = () =>
      calls
        .filter((call) => call.startsWith('GET /jobs?'))
        .map((call) => new URL(call.slice('GET '.length), 'http://localhost').searchParams.get('skip'));
    await waitFor(() => expect(skips()).toEqual(['0', '25']));
  });

  it('names its spinner as a status, so the name is announced and allowed', async () => {
    renderWith({ '/jobs': { items: [], total: 0, limit: 25, skip: 0 } }, <JobsPage />, [], ['/jobs']);
    expect(screen.getByRole('status', { name: 'Loading jobs' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading jobs' })).toBeNull());
  });
});
