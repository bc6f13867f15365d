import { Alert, Anchor, Card, Center, Divider, Stack, Text, Title } from '@mantine/core';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { safeNextPath, signInErrorMessage } from '../auth/plan.js';
import { useAuth } from '../auth/session.js';
import { OAuthButton, PasswordForm, TemporaryUserForm } from '../components/SignInOptions.js';

export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Center mih="100vh" p="md">
      <Card withBorder shadow="sm" radius="md" p="xl" w="100%" maw={420} component="main">
        <Stack gap="md">
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Card>
    </Center>
  );
}

export function SignInPage() {
  const { plan, user } = useAuth();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = safeNextPath(params.get('next'));
  const error = params.get('error');

  if (!plan.signInAvailable) return <Navigate to="/projects" replace />;
  if (user !== null && error === null) return <Navigate to={next} replace />;

  const nothingOffered = !plan.passwordForm && !plan.oauth && plan.temporaryUser === null;
  return (
    <AuthCard title="Sign in">
      {error !== null && (
        <Alert color="red" role="alert" title="Sign-in refused">
          {signInErrorMessage(error)}
        </Alert>
      )}
      {plan.passwordForm && <PasswordForm onDone={() => navigate(next, { replace: true })} />}
      {plan.oauth && (
        <>
          {plan.passwordForm && <Divider label="or" labelPosition="center" />}
          <OAuthButton next={next} />
        </>
      )}
      {plan.temporaryUser && (
        <>
          <Divider label="or" labelPosition="center" />
          <TemporaryUserForm
            accessCodeRequired={plan.temporaryUser.accessCodeRequired}
            expiryHours={plan.temporaryUser.expiryHours}
            onDone={() => navigate(next, { replace: true })}
          />
        </>
      )}
      {nothingOffered && <Text>No sign-in method is enabled on this server. Contact its operator.</Text>}
      {plan.registration && (
        <Text size="sm" ta="center">
          No account yet?{' '}
          <Anchor component={Link} to={`/auth/register?next=${encodeURIComponent(next)}`}>
            Register
          </Anchor>
        </Text>
      )}
      {plan.anonymousBrowsing && (
        <Text size="sm" ta="center">
          <Anchor component={Link} to="/projects">
            Continue without signing in
          </Anchor>
        </Text>
      )}
    </AuthCard>
  );
}
