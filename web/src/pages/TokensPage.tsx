import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  MultiSelect,
  NativeSelect,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  ACCESS_TOKEN_DEFAULT_DAYS,
  type AccessToken,
  type AccessTokenScope,
  accessTokenListSchema,
  type CreateAccessTokenRequestInput,
  type CreatedAccessToken,
  createdAccessTokenSchema,
  projectListSchema,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../auth/session.js';
import { ErrorList } from '../components/ProjectActions.js';
import { RevocableTable } from '../components/RevocableTable.js';
import { formatDate } from '../format/date.js';

const TOKENS_KEY = ['access-tokens'];
const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: String(ACCESS_TOKEN_DEFAULT_DAYS), label: `${ACCESS_TOKEN_DEFAULT_DAYS} days` },
  { value: '366', label: 'A year' },
];

/** The secret of a token just made, with its Copy button: the only time anyone sees it. */
function NewToken({ created }: { created: CreatedAccessToken }) {
  return (
    <Alert color="green" title={`Token “${created.name}” created`} role="status">
      <Stack gap="xs">
        <Text size="sm">Copy it now: it is shown only this once. Use it as SERVICE_TOKEN or a bearer token.</Text>
        <Group wrap="nowrap" align="center">
          <Code data-testid="new-token" style={{ overflowWrap: 'anywhere', flex: 1 }}>
            {created.token}
          </Code>
          <CopyButton value={created.token}>
            {({ copied, copy }) => (
              <Button
                variant="light"
                onClick={copy}
                miw={90}
                aria-label={copied ? 'Copied the token' : 'Copy the token'}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}

/** The projects a token is limited to (none chosen: every project its user can reach). */
function ProjectChoice({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const api = useApi();
  const projects = useQuery({
    queryKey: ['projects', 'token-choices'],
    queryFn: ({ signal }) => api.request('/projects', projectListSchema, { query: { limit: 200 }, signal }),
  });
  return (
    <MultiSelect
      label="Projects"
      description="Leave empty for every project you can reach; otherwise the token sees only these."
      placeholder={value.length === 0 ? 'All my projects' : undefined}
      data={(projects.data?.items ?? []).map((project) => ({ value: project.project_id, label: project.name }))}
      value={value}
      onChange={onChange}
      searchable
      clearable
    />
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (created: CreatedAccessToken) => void }) {
  const api = useApi();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [days, setDays] = useState(String(ACCESS_TOKEN_DEFAULT_DAYS));
  const [scope, setScope] = useState<AccessTokenScope>('read');
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (body: CreateAccessTokenRequestInput) =>
      api.request('/auth/tokens', createdAccessTokenSchema, { json: body }),
    onSuccess: (created) => {
      setName('');
      setProjectIds([]);
      onCreated(created);
      void client.invalidateQueries({ queryKey: TOKENS_KEY });
    },
  });
  return (
    <form
      aria-label="Create a token"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({
          name,
          expires_in_days: Number(days),
          scope,
          ...(projectIds.length > 0 ? { project_ids: projectIds } : {}),
        });
      }}
    >
      <Stack gap="sm" maw={560}>
        <TextInput
          label="Name"
          description="What uses it, e.g. “nightly pipeline”"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
        />
        <NativeSelect
          label="Expires after"
          data={EXPIRIES}
          value={days}
          onChange={(e) => setDays(e.currentTarget.value)}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="token-scope-label">
            Access
          </Text>
          <SegmentedControl
            aria-labelledby="token-scope-label"
            value={scope}
            onChange={(value) => setScope(value === 'write' ? 'write' : 'read')}
            data={[
              { value: 'read', label: 'Read only' },
              { value: 'write', label: 'Read and write' },
            ]}
          />
        </Stack>
        <ProjectChoice value={projectIds} onChange={setProjectIds} />
        {create.isError && <ErrorList error={create.error} title="The token was not created" />}
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create token
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TokenList() {
  const api = useApi();
  const now = new Date().toISOString();
  return (
    <RevocableTable<AccessToken>
      queryKey={TOKENS_KEY}
      load={(signal) => api.request('/auth/tokens', accessTokenListSchema, { query: { limit: 200 }, signal })}
      revoke={(tokenId) => api.requestVoid(`/auth/tokens/${tokenId}`, { method: 'DELETE' })}
      names={{ list: 'your tokens', empty: 'No tokens yet.', table: 'Your tokens' }}
      headers={['Name', 'Access', 'Projects', 'Expires', 'Last used']}
      minWidth={640}
      renderRow={(token, revokeButton) => (
        <Table.Tr key={token.token_id} data-token-id={token.token_id}>
          <Table.Td>{token.name}</Table.Td>
          <Table.Td>{token.scope === 'read' ? 'Read only' : 'Read and write'}</Table.Td>
          <Table.Td>{token.project_ids === null ? 'All' : token.project_ids.length}</Table.Td>
          <Table.Td>
            {token.expires_at <= now ? 'expired ' : ''}
            {formatDate(token.expires_at)}
          </Table.Td>
          <Table.Td>
            {token.last_used_at === null
              ? 'never'
              : `${formatDate(token.last_used_at)}${token.last_used_from ? ` from ${token.last_used_from}` : ''}`}
          </Table.Td>
          <Table.Td>{revokeButton(token.token_id, `Revoke the token ${token.name}`)}</Table.Td>
        </Table.Tr>
      )}
    />
  );
}

/** Personal access tokens (docs/auth.md): for pipelines and the `service` CLI. */
export function TokensPage() {
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
  return (
    <Stack>
      <Title order={1}>Access tokens</Title>
      <Text c="dimmed" maw={720}>
        Tokens let pipelines and the service CLI use the API as you, within what you choose here. A token never does
        more than your account can, and stops working when revoked, when it expires or when your account is disabled.
      </Text>
      {created !== null && <NewToken created={created} />}
      <Title order={2}>New token</Title>
      <CreateTokenForm onCreated={setCreated} />
      <Title order={2}>Your tokens</Title>
      <TokenList />
    </Stack>
  );
}
