import type { Capabilities } from '@service/common';

/** What `GET /utils/capabilities` answers in `mode`, with the usual switches; `auth` overrides them. */
export function capabilitiesFor(
  mode: Capabilities['auth_mode'],
  auth: Partial<Capabilities['auth']> = {},
  features: Capabilities['features'] = [],
): Capabilities {
  const open = mode === 'public' || mode === 'demo';
  return {
    version: '0.1.0',
    app_name: 'Pipeline Dashboards',
    auth_mode: mode,
    features,
    auth: {
      registration: mode === 'auth',
      password_login: true,
      oauth: false,
      temporary_users: open,
      access_code_required: false,
      temporary_user_expiry_hours: open ? 24 : null,
      ...auth,
    },
  };
}
