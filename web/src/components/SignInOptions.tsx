import { Alert, Anchor, Button, Divider, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { sessionAnswerSchema } from '@service/common';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { formatHours, oauthLoginUrl } from '../auth/plan.js';
import { useApi, useAuth } from '../auth/session.js';

/** Email + password sign-in; calls `onDone` once signed in. */
export function PasswordForm({ onDone }: { onDone: () => void }) {
  const api = useApi();
  const { signIn } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () =>
      api.request('/auth/login', sessionAnswerSchema, { json: { email: email.trim(), password }, auth: false }),
    onSuccess: (session) => {
      signIn(session);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  const failure = login.error
    ? isApiError(login.error, 'invalid_credentials')
      ? 'Wrong email or password.'
      : isApiError(login.error, 'rate_limited')
        ? 'Too many attempts. Wait a minute and try again.'
        : errorMessage(login.error)
    : null;
  return (
    <form onSubmit={submit} aria-label="Sign in with email and password">
      <Stack gap="sm">
        {failure && (
          <Alert color="red" role="alert" title="Could not sign in">
            {failure}
          </Alert>
        )}
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
        />
        <Button type="submit" loading={login.isPending} fullWidth>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}

export function OAuthButton({ next }: { next: string }) {
  return (
    <Button component="a" href={oauthLoginUrl(next)} variant="default" fullWidth>
      Sign in with your identity provider
    </Button>
  );
}

/** Creates a throwaway account (public and demo mode). */
export function TemporaryUserForm({
  accessCodeRequired,
  expiryHours,
  onDone,
}: {
  accessCodeRequired: boolean;
  expiryHours: number | null;
  onDone: () => void;
}) {
  const api = useApi();
  const { signIn } = useAuth();
  const [accessCode, setAccessCode] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.request('/auth/public/create_temporary_user', sessionAnswerSchema, {
        json: accessCodeRequired ? { access_code: accessCode } : {},
        auth: false,
      }),
    onSuccess: (session) => {
      signIn(session);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const failure = create.error
    ? isApiError(create.error, 'access_code_invalid')
      ? 'That access code is not right.'
      : isApiError(create.error, 'rate_limited')
        ? 'Too many temporary accounts were requested from here. Wait a little and try again.'
        : errorMessage(create.error)
    : null;
  return (
    <form onSubmit={submit} aria-label="Continue with a temporary account">
      <Stack gap="sm">
        <Text size="sm">
          Get a temporary account to explore and create content.
          {expiryHours !== null && (
            <>
              {' '}
              It lasts <strong>{formatHours(expiryHours)}</strong>; afterwards it and everything it created are removed.
            </>
          )}
        </Text>
        {failure && (
          <Alert color="red" role="alert" title="No temporary account">
            {failure}
          </Alert>
        )}
        {accessCodeRequired && (
          <PasswordInput
            label="Access code"
            description="This site asks for a code before creating temporary accounts."
            required
            value={accessCode}
            onChange={(event) => setAccessCode(event.currentTarget.value)}
          />
        )}
        <Button type="submit" loading={create.isPending} fullWidth>
          Continue with a temporary account
        </Button>
      </Stack>
    </form>
  );
}

/** The "Sign In" modal of public and demo mode. */
export function SignInModal({ opened, onClose, next }: { opened: boolean; onClose: () => void; next: string }) {
  const { plan } = useAuth();
  return (
    <Modal opened={opened} onClose={onClose} title="Sign in" centered>
      <Stack gap="md">
        {plan.temporaryUser && (
          <TemporaryUserForm
            accessCodeRequired={plan.temporaryUser.accessCodeRequired}
            expiryHours={plan.temporaryUser.expiryHours}
            onDone={onClose}
          />
        )}
        {plan.oauth && (
          <>
            <Divider label="or keep a permanent account" labelPosition="center" />
            <OAuthButton next={next} />
          </>
        )}
        {plan.passwordForm && (
          <Text size="sm" ta="center">
            Have an account?{' '}
            <Anchor component={Link} to={`/auth/sign-in?next=${encodeURIComponent(next)}`} onClick={onClose}>
              Sign in with your password
            </Anchor>
          </Text>
        )}
      </Stack>
    </Modal>
  );
}
