import { Alert, Button, Loader, Stack, Text } from '@mantine/core';
import { sessionAnswerSchema } from '@service/common';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { type ApiClient, errorMessage, isApiError } from '../api/client.js';
import { parseMagicFragment } from '../auth/plan.js';
import { useApi, useAuth } from '../auth/session.js';
import { AuthCard } from './SignInPage.js';

// One redemption per ticket, however often React runs the effect (StrictMode runs it twice).
const redemptions = new Map<string, ReturnType<typeof redeem>>();
function redeem(api: ApiClient, ticket: string) {
  return api.request('/auth/magic_link/redeem', sessionAnswerSchema, { json: { ticket }, auth: false });
}
function redeemOnce(api: ApiClient, ticket: string) {
  let pending = redemptions.get(ticket);
  if (pending === undefined) {
    pending = redeem(api, ticket);
    redemptions.set(ticket, pending);
  }
  return pending;
}

/** `/auth/magic#ticket=…&next=…`: spends the ticket and opens `next`. */
export function MagicLandingPage() {
  const api = useApi();
  const { signIn } = useAuth();
  const navigate = useNavigate();
  const [fragment] = useState(() => parseMagicFragment(window.location.hash));
  const [failure, setFailure] = useState<string | null>(
    fragment.ticket === null ? 'This sign-in link is incomplete. Open the whole link, or sign in another way.' : null,
  );

  useEffect(() => {
    // The ticket must not linger in the address bar or the history.
    if (window.location.hash !== '') {
      window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}`);
    }
    if (fragment.ticket === null) return;
    let active = true;
    redeemOnce(api, fragment.ticket).then(
      (session) => {
        if (!active) return;
        signIn(session);
        navigate(fragment.next, { replace: true });
      },
      (error: unknown) => {
        if (!active) return;
        setFailure(
          isApiError(error, 'token_invalid') || isApiError(error, 'validation_failed')
            ? 'This sign-in link has already been used or has expired. Links work once and only for a few minutes.'
            : errorMessage(error),
        );
      },
    );
    return () => {
      active = false;
    };
  }, [api, fragment, navigate, signIn]);

  if (failure !== null) {
    return (
      <AuthCard title="Sign-in link not valid">
        <Alert color="red" role="alert">
          {failure}
        </Alert>
        <Button component={Link} to={`/auth/sign-in?next=${encodeURIComponent(fragment.next)}`}>
          Sign in
        </Button>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Signing you in…">
      <Stack align="center">
        <Loader aria-label="Signing in" />
        <Text c="dimmed">Checking your sign-in link.</Text>
      </Stack>
    </AuthCard>
  );
}
