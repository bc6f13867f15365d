import {
  ActionIcon,
  Anchor,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  Menu,
  NavLink,
  Stack,
  Text,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure, useInterval } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { NotificationBell } from '../alerts/NotificationBell.js';
import { formatRemaining } from '../auth/plan.js';
import { useAuth } from '../auth/session.js';
import { useDemoTour } from '../tour/useDemoTour.js';
import { AdminNavLinks } from './AdminNav.js';
import { lazyComponent } from './lazyPage.js';

// Only anonymous visitors of a public or demo server see it: its forms, modal and their code are a
// chunk of their own rather than part of every page's start-up.
const SignInModal = lazyComponent(async () => (await import('./SignInOptions.js')).SignInModal, null);
// Demo mode only: the tour's code stays out of every other mode's pages.
const DemoTour = lazyComponent(async () => (await import('../tour/DemoTour.js')).DemoTour, null);

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: true });
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} theme`}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={`Switch to ${next} theme`}
        onClick={() => setColorScheme(next)}
      >
        <span aria-hidden="true">{computed === 'dark' ? '☀' : '☾'}</span>
      </ActionIcon>
    </Tooltip>
  );
}

/** How long a temporary session has left, updated every 30 seconds. */
export function useRemaining(expiresAt: string | null): string | null {
  const [now, setNow] = useState(() => Date.now());
  const interval = useInterval(() => setNow(Date.now()), 30_000);
  // biome-ignore lint/correctness/useExhaustiveDependencies: start/stop only follow expiresAt.
  useEffect(() => {
    if (expiresAt === null) return;
    interval.start();
    return interval.stop;
  }, [expiresAt]);
  return expiresAt === null ? null : formatRemaining(expiresAt, now);
}

function AccountArea() {
  const { user, plan, signOut } = useAuth();
  const [modalOpened, modal] = useDisclosure(false);
  const location = useLocation();
  const navigate = useNavigate();
  const remaining = useRemaining(user?.is_temporary ? user.expires_at : null);
  const here = `${location.pathname}${location.search}`;

  if (user === null) {
    if (!plan.signInAvailable) return null;
    if (plan.anonymousBrowsing) {
      return (
        <>
          <Button onClick={modal.open} data-tour="sign-in">
            Sign In
          </Button>
          <SignInModal opened={modalOpened} onClose={modal.close} next={here} />
        </>
      );
    }
    return (
      <Button component={Link} to={`/auth/sign-in?next=${encodeURIComponent(here)}`} data-tour="sign-in">
        Sign In
      </Button>
    );
  }
  const shownAs = user.is_temporary ? 'Temporary user' : user.email;
  return (
    <Group gap="xs" wrap="nowrap">
      <NotificationBell />
      {remaining !== null && (
        <Badge color="orange" variant="light">
          <Text span inherit visibleFrom="sm">
            Temporary session ·{' '}
          </Text>
          {remaining}
        </Badge>
      )}
      {plan.mode === 'single_user' ? (
        <Text size="sm" c="dimmed" visibleFrom="sm">
          {user.email}
        </Text>
      ) : (
        <Menu position="bottom-end">
          <Menu.Target>
            <Button
              variant="default"
              data-tour="sign-in"
              aria-label={`Account menu for ${shownAs}${user.is_temporary ? ` (${user.email})` : ''}`}
            >
              {/* Narrow on a phone, so the theme button beside it stays on the screen. */}
              <Text size="sm" truncate maw={{ base: 110, xs: 200 }}>
                {shownAs}
              </Text>
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>{user.email}</Menu.Label>
            {!user.is_temporary && (
              <Menu.Item component={Link} to="/settings/tokens">
                Access tokens
              </Menu.Item>
            )}
            <Menu.Item
              onClick={async () => {
                await signOut();
                navigate(plan.signInRequired ? '/auth/sign-in' : '/projects');
              }}
            >
              Sign out
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      )}
    </Group>
  );
}

/** The navigation at the left: the app's pages, then the mode's badge, the version and the API docs. */
function MainNav() {
  const { plan, capabilities, user } = useAuth();
  const location = useLocation();
  return (
    <Stack justify="space-between" h="100%">
      <Stack gap={4}>
        <NavLink component={Link} to="/home" label="Home" active={location.pathname === '/home'} />
        <NavLink
          component={Link}
          to="/projects"
          label="Projects"
          active={location.pathname.startsWith('/projects')}
          data-tour="projects"
        />
        <NavLink
          component={Link}
          to="/dashboards"
          label="Dashboards"
          active={location.pathname.startsWith('/dashboards')}
          data-tour="dashboards"
        />
        {user !== null && capabilities.features.includes('jobs') && (
          <NavLink component={Link} to="/jobs" label="Jobs" active={location.pathname.startsWith('/jobs')} />
        )}
        <AdminNavLinks />
      </Stack>
      <Stack gap="xs">
        {plan.badge && (
          <Badge
            size="lg"
            variant="light"
            color={plan.mode === 'single_user' ? 'grape' : 'teal'}
            fullWidth
            data-tour="welcome"
          >
            {plan.badge}
          </Badge>
        )}
        <Text size="xs" c="dimmed">
          Version {capabilities.version} ·{' '}
          <a href="/service/api/v1/docs" style={{ color: 'inherit' }}>
            API docs
          </a>
        </Text>
      </Stack>
    </Stack>
  );
}

export function Layout() {
  const [opened, { toggle, close }] = useDisclosure();
  const { plan, capabilities } = useAuth();
  const location = useLocation();
  const tour = useDemoTour(plan.mode === 'demo');
  // biome-ignore lint/correctness/useExhaustiveDependencies: close the mobile menu on navigation.
  useEffect(() => close(), [location.pathname]);
  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Anchor
              component={Link}
              to="/home"
              c="inherit"
              underline="never"
              fw={700}
              fz={{ base: 'md', xs: 'xl' }}
              truncate
              miw={0}
            >
              {capabilities.app_name}
            </Anchor>
          </Group>
          <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
            {plan.mode === 'demo' && (
              <Button variant="subtle" onClick={tour.start} aria-pressed={tour.open}>
                Tour
              </Button>
            )}
            <AccountArea />
            <ColorSchemeToggle />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main navigation">
        <MainNav />
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
      {tour.open && <DemoTour onEnd={tour.end} />}
    </AppShell>
  );
}
