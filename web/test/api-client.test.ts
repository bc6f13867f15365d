import { capabilitiesSchema, userSchema } from '@service/common';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiClient, ApiError, errorMessage, TokenStore } from '../src/api/client.js';
import { EarlyAnswers } from '../src/api/early-answers.js';
import type { EarlyGet, EarlyPost } from '../src/boot/handoff.js';

const USER = {
  user_id: 'u1',
  email: 'ada@example.org',
  role: 'user',
  is_temporary: false,
  expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
} as const;

function json(status: number, body: unknown, type = 'application/json'): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
}
function problem(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): Response {
  return json(
    status,
    { type: `urn:service:problem:${code}`, title: code, status, detail, code, ...extra },
    'application/problem+json',
  );
}

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

function session(access: string, refresh: string) {
  return { access_token: access, refresh_token: refresh, user: USER };
}

type Call = { url: string; method: string; headers: Record<string, string>; body: string | null };
function fakeFetch(answer: (call: Call, index: number) => Response) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const call: Call = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? init.body : null,
    };
    calls.push(call);
    return answer(call, calls.length - 1);
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

describe('API client', () => {
  it('parses answers with the shared schemas, sends the bearer token and the query', async () => {
    const tokens = new TokenStore(null);
    tokens.set(session('at-1', 'rt-1'));
    const { fetch, calls } = fakeFetch(() => json(200, USER));
    const api = new ApiClient({ tokens, fetch });
    const user = await api.request('/auth/me', userSchema, { query: { a: 1, skip: undefined } });
    expect(user.email).toBe('ada@example.org');
    expect(calls[0]?.url).toBe('/service/api/v1/auth/me?a=1');
    expect(calls[0]?.headers.authorization).toBe('Bearer at-1');
  });

  it('leaves the token off when asked to', async () => {
    const tokens = new TokenStore(null);
    tokens.set(session('at-1', 'rt-1'));
    const { fetch, calls } = fakeFetch(() => json(200, {}));
    await new ApiClient({ tokens, fetch }).request('/x', z.object({}), { auth: false });
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });

  it('turns RFC 9457 problems into a typed ApiError with field errors', async () => {
    const { fetch } = fakeFetch(() =>
      problem(400, 'validation_failed', 'the request does not match', {
        errors: [{ path: 'body.password', message: 'must be at least 12 characters' }],
      }),
    );
    const api = new ApiClient({ tokens: new TokenStore(null), fetch });
    const error = await api.request('/auth/register', userSchema, { json: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('validation_failed');
    expect(apiError.fieldErrors).toEqual([{ path: 'body.password', message: 'must be at least 12 characters' }]);
    expect(errorMessage(apiError)).toContain('body.password: must be at least 12 characters');
  });

  it('reports non-problem failures, network failures and unexpected shapes', async () => {
    const tokens = new TokenStore(null);
    const html = new ApiClient({
      tokens,
      fetch: fakeFetch(() => new Response('<html>', { status: 502, statusText: 'Bad Gateway' })).fetch,
    });
    await expect(html.request('/x', z.object({}))).rejects.toMatchObject({ status: 502, code: 'http_502' });
    const offline = new ApiClient({
      tokens,
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as typeof globalThis.fetch,
    });
    await expect(offline.request('/x', z.object({}))).rejects.toMatchObject({ code: 'network_error' });
    const odd = new ApiClient({ tokens, fetch: fakeFetch(() => json(200, { auth_mode: 'nope' })).fetch });
    await expect(odd.request('/utils/capabilities', capabilitiesSchema)).rejects.toMatchObject({
      code: 'unexpected_answer',
    });
  });

  it('refreshes once on 401, stores the new pair and retries the request', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore(storage);
    tokens.set(session('old-at', 'old-rt'));
    const { fetch, calls } = fakeFetch((call) => {
      if (call.url.endsWith('/auth/refresh')) {
        return json(200, {
          access_token: 'new-at',
          refresh_token: 'new-rt',
          token_type: 'bearer',
          expires_in: 900,
          user: USER,
        });
      }
      return call.headers.authorization === 'Bearer new-at'
        ? json(200, USER)
        : problem(401, 'token_invalid', 'the access token has expired');
    });
    const api = new ApiClient({ tokens, fetch });
    const [a, b] = await Promise.all([api.request('/auth/me', userSchema), api.request('/auth/me', userSchema)]);
    expect(a.user_id).toBe('u1');
    expect(b.user_id).toBe('u1');
    // Two failed calls share one refresh.
    const refreshes = calls.filter((call) => call.url.endsWith('/auth/refresh'));
    expect(refreshes).toHaveLength(1);
    expect(JSON.parse(refreshes[0]?.body ?? '{}')).toEqual({ refresh_token: 'old-rt' });
    expect(tokens.get()?.access_token).toBe('new-at');
    // The pair survives a reload through the browser's storage.
    expect(new TokenStore(storage).get()?.refresh_token).toBe('new-rt');
  });

  it('sends a multipart form as it is (the browser writes its type), again after a refresh', async () => {
    const tokens = new TokenStore(new MemoryStorage());
    tokens.set(session('old-at', 'old-rt'));
    const bodies: unknown[] = [];
    const { fetch, calls } = fakeFetch((call) => {
      if (call.url.endsWith('/auth/refresh')) {
        return json(200, {
          access_token: 'new-at',
          refresh_token: 'new-rt',
          token_type: 'bearer',
          expires_in: 900,
          user: USER,
        });
      }
      return call.headers.authorization === 'Bearer new-at'
        ? json(200, USER)
        : problem(401, 'token_invalid', 'the access token has expired');
    });
    const api = new ApiClient({
      tokens,
      fetch: (input, init) => {
        bodies.push(init?.body);
        return fetch(input, init);
      },
    });
    const form = new FormData();
    form.append('file', new Blob(['a\n1\n']), 'a.csv');
    expect((await api.request('/projects/p1/files/preview', userSchema, { form })).user_id).toBe('u1');
    const sent = calls.filter((call) => call.url.endsWith('/files/preview'));
    expect(sent.map((call) => [call.method, call.headers['content-type']])).toEqual([
      ['POST', undefined],
      ['POST', undefined],
    ]);
    expect(bodies.filter((body) => body === form)).toHaveLength(2);
  });

  it('takes the tokens another tab refreshed instead of spending the same refresh token again', async () => {
    const storage = new MemoryStorage();
    const thisTab = new TokenStore(storage);
    thisTab.set(session('old-at', 'old-rt'));
    // The other tab, sharing the storage, refreshed first.
    new TokenStore(storage).set(session('other-at', 'other-rt'));
    const { fetch, calls } = fakeFetch((call) =>
      call.headers.authorization === 'Bearer other-at' ? json(200, USER) : problem(401, 'token_invalid', 'expired'),
    );
    const api = new ApiClient({ tokens: thisTab, fetch });
    expect((await api.request('/auth/me', userSchema)).user_id).toBe('u1');
    expect(calls.map((call) => call.url)).toEqual(['/service/api/v1/auth/me', '/service/api/v1/auth/me']);
    expect(thisTab.get()?.refresh_token).toBe('other-rt');
  });

  it('follows another tab’s sign-out, and moves a session kept by an older version to the lasting storage', () => {
    const lasting = new MemoryStorage();
    const earlier = new MemoryStorage();
    earlier.setItem('service.session', JSON.stringify(session('at', 'rt')));
    const tokens = new TokenStore(lasting, earlier);
    expect(tokens.get()?.refresh_token).toBe('rt');
    expect(lasting.items.has('service.session')).toBe(true);
    expect(earlier.items.size).toBe(0);

    const listeners: ((event: { key: string | null }) => void)[] = [];
    tokens.followOtherTabs({
      addEventListener: (_type: string, listener: (event: { key: string | null }) => void) => listeners.push(listener),
    } as unknown as Window);
    const seen: (string | null)[] = [];
    tokens.subscribe((next) => seen.push(next?.access_token ?? null));
    lasting.removeItem('service.session');
    for (const listener of listeners) listener({ key: 'service.session' });
    expect(tokens.get()).toBeNull();
    expect(seen).toEqual([null]);
  });

  it('drops the session when the refresh is refused and does not loop', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore(storage);
    tokens.set(session('old-at', 'spent-rt'));
    const lost = vi.fn();
    const { fetch, calls } = fakeFetch(() => problem(401, 'token_invalid', 'spent'));
    const api = new ApiClient({ tokens, fetch, onSessionLost: lost });
    await expect(api.request('/projects', z.object({}))).rejects.toMatchObject({ status: 401, code: 'token_invalid' });
    expect(calls.map((call) => call.url)).toEqual(['/service/api/v1/projects', '/service/api/v1/auth/refresh']);
    expect(tokens.get()).toBeNull();
    expect(storage.items.size).toBe(0);
    expect(lost).toHaveBeenCalledOnce();
  });

  it('never refreshes for wrong credentials or anonymous calls', async () => {
    const tokens = new TokenStore(null);
    tokens.set(session('at', 'rt'));
    const { fetch, calls } = fakeFetch(() => problem(401, 'invalid_credentials', 'wrong email or password'));
    const api = new ApiClient({ tokens, fetch });
    await expect(api.request('/auth/login', z.object({}), { json: {}, auth: false })).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
    tokens.set(null);
    await expect(api.request('/projects', z.object({}))).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(2);
  });

  it('ignores a corrupt stored session', () => {
    const storage = new MemoryStorage();
    storage.setItem('service.session', '{not json');
    expect(new TokenStore(storage).get()).toBeNull();
    storage.setItem('service.session', JSON.stringify({ access_token: 'a' }));
    expect(new TokenStore(storage).get()).toBeNull();
  });

  describe("adopting the boot script's early answers", () => {
    const early = (url: string, token: string | null, response: Response | Promise<Response>): EarlyGet => ({
      url,
      token,
      response: Promise.resolve(response),
    });

    it('adopts the answer to the very same GET once, instead of asking again', async () => {
      const tokens = new TokenStore(null);
      tokens.set(session('at', 'rt'));
      const { fetch, calls } = fakeFetch(() => json(200, { ...USER, email: 'fetched@example.org' }));
      const answers = new EarlyAnswers(
        {
          gets: [
            early('/service/api/v1/auth/me', 'at', json(200, USER)),
            early('/service/api/v1/utils/capabilities', 'at', json(200, {})),
          ],
          posts: [],
        },
        () => 5,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      expect((await api.request('/auth/me', userSchema)).email).toBe('ada@example.org');
      expect(calls).toHaveLength(0);
      // Adopted once: the next call asks the server.
      expect((await api.request('/auth/me', userSchema)).email).toBe('fetched@example.org');
      // Sent with a token the app does not send (here: none): not the same request.
      await api.request('/utils/capabilities', z.object({}), { auth: false }).catch(() => undefined);
      expect(calls.map((call) => call.url)).toEqual(['/service/api/v1/auth/me', '/service/api/v1/utils/capabilities']);
    });

    it('refreshes and retries after an early 401, as after its own', async () => {
      const tokens = new TokenStore(null);
      tokens.set(session('expired-at', 'rt'));
      const { fetch, calls } = fakeFetch((call) =>
        call.url.endsWith('/auth/refresh')
          ? json(200, {
              access_token: 'new-at',
              refresh_token: 'new-rt',
              token_type: 'bearer',
              expires_in: 900,
              user: USER,
            })
          : json(200, USER),
      );
      const answers = new EarlyAnswers(
        { gets: [early('/service/api/v1/auth/me', 'expired-at', problem(401, 'token_invalid', 'expired'))], posts: [] },
        () => 5,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      expect((await api.request('/auth/me', userSchema)).user_id).toBe('u1');
      expect(calls.map((call) => `${call.method} ${call.url} ${call.headers.authorization ?? ''}`)).toEqual([
        'POST /service/api/v1/auth/refresh ',
        'GET /service/api/v1/auth/me Bearer new-at',
      ]);
    });

    it('reports a failed early request as a network error, and aborts as fetch would', async () => {
      const tokens = new TokenStore(null);
      const failed: EarlyGet = {
        url: '/service/api/v1/utils/capabilities',
        token: null,
        response: Promise.reject(new TypeError('Failed to fetch')),
      };
      failed.response.catch(() => {});
      const never: EarlyGet = { url: '/service/api/v1/x', token: null, response: new Promise(() => {}) };
      const { fetch } = fakeFetch(() => json(200, {}));
      const api = new ApiClient({
        tokens,
        fetch,
        early: new EarlyAnswers({ gets: [failed, never], posts: [] }, () => 0),
      });
      await expect(api.request('/utils/capabilities', z.object({}), { auth: false })).rejects.toMatchObject({
        code: 'network_error',
      });
      const controller = new AbortController();
      const pending = api.request('/x', z.object({}), { auth: false, signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('drops every early answer after a write', async () => {
      const tokens = new TokenStore(null);
      const { fetch, calls } = fakeFetch(() => json(200, {}));
      const answers = new EarlyAnswers(
        {
          gets: [early('/service/api/v1/a', null, json(200, {})), early('/service/api/v1/b', null, json(200, {}))],
          posts: [],
        },
        () => 0,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      await api.request('/a', z.object({}), { auth: false });
      expect(calls).toHaveLength(0);
      await api.request('/w', z.object({}), { auth: false, method: 'POST', json: {} });
      await api.request('/b', z.object({}), { auth: false });
      expect(calls.map((call) => call.url)).toEqual(['/service/api/v1/w', '/service/api/v1/b']);
    });

    const earlyPost = (url: string, body: string | null, response: Response): EarlyPost => ({
      url,
      token: 'at',
      sent: Promise.resolve(body === null ? null : { body, response: Promise.resolve(response) }),
    });
    const from = z.object({ from: z.string() });

    it('adopts the early answer to a read sent as a POST with the very same body, and keeps the GETs', async () => {
      const tokens = new TokenStore(null);
      tokens.set(session('at', 'rt'));
      const { fetch, calls } = fakeFetch(() => json(200, { from: 'server' }));
      const answers = new EarlyAnswers(
        {
          gets: [early('/service/api/v1/a', 'at', json(200, { from: 'boot' }))],
          posts: [earlyPost('/service/api/v1/d/data', '{"filters":[],"tab_id":"t"}', json(200, { from: 'boot' }))],
        },
        () => 0,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      const read = { method: 'POST' as const, json: { filters: [], tab_id: 't' }, reads: true };
      expect(await api.request('/d/data', from, read)).toEqual({ from: 'boot' });
      // A read writes nothing: the early GETs stay adoptable.
      expect(await api.request('/a', from)).toEqual({ from: 'boot' });
      expect(await api.request('/d/data', from, read)).toEqual({ from: 'server' });
      expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual(['POST /service/api/v1/d/data']);
    });

    it('asks itself when the early POST had another body, or none was sent', async () => {
      const tokens = new TokenStore(null);
      tokens.set(session('at', 'rt'));
      const { fetch, calls } = fakeFetch(() => json(200, { from: 'server' }));
      const answers = new EarlyAnswers(
        {
          gets: [],
          posts: [
            earlyPost('/service/api/v1/d/data', '{"filters":[]}', json(200, { from: 'boot' })),
            earlyPost('/service/api/v1/e/data', null, json(200, { from: 'boot' })),
          ],
        },
        () => 0,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      const read = (json: unknown) => ({ method: 'POST' as const, json, reads: true });
      expect(await api.request('/d/data', from, read({ filters: [], tab_id: 't' }))).toEqual({ from: 'server' });
      expect(await api.request('/e/data', from, read({ filters: [] }))).toEqual({ from: 'server' });
      expect(calls.map((call) => `${call.method} ${call.url} ${call.body ?? ''}`)).toEqual([
        'POST /service/api/v1/d/data {"filters":[],"tab_id":"t"}',
        'POST /service/api/v1/e/data {"filters":[]}',
      ]);
    });

    it("adopts answers for 10 s from the app's start, however long its code took to arrive", async () => {
      const tokens = new TokenStore(null);
      const { fetch, calls } = fakeFetch(() => json(200, {}));
      // The clock of the page: the boot script sent these at 0, and the app started 30 s later.
      let now = 30_000;
      const answers = new EarlyAnswers(
        {
          gets: [early('/service/api/v1/a', null, json(200, {})), early('/service/api/v1/b', null, json(200, {}))],
          posts: [],
        },
        () => now,
      );
      const api = new ApiClient({ tokens, fetch, early: answers });
      now = 39_500;
      await api.request('/a', z.object({}), { auth: false });
      expect(calls).toHaveLength(0);
      now = 40_500;
      await api.request('/b', z.object({}), { auth: false });
      expect(calls.map((call) => call.url)).toEqual(['/service/api/v1/b']);
    });
  });
});
