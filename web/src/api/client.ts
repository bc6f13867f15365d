import { type Problem, problemSchema, sessionAnswerSchema } from '@service/common';
import type { z } from 'zod';
import type { Adopted, EarlyAnswers } from './early-answers.js';
import { NDJSON, readJsonLines } from './json-lines.js';
import type { StoredSession, TokenStore } from './tokens.js';
import { API_BASE, type ApiGet, apiHeaders, apiUrl, type QueryParams } from './wire.js';

export { type StoredSession, TokenStore } from './tokens.js';
export { API_BASE };

/** A failed API call: the RFC 9457 problem when the server sent one, otherwise a synthetic one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem | null;

  constructor(status: number, code: string, message: string, problem: Problem | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.problem = problem;
  }

  /** Field errors of a `validation_failed` answer. */
  get fieldErrors(): NonNullable<Problem['errors']> {
    return this.problem?.errors ?? [];
  }
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

/** A message a person can read, for any error a query or mutation may throw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.fieldErrors.map((field) => `${field.path}: ${field.message}`);
    return fields.length > 0 ? `${error.message} (${fields.join('; ')})` : error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  /** A multipart body (sent as is: the browser writes its boundary); instead of `json`. */
  form?: FormData;
  query?: QueryParams;
  signal?: AbortSignal;
  /** Send the bearer token (default true). */
  auth?: boolean;
  /** The answer's media type asked for, instead of JSON (`Accept`). */
  accept?: string;
  /** A precondition (`If-Match`: the ETag of the version the change was made on). */
  ifMatch?: string;
  /**
   * A POST that only reads (a query too rich for a URL: a dashboard's data): it keeps the boot
   * script's early answers, and may adopt one sent with the same body.
   */
  reads?: boolean;
}

/** A parsed answer with the version tag the server gave it (`ETag`; null when it sent none). */
export interface Tagged<T> {
  data: T;
  etag: string | null;
}

export interface ApiClientOptions {
  tokens: TokenStore;
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Called when the session could not be refreshed and has been dropped. */
  onSessionLost?: () => void;
  /** Answers the boot script already asked for (web/src/boot/), adopted instead of asking again. */
  early?: EarlyAnswers;
}

/** The Web Lock that serializes refreshes between tabs. */
const REFRESH_LOCK = 'service.session.refresh';

/** Paths whose 401 means "wrong credentials", never "refresh and try again". */
const NO_REFRESH = ['/auth/login', '/auth/refresh', '/auth/register', '/auth/magic_link/redeem'];

export class ApiClient {
  readonly tokens: TokenStore;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly onSessionLost: (() => void) | undefined;
  private readonly early: EarlyAnswers | undefined;
  private refreshing: Promise<boolean> | null = null;

  constructor(options: ApiClientOptions) {
    this.tokens = options.tokens;
    this.baseUrl = options.baseUrl ?? API_BASE;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.onSessionLost = options.onSessionLost;
    this.early = options.early;
  }

  /** `request` for one of the GETs built in `wire.ts`. */
  get<S extends z.ZodType>(get: ApiGet, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    return this.request(get.path, schema, { query: get.query, auth: get.auth, signal });
  }

  /** Calls the API and parses the answer with `schema`; throws `ApiError` on any failure. */
  async request<S extends z.ZodType>(path: string, schema: S, options: RequestOptions = {}): Promise<z.output<S>> {
    const body = await this.send(path, options);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ApiError(0, 'unexpected_answer', `The server's answer to ${path} had an unexpected shape.`);
    }
    return parsed.data;
  }

  /** `request`, keeping the answer's `ETag` (for a later `ifMatch`). */
  async requestTagged<S extends z.ZodType>(
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<Tagged<z.output<S>>> {
    const response = await this.respond(path, options);
    const etag = response.headers.get('etag');
    const parsed = schema.safeParse(await ApiClient.readAnswer(response));
    if (!parsed.success) {
      throw new ApiError(0, 'unexpected_answer', `The server's answer to ${path} had an unexpected shape.`);
    }
    return { data: parsed.data, etag };
  }

  /** Calls a route that answers without a body (204). */
  async requestVoid(path: string, options: RequestOptions = {}): Promise<void> {
    await this.send(path, options);
  }

  /** Calls a route that answers a file (a CSV download): its bytes, or `ApiError` on a failure. */
  async requestBlob(path: string, options: RequestOptions = {}): Promise<Blob> {
    const response = await this.respond(path, options);
    if (!response.ok) await ApiClient.readAnswer(response);
    return response.blob();
  }

  /**
   * Calls a route that can stream its answer as JSON lines (`application/x-ndjson`), handing each
   * line to `onValue` as soon as it arrives; an answer in plain JSON is handed over whole, once.
   * Resolves when the answer has ended; throws `ApiError` on any failure.
   */
  async stream(path: string, options: RequestOptions, onValue: (value: unknown) => void): Promise<void> {
    const response = await this.respond(path, { ...options, accept: options.accept ?? NDJSON });
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !type.includes('ndjson') || response.body === null) {
      onValue(await ApiClient.readAnswer(response));
      return;
    }
    try {
      await readJsonLines(response.body, onValue);
    } catch (error) {
      if (options.signal?.aborted || error instanceof ApiError) throw error;
      if (error instanceof SyntaxError) {
        throw new ApiError(0, 'unexpected_answer', `The server's answer to ${path} had a line that is not JSON.`);
      }
      throw new ApiError(0, 'network_error', 'The answer was cut off. Check your connection and try again.');
    }
  }

  /**
   * Opens the live event stream (`GET /events`, docs/live-data.md) with the session's token,
   * refreshed once when it had expired; the caller reads the answer's body.
   */
  async events(query: QueryParams, signal: AbortSignal): Promise<Response> {
    return this.respond('/events', { query, signal, accept: 'text/event-stream' });
  }

  private async send(path: string, options: RequestOptions): Promise<unknown> {
    return ApiClient.readAnswer(await this.respond(path, options));
  }

  /** The response to the request, after refreshing the session once if the access token had expired. */
  private async respond(path: string, options: RequestOptions): Promise<Response> {
    const useAuth = options.auth ?? true;
    const sentToken = useAuth ? (this.tokens.get()?.access_token ?? null) : null;
    let response = await this.fetchOnce(path, options, sentToken);
    if (response.status === 401 && sentToken !== null && !NO_REFRESH.includes(path)) {
      if (await this.refreshOnce(sentToken)) {
        response = await this.fetchOnce(path, options, this.tokens.get()?.access_token ?? null);
      }
    }
    return response;
  }

  private async fetchOnce(path: string, options: RequestOptions, token: string | null): Promise<Response> {
    const url = apiUrl(this.baseUrl, path, options.query);
    const hasBody = options.json !== undefined || options.form !== undefined;
    const method = options.method ?? (hasBody ? 'POST' : 'GET');
    try {
      const early = await this.adopt(method, url, token, options);
      if (early !== null) return await abortable(early.response, options.signal);
      return await this.fetchImpl(url, {
        method,
        headers: {
          ...apiHeaders(token, options.json !== undefined),
          ...(options.accept === undefined ? {} : { accept: `${options.accept}, application/problem+json` }),
          ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }),
        },
        body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(0, 'network_error', 'The server could not be reached. Check your connection and try again.');
    }
  }

  /** The boot script's answer to this very request, if it sent it; a write drops them all. */
  private async adopt(
    method: string,
    url: string,
    token: string | null,
    options: RequestOptions,
  ): Promise<Adopted | null> {
    if (this.early === undefined) return null;
    if (method === 'GET') return this.early.take(url, token);
    if (options.reads !== true) {
      this.early.forgetAll();
      return null;
    }
    return options.json === undefined ? null : this.early.takePost(url, token, JSON.stringify(options.json));
  }

  /**
   * Exchanges the refresh token once, shared by every request that failed with the same access
   * token; answers whether a fresh token is now available.
   */
  private refreshOnce(failedToken: string): Promise<boolean> {
    const current = this.tokens.reload();
    if (current === null) return Promise.resolve(false);
    // Another request (or another tab) already refreshed: just retry with the new token.
    if (current.access_token !== failedToken) return Promise.resolve(true);
    if (this.refreshing === null) {
      this.refreshing = this.refreshAcrossTabs(failedToken).finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  /**
   * One refresh at a time across the browser's tabs (Web Locks): a refresh token is single-use, and
   * the server ends the whole session when a spent one is shown again, so a tab that waited reads
   * the tokens the other tab stored instead of spending the same refresh token a second time.
   */
  private async refreshAcrossTabs(failedToken: string): Promise<boolean> {
    const exchange = async () => {
      const latest = this.tokens.reload();
      if (latest === null) return false;
      if (latest.access_token !== failedToken) return true;
      return this.refresh(latest);
    };
    const locks = globalThis.navigator?.locks;
    return locks === undefined ? exchange() : await locks.request(REFRESH_LOCK, exchange);
  }

  private async refresh(current: StoredSession): Promise<boolean> {
    try {
      const response = await this.fetchOnce(
        '/auth/refresh',
        { method: 'POST', json: { refresh_token: current.refresh_token } },
        null,
      );
      const session = sessionAnswerSchema.parse(await ApiClient.readAnswer(response));
      this.tokens.set({ access_token: session.access_token, refresh_token: session.refresh_token, user: session.user });
      return true;
    } catch {
      this.tokens.set(null);
      this.onSessionLost?.();
      return false;
    }
  }

  private static async readAnswer(response: Response): Promise<unknown> {
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let body: unknown = null;
    if (text !== '' && type.includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    if (response.ok) return body;
    const problem = problemSchema.safeParse(body);
    if (problem.success) {
      const { data } = problem;
      throw new ApiError(response.status, data.code, data.detail ?? data.title, data);
    }
    throw new ApiError(
      response.status,
      `http_${response.status}`,
      `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
    );
  }
}

/** `response`, or an `AbortError` as soon as `signal` aborts, as `fetch` itself would. */
function abortable(response: Promise<Response>, signal: AbortSignal | undefined): Promise<Response> {
  if (signal === undefined) return response;
  return new Promise<Response>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    response.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
