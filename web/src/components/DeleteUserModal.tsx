import { Alert, Button, Group, List, Loader, Modal, NativeSelect, Radio, Stack, Text } from '@mantine/core';
import { type AdminUser, type UserDeletionSummary, userDeletionSummarySchema, userListSchema } from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { formatCount } from '../format/number.js';

const plural = (count: number, one: string, many = `${one}s`) => `${formatCount(count)} ${count === 1 ? one : many}`;

/** How many accounts to look through for admins who may take over (admins are few). */
const ACCOUNTS_SCANNED = 200;

/** The active admins who may take over what `user` owns alone, the acting admin first. */
function useSuccessors(user: AdminUser, myId: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: ['users', 'successors', user.user_id],
    queryFn: ({ signal }) => api.request('/users', userListSchema, { query: { limit: ACCOUNTS_SCANNED }, signal }),
    select: (list) =>
      list.items
        .filter((account) => account.role === 'admin' && !account.disabled && !account.is_temporary)
        .filter((account) => account.user_id !== user.user_id)
        .sort((a, b) => Number(b.user_id === myId) - Number(a.user_id === myId)),
  });
}

function OwnedList({ summary }: { summary: UserDeletionSummary }) {
  const others =
    summary.project_dashboards > 0
      ? ` (with ${plural(summary.project_dashboards, 'dashboard')} of other people in them)`
      : '';
  return (
    <List size="sm" aria-label="What the account owns alone">
      <List.Item>
        {plural(summary.projects, 'project')}
        {others}
      </List.Item>
      <List.Item>{plural(summary.dashboards, 'dashboard')}</List.Item>
    </List>
  );
}

type Fate = 'transfer' | 'delete';

/** Transfer to an admin (which one) or delete. */
function FateChoice(props: {
  fate: Fate;
  onFate: (fate: Fate) => void;
  successors: { value: string; label: string }[];
  successor: string | undefined;
  onSuccessor: (userId: string) => void;
}) {
  return (
    <>
      <Radio.Group
        label="What becomes of them"
        value={props.fate}
        onChange={(value) => props.onFate(value === 'delete' ? 'delete' : 'transfer')}
      >
        <Stack gap={6} mt={4}>
          <Radio value="transfer" label="Transfer them to an admin" />
          <Radio value="delete" label="Delete them, projects with all their data" />
        </Stack>
      </Radio.Group>
      {props.fate === 'transfer' && (
        <NativeSelect
          label="New owner"
          value={props.successor ?? ''}
          onChange={(event) => props.onSuccessor(event.currentTarget.value)}
          data={props.successors}
        />
      )}
    </>
  );
}

/** The summary, the choice transfer-to-admin or delete, then Delete or Keep. */
function DeleteUserForm({ user, onClose }: { user: AdminUser; onClose: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { user: me } = useAuth();
  const [fate, setFate] = useState<Fate>('transfer');
  const [successor, setSuccessor] = useState<string | undefined>(undefined);
  const summary = useQuery({
    queryKey: ['user-deletion-summary', user.user_id],
    queryFn: ({ signal }) =>
      api.request(`/users/${user.user_id}/deletion-summary`, userDeletionSummarySchema, { signal }),
  });
  const successors = useSuccessors(user, me?.user_id);
  const transferTo = successor ?? successors.data?.[0]?.user_id;
  const remove = useMutation({
    mutationFn: () =>
      api.requestVoid(`/users/${user.user_id}`, {
        method: 'DELETE',
        query: fate === 'delete' ? { delete_owned: 'true' } : { transfer_to: transferTo },
      }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      onClose();
    },
  });
  if (summary.isPending) return <Loader size="sm" aria-label="Counting what the account owns" />;
  if (summary.isError) return <Alert color="red">{errorMessage(summary.error)}</Alert>;
  const owns = summary.data.projects + summary.data.dashboards > 0;
  return (
    <Stack gap="sm">
      <Text size="sm">
        <strong>{user.email}</strong> will be deleted and signed out at once (
        {plural(summary.data.active_sessions, 'open session')}); it can no longer sign in.
        {summary.data.active_embed_tokens > 0 &&
          ` Embed links it made stop working: ${formatCount(summary.data.active_embed_tokens)}.`}
      </Text>
      {owns ? (
        <>
          <Text size="sm">It owns alone:</Text>
          <OwnedList summary={summary.data} />
          <FateChoice
            fate={fate}
            onFate={setFate}
            successors={(successors.data ?? []).map((admin) => ({
              value: admin.user_id,
              label: admin.user_id === me?.user_id ? `${admin.email} (you)` : admin.email,
            }))}
            successor={transferTo}
            onSuccessor={setSuccessor}
          />
        </>
      ) : (
        <Text size="sm">It owns no project or dashboard alone; what it shares stays with the other owners.</Text>
      )}
      <Text size="sm">This cannot be undone.</Text>
      {remove.isError && (
        <Alert color="red" role="alert" title="The account was not deleted">
          {errorMessage(remove.error)}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-autofocus>
          Keep it
        </Button>
        <Button
          color="red"
          loading={remove.isPending}
          disabled={owns && fate === 'transfer' && transferTo === undefined}
          onClick={() => remove.mutate()}
        >
          Delete {user.email}
        </Button>
      </Group>
    </Stack>
  );
}

/** Deleting an account (admins): what it owns alone goes to an admin or is deleted, as chosen here. */
export function DeleteUserModal({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  return (
    <Modal opened={user !== null} onClose={onClose} title="Delete this account?">
      {user && <DeleteUserForm key={user.user_id} user={user} onClose={onClose} />}
    </Modal>
  );
}
