import './zod-jitless.js';
import '@mantine/core/styles.css';
import './styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { App, MODULE_LOADERS } from './App.js';
import { ApiClient, isApiError, TokenStore } from './api/client.js';
import { EarlyAnswers } from './api/early-answers.js';
import { ApiProvider } from './auth/session.js';
import { firstScreenModules } from './boot/first-screen.js';
import { takeEarlyRequests } from './boot/handoff.js';
import { prefetchFirstScreen } from './first-screen-queries.js';
import { cssVariablesResolver, theme } from './theme.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (404, 403, 401) will not change by asking again.
      retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

/** A storage of the browser, or null where it is blocked (then the session lives in memory only). */
function browserStorage(kind: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    return window[kind];
  } catch {
    return null;
  }
}
const tokens = new TokenStore(browserStorage('localStorage'), browserStorage('sessionStorage'));
tokens.followOtherTabs(window);
const api = new ApiClient({
  tokens,
  // What the boot script in index.html already asked for: adopted, not asked again.
  early: new EarlyAnswers(takeEarlyRequests(window)),
  onSessionLost: () => queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'capabilities' }),
});

// A data router (one splat route, App's <Routes> inside it) so that edit mode can block leaving
// with unsaved changes (useBlocker works only under a data router).
const router = createBrowserRouter([{ path: '*', element: <App /> }]);

function render(): void {
  const root = document.getElementById('root');
  if (root === null) throw new Error('index.html lacks #root');
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
        <QueryClientProvider client={queryClient}>
          <ApiProvider client={api}>
            <RouterProvider router={router} />
          </ApiProvider>
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>,
  );
}

prefetchFirstScreen(queryClient, api, window.location);
// The first screen's code (preloaded by the boot script) is evaluated before the first render, so
// that its pages render at once rather than behind a Suspense fallback; a failure shows where the
// page renders. Not a top-level await: Rollup would split the entry chunk to keep the pages' chunks
// from waiting on it.
void Promise.allSettled(firstScreenModules(window.location).map((module) => MODULE_LOADERS[module]())).then(render);
