/**
 * The `dashboard` benchmark's requests to `POST /dashboards/{id}/data`, over one keep-alive
 * connection (as a browser tab holds one), on `node:http` so the time to the first streamed line
 * is seen. An answer counts as a failure when it is not a 200, does not parse, misses a component
 * or holds a component-level error; failures are counted, never thrown, since their number is a
 * figure of the benchmark.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { DashboardFilter } from '@service/common';

export interface DataTiming {
  /** Request sent to the whole answer read (ms). */
  ms: number;
  /** Request sent to the first component's line (NDJSON only; the whole answer for JSON). */
  firstMs: number;
  /** Why the answer failed, or null. */
  failure: string | null;
}

const NDJSON = 'application/x-ndjson';

/** Whether one parsed component answer is drawable: an object without `error`. */
function componentProblem(componentId: string, data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return `${componentId}: no data`;
  if ('error' in data) return `${componentId}: ${JSON.stringify((data as { error: unknown }).error)}`;
  return null;
}

/** Checks an answer's text: every expected component present and drawable. */
function answerProblem(text: string, ndjson: boolean, expected: readonly string[]): string | null {
  const components = new Map<string, unknown>();
  try {
    if (ndjson) {
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const parsed = JSON.parse(line) as { component_id?: string; data?: unknown };
        if (parsed.component_id !== undefined) components.set(parsed.component_id, parsed.data);
      }
    } else {
      const parsed = JSON.parse(text) as { components?: Record<string, unknown> };
      for (const [id, data] of Object.entries(parsed.components ?? {})) components.set(id, data);
    }
  } catch (error) {
    return `unparsable answer: ${String(error)}`;
  }
  for (const id of expected) {
    if (!components.has(id)) return `${id}: missing from the answer`;
    const problem = componentProblem(id, components.get(id));
    if (problem !== null) return problem;
  }
  return null;
}

/** One tab asked for (`tab_id`) and the components its answer must hold. */
export interface TabScope {
  tabId: string;
  expected: readonly string[];
}

/**
 * A client of one dashboard's data route; `expected`: what a whole answer (no tab) must hold.
 * `only`: asks for those components alone (the request's `components`, as the page asks for
 * those in sight), which are then what a whole answer must hold.
 */
export function dataClient(url: string, token: string, expected: readonly string[], only?: readonly string[]) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const scope = only === undefined ? {} : { components: [...only] };
  const ask = (filters: DashboardFilter[], ndjson: boolean, tab?: TabScope): Promise<DataTiming> =>
    new Promise<DataTiming>((resolve) => {
      const body = JSON.stringify(tab === undefined ? { filters, ...scope } : { filters, tab_id: tab.tabId });
      const wanted = tab === undefined ? (only ?? expected) : tab.expected;
      const started = performance.now();
      let firstMs = Number.NaN;
      const done = (failure: string | null) => {
        const ms = performance.now() - started;
        resolve({ ms, firstMs: Number.isNaN(firstMs) ? ms : firstMs, failure });
      };
      const outgoing = httpRequest(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            accept: ndjson ? NDJSON : 'application/json',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let lineEnds = 0;
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            // The first line is `{version}`; the first component's line ends with the second newline.
            for (let at = chunk.indexOf(10); at !== -1 && lineEnds < 2; at = chunk.indexOf(10, at + 1)) lineEnds += 1;
            if (ndjson && lineEnds >= 2 && Number.isNaN(firstMs)) firstMs = performance.now() - started;
          });
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode !== 200) done(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
            else done(answerProblem(text, ndjson, wanted));
          });
          response.on('error', (error) => done(String(error)));
        },
      );
      outgoing.once('error', (error) => done(String(error)));
      outgoing.end(body);
    });
  return {
    /** The whole answer as JSON (the cold and warm requests); with `tab`, that tab's. */
    json: (filters: DashboardFilter[], tab?: TabScope) => ask(filters, false, tab),
    /** The answer streamed as lines, as the web app asks for it; with `tab`, that tab's. */
    ndjson: (filters: DashboardFilter[], tab?: TabScope) => ask(filters, true, tab),
    close: () => agent.destroy(),
  };
}
