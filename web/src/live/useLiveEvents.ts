import { useEffect, useRef, useState } from 'react';
import { isApiError } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { readServerEvents, type ServerEvent } from './server-events.js';

/** What a page follows: a dashboard, a project, or (neither) the user's jobs; null: nothing. */
export type LiveTarget = { dashboard_id: string } | { project_id: string } | Record<string, never>;

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The page's one live stream (`GET /events`, docs/live-data.md): `onEvent` gets each event with its
 * parsed data. Reconnects after a drop with the last id (so nothing is missed), waiting 1 s doubling
 * up to 30 s while the server cannot be reached. Answers whether the stream is open now: while it is
 * not, pages poll as they would without it. `fetch`, not `EventSource`, which cannot send the token.
 */
export function useLiveEvents(
  target: LiveTarget | null,
  onEvent: (name: string, data: Record<string, unknown>) => void,
): boolean {
  const api = useApi();
  const [connected, setConnected] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = target === null ? null : JSON.stringify(target);
  useEffect(() => {
    if (key === null) return undefined;
    const controller = new AbortController();
    const { signal } = controller;
    let lastId: string | null = null;
    const deliver = (event: ServerEvent) => {
      try {
        handler.current(event.event, JSON.parse(event.data) as Record<string, unknown>);
      } catch {
        // An event that is not JSON is not one of ours.
      }
    };
    const run = async () => {
      let delay = FIRST_RETRY_MS;
      while (!signal.aborted) {
        try {
          const query = { ...(JSON.parse(key) as Record<string, string>), last_event_id: lastId ?? undefined };
          const response = await api.events(query, signal);
          // Refused (signed out, no longer allowed): stop; the pages keep polling.
          if (response.status === 401 || response.status === 403 || response.status === 404) break;
          if (response.ok && response.body !== null) {
            setConnected(true);
            delay = FIRST_RETRY_MS;
            await readServerEvents(response.body, deliver, (id) => {
              lastId = id;
            });
          }
        } catch (error) {
          if (signal.aborted || isApiError(error, 'unauthenticated')) break;
        }
        setConnected(false);
        await wait(delay, signal);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
      setConnected(false);
    };
    void run();
    return () => controller.abort();
  }, [api, key]);
  return connected;
}
