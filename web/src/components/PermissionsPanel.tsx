import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  NativeSelect,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { type Project, projectSchema } from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import {
  addMember,
  changeRole,
  draftFromProject,
  isDirty,
  MEMBER_ROLES,
  type MemberRole,
  type PermissionsDraft,
  type PermissionsRequest,
  placeErrors,
  removeMember,
  toRequest,
} from '../permissions/draft.js';

function isMemberRole(value: string): value is MemberRole {
  return MEMBER_ROLES.some((role) => role.value === value);
}

/** Who may do what on the project; what editors and viewers see instead of the editor. */
function MemberList({ project }: { project: Project }) {
  const { members, isPublic } = draftFromProject(project);
  // The server names members only to members; a public project's visitors see roles alone.
  const named = members.every((member) => member.email !== '');
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {isPublic ? 'Public: everyone who can sign in sees this project.' : 'Private: only the people below see it.'}{' '}
        Only owners change who has access.{named ? '' : ' Members see who the members are.'}
      </Text>
      <List size="sm" aria-label="Members" spacing={2}>
        {members.map((member) => (
          <List.Item key={member.userId ?? member.email}>
            {member.email === '' ? 'A member' : member.email}{' '}
            <Badge size="xs" variant="light">
              {member.role}
            </Badge>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}

/** What the sharing editor edits: a project or a dashboard (the same members and public switch). */
export type Shared = Pick<Project, 'permissions' | 'is_public'>;

export interface SharingEditorProps<T extends Shared> {
  shared: T;
  /** `project` or `dashboard`: how the texts name the thing. */
  what: 'project' | 'dashboard';
  /** Sends the sharing to the server; answers the thing as saved. */
  send: (body: PermissionsRequest) => Promise<T>;
  onSaved: (saved: T) => void;
}

function ProjectSharingEditor({ project }: { project: Project }) {
  const api = useApi();
  const queryClient = useQueryClient();
  return (
    <SharingEditor
      shared={project}
      what="project"
      send={(body) =>
        api.request(`/projects/${project.project_id}/permissions`, projectSchema, { method: 'PUT', json: body })
      }
      onSaved={(saved) => {
        queryClient.setQueryData(['project', saved.project_id], saved);
        void queryClient.invalidateQueries({ queryKey: ['projects'] });
      }}
    />
  );
}

/**
 * The sharing draft and its save: an edit clears the last save's outcome; a refusal's field
 * errors are placed beside the person they name (`placed`).
 */
function useSharingDraft<T extends Shared>({ shared, send, onSaved }: Omit<SharingEditorProps<T>, 'what'>) {
  const [draft, setDraft] = useState<PermissionsDraft>(() => draftFromProject(shared));
  const save = useMutation({
    // The paths travel with the request so a refusal's field errors land beside the right person.
    mutationFn: (request: ReturnType<typeof toRequest>) => send(request.body),
    onSuccess: (saved) => {
      onSaved(saved);
      setDraft(draftFromProject(saved));
    },
  });
  const placed =
    save.error instanceof ApiError ? placeErrors(save.error.fieldErrors, save.variables?.paths ?? []) : undefined;
  const edit = (next: PermissionsDraft) => {
    setDraft(next);
    save.reset();
  };
  return { draft, edit, save, placed, dirty: isDirty(draft, shared) };
}

type PlacedErrors = ReturnType<typeof placeErrors>;

/** Owners, editors, viewers and the public switch of a project or dashboard; the server decides who may save. */
export function SharingEditor<T extends Shared>(props: SharingEditorProps<T>) {
  const { shared, what } = props;
  const { user } = useAuth();
  const { draft, edit, save, placed, dirty } = useSharingDraft(props);
  const losesSharing =
    user !== null &&
    user.role !== 'admin' &&
    !draft.members.some((member) => member.userId === user.user_id && member.role === 'owner');

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(toRequest(draft));
      }}
    >
      <Stack gap="sm">
        <Switch
          label={`Public: everyone who can sign in (and visitors, in public and demo modes) can see this ${what}`}
          checked={draft.isPublic}
          onChange={(event) => edit({ ...draft, isPublic: event.currentTarget.checked })}
        />
        <MemberTable draft={draft} placed={placed} onEdit={edit} />
        {draft.members.length === 0 && (
          <Text size="sm" c="dimmed">
            Nobody is listed. A {what} needs at least one owner.
          </Text>
        )}
        <AddMember draft={draft} onAdd={edit} />
        <Text size="xs" c="dimmed">
          People need an account first; an address without one is pointed out when you save.
        </Text>
        {losesSharing && dirty && (
          <Alert color="yellow" title="You are no longer an owner in this draft">
            After saving you will not be able to change who has access.
          </Alert>
        )}
        {save.isError && <SaveFailure error={save.error} placed={placed} />}
        {save.isSuccess && !dirty && (
          <Text size="sm" c="teal" role="status">
            Sharing saved.
          </Text>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" disabled={!dirty || save.isPending} onClick={() => edit(draftFromProject(shared))}>
            Discard changes
          </Button>
          <Button type="submit" loading={save.isPending} disabled={!dirty}>
            Save sharing
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const ROLE_CHOICES = MEMBER_ROLES.map((entry) => ({ value: entry.value, label: entry.label }));

/** The draft's members, each with its role to change, Remove, and the save's problem with it. */
function MemberTable({
  draft,
  placed,
  onEdit,
}: {
  draft: PermissionsDraft;
  placed: PlacedErrors | undefined;
  onEdit: (next: PermissionsDraft) => void;
}) {
  return (
    <Table aria-label="Members" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Person</Table.Th>
          <Table.Th w={160}>Role</Table.Th>
          <Table.Th w={110}>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {draft.members.map((member, index) => {
          const problem = placed?.byMember.get(index);
          return (
            <Table.Tr key={member.userId ?? `new:${member.email}`}>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Text size="sm">{member.email}</Text>
                  {member.userId === null && (
                    <Badge size="xs" variant="outline">
                      new
                    </Badge>
                  )}
                </Group>
                {problem && (
                  <Text size="xs" c="red" role="alert">
                    {problem}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <NativeSelect
                  size="xs"
                  aria-label={`Role of ${member.email}`}
                  data={ROLE_CHOICES}
                  value={member.role}
                  onChange={(event) => {
                    const next = event.currentTarget.value;
                    if (isMemberRole(next)) onEdit(changeRole(draft, index, next));
                  }}
                />
              </Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${member.email}`}
                  onClick={() => onEdit(removeMember(draft, index))}
                >
                  Remove
                </Button>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

/** An email and a role to add to the draft; a malformed or duplicate address is said beside it. */
function AddMember({ draft, onAdd }: { draft: PermissionsDraft; onAdd: (next: PermissionsDraft) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('viewer');
  const [addError, setAddError] = useState<string | null>(null);
  const add = () => {
    const result = addMember(draft, email, role);
    if ('error' in result) {
      setAddError(result.error);
      return;
    }
    onAdd(result.draft);
    setEmail('');
    setAddError(null);
  };
  return (
    <Group align="flex-end" gap="xs" wrap="wrap">
      <TextInput
        label="Add a person by email"
        placeholder="name@example.org"
        type="email"
        value={email}
        error={addError}
        onChange={(event) => {
          setEmail(event.currentTarget.value);
          setAddError(null);
        }}
        onKeyDown={(event) => {
          // Enter adds the person instead of saving the whole form.
          if (event.key === 'Enter') {
            event.preventDefault();
            add();
          }
        }}
        style={{ flex: 1, minWidth: 220 }}
      />
      <NativeSelect
        label="as"
        aria-label="Role of the person to add"
        data={ROLE_CHOICES}
        value={role}
        onChange={(event) => {
          const next = event.currentTarget.value;
          if (isMemberRole(next)) setRole(next);
        }}
      />
      <Button variant="default" onClick={add}>
        Add
      </Button>
    </Group>
  );
}

/** Why the save was refused, with the problems no member row could take. */
function SaveFailure({ error, placed }: { error: unknown; placed: PlacedErrors | undefined }) {
  return (
    <Alert color="red" role="alert" title="Sharing was not saved">
      <Stack gap={4}>
        <Text size="sm">{error instanceof ApiError ? error.message : errorMessage(error)}</Text>
        {placed && placed.general.length > 0 && (
          <List size="sm" aria-label="Problems">
            {placed.general.map((message) => (
              <List.Item key={message}>{message}</List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}

/** The project's sharing: an editor for owners and admins, a read-only list for everyone else. */
export function PermissionsPanel({ project }: { project: Project }) {
  const canShare = project.my_role === 'owner' || project.my_role === 'admin';
  return (
    <Card withBorder radius="md" component="section" aria-label="Sharing">
      <Stack gap="sm">
        <Title order={2} size="h3">
          Sharing
        </Title>
        {canShare ? <ProjectSharingEditor project={project} /> : <MemberList project={project} />}
      </Stack>
    </Card>
  );
}
