import { problemSchema } from '@service/common';
import type { z } from 'zod';
import { API_BASE, ApiError, type TokenStore } from './client.js';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadHandle<T> {
  /** Settles with the parsed answer, or rejects with an `ApiError` (code `aborted` after `abort()`). */
  done: Promise<T>;
  abort(): void;
}

export interface UploadOptions<S extends z.ZodType> {
  path: string;
  form: FormData;
  schema: S;
  tokens: TokenStore;
  onProgress?: (progress: UploadProgress) => void;
  baseUrl?: string;
  /** For tests: the XMLHttpRequest constructor. */
  xhr?: () => XMLHttpRequest;
}

/** Parses an XHR answer the same way the fetch client does. */
export function readXhrAnswer<S extends z.ZodType>(
  status: number,
  contentType: string,
  text: string,
  schema: S,
): z.output<S> {
  let body: unknown = null;
  if (text !== '' && contentType.includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (status >= 200 && status < 300) {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new ApiError(0, 'unexpected_answer', 'The server’s answer had an unexpected shape.');
    return parsed.data;
  }
  const problem = problemSchema.safeParse(body);
  if (problem.success) {
    throw new ApiError(status, problem.data.code, problem.data.detail ?? problem.data.title, problem.data);
  }
  if (status === 0) throw new ApiError(0, 'network_error', 'The upload was cut off: the server could not be reached.');
  throw new ApiError(status, `http_${status}`, `The server answered ${status}.`);
}

/**
 * Sends a multipart form with XMLHttpRequest, which (unlike fetch) reports the bytes sent.
 * The access token is sent as it is; a session near expiry should be refreshed before a big upload.
 */
export function uploadWithProgress<S extends z.ZodType>(options: UploadOptions<S>): UploadHandle<z.output<S>> {
  const xhr = options.xhr?.() ?? new XMLHttpRequest();
  const done = new Promise<z.output<S>>((resolve, reject) => {
    xhr.open('POST', `${options.baseUrl ?? API_BASE}${options.path}`);
    xhr.setRequestHeader('accept', 'application/json, application/problem+json');
    const token = options.tokens.get()?.access_token;
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.addEventListener('progress', (event) => {
      options.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
    });
    xhr.addEventListener('load', () => {
      try {
        resolve(
          readXhrAnswer(xhr.status, xhr.getResponseHeader('content-type') ?? '', xhr.responseText, options.schema),
        );
      } catch (error) {
        reject(error);
      }
    });
    xhr.addEventListener('error', () =>
      reject(new ApiError(0, 'network_error', 'The upload was cut off: the server could not be reached.')),
    );
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.')));
    xhr.send(options.form);
  });
  return { done, abort: () => xhr.abort() };
}
