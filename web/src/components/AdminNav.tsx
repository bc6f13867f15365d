import { Alert, Anchor, NavLink } from '@mantine/core';
import type { User } from '@service/common';
import { Link, Outlet, useLocation } from 'react-router';
import type { SignInPlan } from '../auth/plan.js';
import { useAuth } from '../auth/session.js';

/** The admin pages exist only in auth mode (the other modes have no accounts to manage) and for admins. */
export function adminPagesVisible(plan: Pick<SignInPlan, 'userManagement'>, user: Pick<User, 'role'> | null): boolean {
  return plan.userManagement && user?.role === 'admin';
}

export const ADMIN_PAGES = [
  { to: '/admin/users', label: 'Users' },
  { to: '/admin/audit', label: 'Audit log' },
] as const;

/** The sidebar entries of the admin pages; nothing for anyone else. */
export function AdminNavLinks() {
  const { plan, user } = useAuth();
  const location = useLocation();
  if (!adminPagesVisible(plan, user)) return null;
  return ADMIN_PAGES.map((page) => (
    <NavLink
      key={page.to}
      component={Link}
      to={page.to}
      label={page.label}
      active={location.pathname.startsWith(page.to)}
    />
  ));
}

/** Routes below it answer like a missing page unless the admin pages are visible. */
export function RequireAdmin() {
  const { plan, user } = useAuth();
  if (adminPagesVisible(plan, user)) return <Outlet />;
  return (
    <Alert color="gray" title="Page not found" role="alert">
      {plan.userManagement
        ? 'This page is for administrators. '
        : 'There is no account administration in this access mode. '}
      <Anchor component={Link} to="/projects">
        Go to projects
      </Anchor>
    </Alert>
  );
}
