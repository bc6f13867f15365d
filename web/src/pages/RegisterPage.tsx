import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { PASSWORD_MIN_LENGTH, sessionAnswerSchema, userSchema } from '@service/common';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { safeNextPath } from '../auth/plan.js';
import { useApi, useAuth } from '../auth/session.js';
import { AuthCard } from './SignInPage.js';

/** Registers the account, then signs in with it and goes on to `next`. */
function useRegister(next: string) {
  const api = useApi();
  const { signIn } = useAuth();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async ({ email, password }: { email: string; password: string }) => {
      await api.request('/auth/register', userSchema, { json: { email: email.trim(), password }, auth: false });
      return api.request('/auth/login', sessionAnswerSchema, { json: { email: email.trim(), password }, auth: false });
    },
    onSuccess: (session) => {
      signIn(session);
      navigate(next, { replace: true });
    },
  });
}

function RegistrationClosed() {
  return (
    <AuthCard title="Registration is closed">
      <Text>New accounts cannot be created here. Ask an administrator for an account.</Text>
      <Anchor component={Link} to="/auth/sign-in">
        Back to sign in
      </Anchor>
    </AuthCard>
  );
}

export function RegisterPage() {
  const { plan } = useAuth();
  const [params] = useSearchParams();
  const next = safeNextPath(params.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const register = useRegister(next);

  if (!plan.signInAvailable) return <Navigate to="/projects" replace />;
  if (!plan.registration) return <RegistrationClosed />;

  const tooShort = password.length > 0 && password.length < PASSWORD_MIN_LENGTH;
  const mismatch = confirm.length > 0 && confirm !== password;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (tooShort || mismatch) return;
    register.mutate({ email, password });
  };
  const failure = register.error
    ? isApiError(register.error, 'email_taken')
      ? 'An account with this email already exists. Sign in instead.'
      : errorMessage(register.error)
    : null;
  return (
    <AuthCard title="Create an account">
      <form onSubmit={submit} aria-label="Register">
        <Stack gap="sm">
          {failure && (
            <Alert color="red" role="alert" title="Could not register">
              {failure}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            autoComplete="new-password"
            required
            value={password}
            error={tooShort ? `Use at least ${PASSWORD_MIN_LENGTH} characters` : undefined}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <PasswordInput
            label="Repeat password"
            autoComplete="new-password"
            required
            value={confirm}
            error={mismatch ? 'The passwords differ' : undefined}
            onChange={(event) => setConfirm(event.currentTarget.value)}
          />
          <Button type="submit" loading={register.isPending} fullWidth>
            Register
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center">
        Already registered?{' '}
        <Anchor component={Link} to={`/auth/sign-in?next=${encodeURIComponent(next)}`}>
          Sign in
        </Anchor>
      </Text>
    </AuthCard>
  );
}
