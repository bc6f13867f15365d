import { useEffect, useState } from 'react';

const API_BASE = '/service/api/v1';
const CAPABILITIES_URL = `${API_BASE}/utils/capabilities`;
const DOCS_URL = `${API_BASE}/docs`;
const REQUEST_TIMEOUT_MS = 10_000;

/** Response of `GET /service/api/v1/utils/capabilities`. */
export interface Capabilities {
  version: string;
  auth_mode: string;
  features: string[];
  auth: Record<string, unknown>;
}

type LoadState =
  | { status: 'loading' }
  | { status: 'ready'; capabilities: Capabilities }
  | { status: 'error'; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseCapabilities(body: unknown): Capabilities {
  if (
    !isRecord(body) ||
    typeof body.version !== 'string' ||
    typeof body.auth_mode !== 'string' ||
    !Array.isArray(body.features) ||
    !body.features.every((f): f is string => typeof f === 'string')
  ) {
    throw new Error('The API returned an unexpected capabilities document.');
  }
  return {
    version: body.version,
    auth_mode: body.auth_mode,
    features: body.features,
    auth: isRecord(body.auth) ? body.auth : {},
  };
}

async function fetchCapabilities(signal: AbortSignal): Promise<Capabilities> {
  let response: Response;
  try {
    response = await fetch(CAPABILITIES_URL, {
      headers: { Accept: 'application/json' },
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error('The Service API could not be reached.');
  }
  if (!response.ok) {
    throw new Error(
      `The Service API answered with HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
    );
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new Error('The Service API did not return JSON.');
  }
  return parseCapabilities(body);
}

/** Loads the capabilities once per mount (remount to retry). */
function useCapabilities(): LoadState {
  const [state, setState] = useState<LoadState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    let timedOut = false;
    const timer = window.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, REQUEST_TIMEOUT_MS);

    fetchCapabilities(controller.signal)
      .then((capabilities) => setState({ status: 'ready', capabilities }))
      .catch((error: unknown) => {
        if (controller.signal.aborted && !timedOut) return; // unmounted
        setState({
          status: 'error',
          message: timedOut
            ? 'The Service API did not answer in time.'
            : error instanceof Error
              ? error.message
              : String(error),
        });
      })
      .finally(() => window.clearTimeout(timer));

    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, []);

  return state;
}

function StatusPanel({ onRetry }: { onRetry: () => void }) {
  const state = useCapabilities();
  switch (state.status) {
    case 'loading':
      return (
        <p role="status" className="muted">
          Contacting the Service API…
        </p>
      );
    case 'error':
      return (
        <div role="alert" className="notice notice-error">
          <h2>API unavailable</h2>
          <p>
            {state.message} Check that the Service server is running and reachable at <code>{API_BASE}</code>.
          </p>
          <button type="button" onClick={onRetry}>
            Retry
          </button>
        </div>
      );
    case 'ready': {
      const { version, auth_mode, features } = state.capabilities;
      return (
        <>
          <section aria-labelledby="about-heading">
            <h2 id="about-heading">Server</h2>
            <dl className="facts">
              <dt>Version</dt>
              <dd>
                <code>{version}</code>
              </dd>
              <dt>Authentication</dt>
              <dd>
                <code>{auth_mode}</code>
              </dd>
            </dl>
          </section>
          <section aria-labelledby="features-heading">
            <h2 id="features-heading">Features</h2>
            {features.length > 0 ? (
              <ul className="features">
                {features.map((feature) => (
                  <li key={feature}>
                    <code>{feature}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No optional features are enabled.</p>
            )}
          </section>
        </>
      );
    }
  }
}

export function App() {
  // Bumping the key remounts the panel, which fetches again.
  const [attempt, setAttempt] = useState(0);

  return (
    <>
      <header className="site-header">
        <h1>Service</h1>
        <p className="muted">Open-source data-analytics platform</p>
      </header>
      <main>
        <StatusPanel key={attempt} onRetry={() => setAttempt((n) => n + 1)} />
      </main>
      <footer className="site-footer">
        <nav aria-label="Resources">
          <a href={DOCS_URL}>API documentation</a>
        </nav>
        <p className="muted">This is a placeholder; the full web app is coming soon.</p>
      </footer>
    </>
  );
}
