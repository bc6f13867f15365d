import { fileSchema } from '@service/common';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client.js';
import { readXhrAnswer } from '../src/api/upload.js';
import {
  formatBytes,
  formatDuration,
  formatFieldError,
  jobEnded,
  jobProgress,
  jobRefetchInterval,
  jobStepText,
  pollInterval,
  statusColor,
  triggerReasonText,
} from '../src/jobs/format.js';

describe('job progress', () => {
  it('shows a percentage while running with a known progress', () => {
    expect(jobProgress({ status: 'running', progress: 0.426 })).toEqual({ value: 42.6, label: '43%', animated: true });
  });
  it('shows an animated full bar when the task cannot tell', () => {
    expect(jobProgress({ status: 'running', progress: null })).toEqual({
      value: 100,
      label: 'Working…',
      animated: true,
    });
  });
  it('waits for a worker while pending', () => {
    expect(jobProgress({ status: 'pending', progress: null })).toMatchObject({ value: 0, animated: false });
  });
  it('is full on success and names the end otherwise', () => {
    expect(jobProgress({ status: 'success', progress: 0.5 })).toEqual({ value: 100, label: '100%', animated: false });
    expect(jobProgress({ status: 'failed', progress: 0.3 })).toEqual({ value: 30, label: 'Failed', animated: false });
    expect(jobProgress({ status: 'cancelled', progress: null })).toEqual({
      value: 0,
      label: 'Cancelled',
      animated: false,
    });
  });
  it('clamps nonsense', () => {
    expect(jobProgress({ status: 'running', progress: 7 }).value).toBe(100);
    expect(jobProgress({ status: 'running', progress: -1 }).value).toBe(0);
    expect(jobProgress({ status: 'running', progress: Number.NaN }).value).toBe(0);
  });
  it('joins step and detail', () => {
    expect(jobStepText({ step: 'scan', detail: '3 files' })).toBe('scan — 3 files');
    expect(jobStepText({ step: 'scan', detail: null })).toBe('scan');
    expect(jobStepText({ step: null, detail: null })).toBe('');
  });
});

describe('polling', () => {
  it('follows poll_after_seconds and stops once the job ended', () => {
    expect(pollInterval(undefined)).toBe(1000);
    expect(pollInterval({ status: 'running', poll_after_seconds: 2 })).toBe(2000);
    expect(pollInterval({ status: 'pending', poll_after_seconds: 0 })).toBe(250);
    expect(pollInterval({ status: 'success', poll_after_seconds: null })).toBe(false);
    expect(pollInterval({ status: 'cancelled', poll_after_seconds: 5 })).toBe(false);
    expect(pollInterval({ status: 'running', poll_after_seconds: null })).toBe(false);
  });

  it('asks for an unfinished job every 15 s while the page’s stream is open, never for an ended one', () => {
    expect(jobRefetchInterval({ status: 'running', poll_after_seconds: 2 }, true)).toBe(15_000);
    expect(jobRefetchInterval(undefined, true)).toBe(15_000);
    expect(jobRefetchInterval({ status: 'success', poll_after_seconds: null }, true)).toBe(false);
    expect(jobRefetchInterval({ status: 'running', poll_after_seconds: 2 }, false)).toBe(2000);
  });
  it('knows which states are final', () => {
    expect(['pending', 'running', 'success', 'failed', 'cancelled'].map((s) => jobEnded(s as never))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('formatting', () => {
  it('writes field errors as line:column path — message', () => {
    expect(
      formatFieldError({
        path: 'workflows[0].data_collections[1].pattern',
        message: 'Invalid regular expression',
        line: 14,
        column: 18,
      }),
    ).toBe('14:18 workflows[0].data_collections[1].pattern — Invalid regular expression');
    expect(formatFieldError({ path: 'name', message: 'Required' })).toBe('name — Required');
    expect(formatFieldError({ path: '', message: 'bad indentation', line: 3 })).toBe('3:1 bad indentation');
  });
  it('writes sizes and durations', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(2_500_000)).toBe('2.5 MB');
    expect(formatBytes(250_000_000)).toBe('250 MB');
    expect(formatDuration('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:03.200Z')).toBe('3.2 s');
    expect(formatDuration('2026-01-01T00:00:00.000Z', '2026-01-01T00:02:05.000Z')).toBe('2 min 5 s');
    expect(formatDuration(null, '2026-01-01T00:00:00.000Z')).toBeNull();
  });
  it('colors and explains', () => {
    expect(statusColor('success')).toBe('teal');
    expect(statusColor('partial')).toBe('orange');
    expect(statusColor('failed')).toBe('red');
    expect(triggerReasonText('forbidden')).toMatch(/editors/);
    expect(triggerReasonText('no_data')).toMatch(/uploads/);
  });
});

describe('upload answers', () => {
  const file = {
    file_id: 'f1',
    run_id: 'r1',
    path: 'measures.csv',
    size: 10,
    sha256: 'abc',
    modified_at: '2026-01-01T00:00:00.000Z',
    content_type: 'text/csv',
    origin: 'upload',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  it('parses a created file', () => {
    expect(readXhrAnswer(201, 'application/json', JSON.stringify(file), fileSchema)).toEqual(file);
  });
  it('turns a problem into an ApiError', () => {
    const problem = {
      type: 'urn:service:problem:payload_too_large',
      title: 'Payload Too Large',
      status: 413,
      detail: 'the file is over the limit',
      code: 'payload_too_large',
    };
    try {
      readXhrAnswer(413, 'application/problem+json', JSON.stringify(problem), fileSchema);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('payload_too_large');
      expect((error as ApiError).message).toBe('the file is over the limit');
    }
  });
  it('reports a cut-off upload and an odd answer', () => {
    expect(() => readXhrAnswer(0, '', '', fileSchema)).toThrow(/cut off/);
    expect(() => readXhrAnswer(201, 'application/json', '{}', fileSchema)).toThrow(/unexpected shape/);
  });
});
