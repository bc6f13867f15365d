import '@mantine/core/styles.css';
import './styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.js';
import { ApiClient, isApiError, TokenStore } from './api/client.js';
import { ApiProvider } from './auth/session.js';
import { theme } from './theme.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (404, 403, 401) will not change by asking again.
      retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

const storage = (() => {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
})();
const api = new ApiClient({
  tokens: new TokenStore(storage),
  onSessionLost: () => queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'capabilities' }),
});

const root = document.getElementById('root');
if (root === null) throw new Error('index.html lacks #root');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <ApiProvider client={api}>
          <BrowserRouter>
            <App />
          </BrowserRouter>
        </ApiProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
