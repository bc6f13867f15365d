import { type Capabilities, capabilitiesSchema, type SessionAnswer, type User, userSchema } from '@service/common';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/client.js';
import { capabilitiesGet, currentUserGet } from '../api/wire.js';
import { type SignInPlan, signInPlan } from './plan.js';

const ApiContext = createContext<ApiClient | null>(null);

export function ApiProvider({ client, children }: { client: ApiClient; children: ReactNode }) {
  return <ApiContext.Provider value={client}>{children}</ApiContext.Provider>;
}

export function useApi(): ApiClient {
  const client = useContext(ApiContext);
  if (client === null) throw new Error('useApi needs an <ApiProvider>');
  return client;
}

/** What the server offers (`GET /utils/capabilities`): asked once per page load. */
export const capabilitiesQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ['capabilities'],
    queryFn: ({ signal }) => api.get(capabilitiesGet(), capabilitiesSchema, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });

export function useCapabilities() {
  return useQuery(capabilitiesQuery(useApi()));
}

export interface AuthState {
  capabilities: Capabilities;
  plan: SignInPlan;
  /** The signed-in user (in single-user mode, the fixed admin); null when anonymous. */
  user: User | null;
  signIn(session: SessionAnswer): void;
  signOut(): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (state === null) throw new Error('useAuth needs an <AuthProvider>');
  return state;
}

/** Everything under it sees the capabilities, the sign-in plan and the current user. */
export function AuthProvider({
  capabilities,
  children,
}: {
  capabilities: Capabilities;
  children: (state: { loadingUser: boolean }) => ReactNode;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const session = useSyncExternalStore(
    (listener) => api.tokens.subscribe(listener),
    () => api.tokens.get(),
  );
  const plan = useMemo(() => signInPlan(capabilities), [capabilities]);
  const singleUser = plan.mode === 'single_user';

  // Single-user mode: the server acts as its admin for every request. Otherwise the stored session
  // is checked once (and refreshed by the client when its access token has expired).
  const me = useQuery({
    queryKey: ['me', singleUser ? 'single-user' : (session?.user.user_id ?? 'anonymous')],
    queryFn: ({ signal }) => api.get(currentUserGet(singleUser), userSchema, signal),
    enabled: singleUser || session !== null,
    staleTime: 60_000,
    retry: false,
  });

  const clearUserData = useCallback(() => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'capabilities' });
  }, [queryClient]);

  const signIn = useCallback(
    (answer: SessionAnswer) => {
      clearUserData();
      api.tokens.set({ access_token: answer.access_token, refresh_token: answer.refresh_token, user: answer.user });
    },
    [api, clearUserData],
  );

  const signOut = useCallback(async () => {
    try {
      if (api.tokens.get() !== null) await api.requestVoid('/auth/logout', { method: 'POST' });
    } catch {
      // The session may be gone already; forgetting it locally is what matters.
    }
    api.tokens.set(null);
    clearUserData();
  }, [api, clearUserData]);

  const user = singleUser ? (me.data ?? null) : session === null ? null : (me.data ?? session.user);
  const state = useMemo<AuthState>(
    () => ({ capabilities, plan, user, signIn, signOut }),
    [capabilities, plan, user, signIn, signOut],
  );
  const loadingUser = singleUser && me.isPending;
  return <AuthContext.Provider value={state}>{children({ loadingUser })}</AuthContext.Provider>;
}
