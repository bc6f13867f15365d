import { Alert, Button, Center, Loader, Stack, Title } from '@mantine/core';
import { useEffect } from 'react';
import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { errorMessage } from './api/client.js';
import { AuthProvider, useAuth, useCapabilities } from './auth/session.js';
import type { PreloadableModule } from './boot/first-screen.js';
import { RequireAdmin } from './components/AdminNav.js';
import { Layout } from './components/Layout.js';
import { lazyPage } from './components/lazyPage.js';
import { DataExplorer } from './explorer/lazy.js';

// Each page is its own chunk, fetched when its route is first shown.
const DashboardPage = lazyPage(() => import('./pages/DashboardPage.js'), 'DashboardPage');
const DashboardsPage = lazyPage(() => import('./pages/DashboardsPage.js'), 'DashboardsPage');
const HomePage = lazyPage(() => import('./pages/HomePage.js'), 'HomePage');
const JobsPage = lazyPage(() => import('./pages/JobsPage.js'), 'JobsPage');
const JobDetailPage = lazyPage(() => import('./pages/JobsPage.js'), 'JobDetailPage');
const MagicLandingPage = lazyPage(() => import('./pages/MagicLandingPage.js'), 'MagicLandingPage');
const ProjectDetailPage = lazyPage(() => import('./pages/ProjectDetailPage.js'), 'ProjectDetailPage');
const ProjectsPage = lazyPage(() => import('./pages/ProjectsPage.js'), 'ProjectsPage');
const RegisterPage = lazyPage(() => import('./pages/RegisterPage.js'), 'RegisterPage');
const SignInPage = lazyPage(() => import('./pages/SignInPage.js'), 'SignInPage');
const AuditPage = lazyPage(() => import('./pages/AuditPage.js'), 'AuditPage');
const TokensPage = lazyPage(() => import('./pages/TokensPage.js'), 'TokensPage');
const UsersPage = lazyPage(() => import('./pages/UsersPage.js'), 'UsersPage');

/** Loads the code of the modules the boot script preloads (web/src/boot/first-screen.ts). */
export const MODULE_LOADERS: Record<PreloadableModule, () => Promise<unknown>> = {
  home: HomePage.preload,
  projects: ProjectsPage.preload,
  project: ProjectDetailPage.preload,
  explorer: DataExplorer.preload,
  dashboard: DashboardPage.preload,
};

/** In auth mode nothing but the sign-in pages is visible without a user. */
function RequireSignIn() {
  const { plan, user } = useAuth();
  const location = useLocation();
  if (plan.signInRequired && user === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/auth/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

function NotFound() {
  return (
    <Stack>
      <Title order={1}>Page not found</Title>
      <Button component="a" href="/projects" w="fit-content">
        Go to projects
      </Button>
    </Stack>
  );
}

function FullPageLoader({ label }: { label: string }) {
  return (
    <Center mih="100vh">
      <Loader aria-label={label} />
    </Center>
  );
}

export function App() {
  const capabilities = useCapabilities();
  const appName = capabilities.data?.app_name;
  useEffect(() => {
    if (appName !== undefined) document.title = appName;
  }, [appName]);
  if (capabilities.isPending) return <FullPageLoader label="Contacting the server" />;
  if (capabilities.isError) {
    return (
      <Center mih="100vh" p="md">
        <Alert color="red" role="alert" title="The server cannot be reached" maw={480}>
          <Stack>
            {errorMessage(capabilities.error)}
            <Button onClick={() => capabilities.refetch()} w="fit-content">
              Try again
            </Button>
          </Stack>
        </Alert>
      </Center>
    );
  }
  return (
    <AuthProvider capabilities={capabilities.data}>
      {({ loadingUser }) =>
        loadingUser ? (
          <FullPageLoader label="Loading" />
        ) : (
          <Routes>
            <Route path="/auth/sign-in" element={<SignInPage />} />
            <Route path="/auth/register" element={<RegisterPage />} />
            <Route path="/auth/magic" element={<MagicLandingPage />} />
            <Route element={<RequireSignIn />}>
              <Route element={<Layout />}>
                <Route index element={<Navigate to="/home" replace />} />
                <Route path="/home" element={<HomePage />} />
                <Route path="/projects" element={<ProjectsPage />} />
                <Route path="/projects/:projectId" element={<ProjectDetailPage />} />
                <Route path="/dashboards" element={<DashboardsPage />} />
                <Route path="/dashboards/:dashboardId" element={<DashboardPage />} />
                <Route path="/jobs" element={<JobsPage />} />
                <Route path="/jobs/:jobId" element={<JobDetailPage />} />
                <Route path="/settings/tokens" element={<TokensPage />} />
                <Route element={<RequireAdmin />}>
                  <Route path="/admin/users" element={<UsersPage />} />
                  <Route path="/admin/audit" element={<AuditPage />} />
                </Route>
                <Route path="*" element={<NotFound />} />
              </Route>
            </Route>
          </Routes>
        )
      }
    </AuthProvider>
  );
}
