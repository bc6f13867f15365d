import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  NativeSelect,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  type AdminUser,
  adminUserSchema,
  type CreateUserRequest,
  PASSWORD_MIN_LENGTH,
  type Role,
  roleSchema,
  type UpdateUserRequest,
  userListSchema,
} from '@service/common';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { DeleteUserModal } from '../components/DeleteUserModal.js';
import { ErrorList } from '../components/ProjectActions.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';
import { formatCount } from '../format/number.js';

const PAGE_SIZE = 20;
const ROLES = roleSchema.options.map((role) => ({ value: role, label: role === 'admin' ? 'Admin' : 'User' }));

function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('user');
  const close = () => {
    setEmail('');
    setPassword('');
    setRole('user');
    create.reset();
    onClose();
  };
  const create = useMutation({
    mutationFn: (body: CreateUserRequest) => api.request('/users', adminUserSchema, { json: body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      close();
    },
  });
  return (
    <Modal opened={opened} onClose={close} title="Create an account">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({ email, password, role });
        }}
      >
        <Stack>
          <TextInput
            label="Email"
            type="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters; tell it to the person, who can keep using it.`}
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <NativeSelect
            label="Role"
            data={ROLES}
            value={role}
            onChange={(event) => setRole(roleSchema.parse(event.currentTarget.value))}
          />
          {create.isError && <ErrorList error={create.error} title="The account was not created" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create account
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function UserRow({ account, onDelete }: { account: AdminUser; onDelete: (user: AdminUser) => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const { user: me } = useAuth();
  const update = useMutation({
    mutationFn: (changes: UpdateUserRequest) =>
      api.request(`/users/${account.user_id}`, adminUserSchema, { method: 'PATCH', json: changes }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['users'] }),
  });
  const isMe = me?.user_id === account.user_id;
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={500}>
          {account.email}
          {isMe && (
            <Text span size="xs" c="dimmed" ml={6}>
              (you)
            </Text>
          )}
        </Text>
        {update.isError && (
          <Text size="xs" c="red" role="alert">
            {errorMessage(update.error)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <NativeSelect
          size="xs"
          aria-label={`Role of ${account.email}`}
          data={ROLES}
          value={account.role}
          disabled={update.isPending}
          onChange={(event) => update.mutate({ role: roleSchema.parse(event.currentTarget.value) })}
        />
      </Table.Td>
      <Table.Td>
        {account.disabled ? (
          <Badge color="gray">disabled</Badge>
        ) : (
          <Badge color="teal" variant="light">
            active
          </Badge>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDate(account.created_at)}</Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Button
            size="xs"
            variant="default"
            loading={update.isPending}
            aria-label={`${account.disabled ? 'Enable' : 'Disable'} ${account.email}`}
            onClick={() => update.mutate({ disabled: !account.disabled })}
          >
            {account.disabled ? 'Enable' : 'Disable'}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            aria-label={`Delete ${account.email}`}
            // Nobody deletes their own account here (the API refuses it too): another admin does.
            disabled={isMe}
            onClick={() => onDelete(account)}
          >
            Delete
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Account administration (admins, auth mode). */
export function UsersPage() {
  const api = useApi();
  const page = usePageParam();
  const [createOpened, createModal] = useDisclosure(false);
  const [deleting, setDeleting] = useState<AdminUser | null>(null);
  const users = useQuery({
    queryKey: ['users', page],
    queryFn: ({ signal }) =>
      api.request('/users', userListSchema, { query: { limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });

  let body: React.ReactNode;
  if (users.isPending) body = <Loader aria-label="Loading accounts" />;
  else if (users.isError) {
    body = (
      <Alert color="red" role="alert" title="Could not load accounts">
        {errorMessage(users.error)}
      </Alert>
    );
  } else {
    body = (
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {formatCount(users.data.total)} {users.data.total === 1 ? 'account' : 'accounts'}, newest first. Disabling or
          deleting an account ends its sessions at once.
        </Text>
        <Table.ScrollContainer minWidth={720}>
          <Table striped highlightOnHover verticalSpacing="sm" aria-label="Accounts">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th w={130}>Role</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.data.items.map((account) => (
                <UserRow key={account.user_id} account={account} onDelete={setDeleting} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <UrlPagination pages={Math.ceil(users.data.total / PAGE_SIZE)} label="Account pages" />
      </Stack>
    );
  }

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1}>Users</Title>
        <Button onClick={createModal.open}>Create account</Button>
      </Group>
      {body}
      <CreateUserModal opened={createOpened} onClose={createModal.close} />
      <DeleteUserModal user={deleting} onClose={() => setDeleting(null)} />
    </Stack>
  );
}
