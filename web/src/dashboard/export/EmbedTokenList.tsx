import { Alert, Badge, Button, Loader, Table, Text, VisuallyHidden } from '@mantine/core';
import { type DashboardComponent, type EmbedToken, embedTokenListSchema } from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api/client.js';
import { useApi } from '../../auth/session.js';
import { formatDate } from '../../format/date.js';
import { componentLabel } from '../chips.js';
import { embedScopeLabel, embedTokenState } from './embed-snippet.js';

export const embedTokensKey = (dashboardId: string) => ['embed-tokens', dashboardId];

const STATE_COLOR = { active: 'green', expired: 'gray', revoked: 'red' } as const;

/** The dashboard's embed tokens, newest first (never their secrets), each revocable while it works. */
export function EmbedTokenList({
  dashboardId,
  components,
}: {
  dashboardId: string;
  components: readonly DashboardComponent[];
}) {
  const api = useApi();
  const client = useQueryClient();
  const tokens = useQuery({
    queryKey: embedTokensKey(dashboardId),
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/embed_tokens`, embedTokenListSchema, { query: { limit: 200 }, signal }),
  });
  const revoke = useMutation({
    mutationFn: (tokenId: string) =>
      api.requestVoid(`/dashboards/${dashboardId}/embed_tokens/${tokenId}`, { method: 'DELETE' }),
    onSettled: () => client.invalidateQueries({ queryKey: embedTokensKey(dashboardId) }),
  });
  if (tokens.isPending) return <Loader size="sm" aria-label="Loading the embed tokens" />;
  if (tokens.isError) {
    return (
      <Alert color="red" role="alert" title="Could not load the embed tokens">
        {errorMessage(tokens.error)}
      </Alert>
    );
  }
  if (tokens.data.items.length === 0) return <Text c="dimmed">No embed tokens yet.</Text>;
  const titles = componentTitles(components);
  const now = new Date();
  return (
    <>
      {revoke.isError && (
        <Alert color="red" role="alert" title="Could not revoke the token">
          {errorMessage(revoke.error)}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={560}>
        <Table aria-label="Embed tokens" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Scope</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.data.items.map((token) => (
              <TokenRow
                key={token.embed_token_id}
                token={token}
                scope={embedScopeLabel(token, titles)}
                state={embedTokenState(token, now)}
                revoking={revoke.isPending && revoke.variables === token.embed_token_id}
                onRevoke={() => revoke.mutate(token.embed_token_id)}
              />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

/** Each component's title (or what it shows, untitled), to name a token's scope. */
function componentTitles(components: readonly DashboardComponent[]): Map<string, string> {
  return new Map(
    components.map((component) => [
      component.component_id,
      component.title || (component.type === 'text' ? 'Text' : componentLabel(component)),
    ]),
  );
}

/** A token's line: what it opens, its dates and state, and a button to revoke it while it works. */
function TokenRow({
  token,
  scope,
  state,
  revoking,
  onRevoke,
}: {
  token: EmbedToken;
  scope: string;
  state: ReturnType<typeof embedTokenState>;
  revoking: boolean;
  onRevoke: () => void;
}) {
  return (
    <Table.Tr data-embed-token-id={token.embed_token_id}>
      <Table.Td>{scope}</Table.Td>
      <Table.Td>{formatDate(token.created_at)}</Table.Td>
      <Table.Td>{formatDate(token.expires_at)}</Table.Td>
      <Table.Td>{token.last_used_at === null ? 'never' : formatDate(token.last_used_at)}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={STATE_COLOR[state]}>
          {state}
        </Badge>
      </Table.Td>
      <Table.Td>
        {state !== 'revoked' && (
          <Button
            size="compact-xs"
            variant="subtle"
            color="red"
            loading={revoking}
            aria-label={`Revoke the token for ${scope} created ${formatDate(token.created_at)}`}
            onClick={onRevoke}
          >
            Revoke
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
