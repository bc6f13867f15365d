import { type IncomingMessage, request } from 'node:http';
import { API_PREFIX } from '../../src/http/prefix.js';

/** One server-sent event as a client reads it. */
export interface ReceivedEvent {
  id: string | null;
  event: string;
  data: string;
}

/** An open `GET /events` stream read over real HTTP: its events and comments as they arrive. */
export interface OpenStream {
  status: number;
  contentType: string | null;
  /** The answer's text, when it was not a stream (a refusal). */
  problem: { code?: string; status?: number } | null;
  events: ReceivedEvent[];
  comments: string[];
  /** The id of the last `id:` line read (what a browser would send as Last-Event-ID). */
  lastEventId: string | null;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits until `condition` holds on what was read, or fails after `timeoutMs`. */
  until(condition: (stream: OpenStream) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Parses the text of an event stream (the parts `eventsOf` needs; comments kept apart). */
function parseBlock(block: string, stream: OpenStream): void {
  let event = 'message';
  const data: string[] = [];
  let id: string | null = null;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trim());
  }
  if (id !== null) stream.lastEventId = id;
  if (data.length > 0) stream.events.push({ id, event, data: data.join('\n') });
}

export async function openStream(
  server: { url: string },
  query: string,
  options: { token?: string | undefined; lastEventId?: string | null } = {},
): Promise<OpenStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId != null) headers['last-event-id'] = options.lastEventId;
  // node:http rather than fetch: closing destroys the connection at once, as a browser tab would.
  const outgoing = request(`${server.url}${API_PREFIX}/events${query}`, { headers, agent: false });
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
  let ended = false;
  const waiters = new Set<() => void>();
  const stream: OpenStream = {
    status: response.statusCode ?? 0,
    contentType: response.headers['content-type'] ?? null,
    problem: null,
    events: [],
    comments: [],
    lastEventId: null,
    ended: Promise.resolve(),
    isEnded: () => ended,
    until(condition, timeoutMs = 10_000) {
      if (condition(stream)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (condition(stream)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`condition not met in ${timeoutMs} ms; events: ${JSON.stringify(stream.events)}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () => outgoing.destroy(),
  };
  if (stream.status !== 200) {
    let text = '';
    for await (const chunk of response) text += String(chunk);
    stream.problem = JSON.parse(text) as OpenStream['problem'];
    ended = true;
    return stream;
  }
  const body = response;
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk as Buffer, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          parseBlock(buffer.slice(0, end), stream);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        for (const waiter of [...waiters]) waiter();
      }
    } catch {
      // Aborted by `close`.
    }
    ended = true;
    for (const waiter of [...waiters]) waiter();
  })();
  return stream;
}

/** The events named `name`, their data parsed. */
export function dataOf<T = Record<string, unknown>>(stream: OpenStream, name: string): T[] {
  return stream.events.filter((event) => event.event === name).map((event) => JSON.parse(event.data) as T);
}
