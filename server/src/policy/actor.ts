import type { Role } from '@service/common';

/** Who is asking. Every authorization decision starts from one of these. */
export type Actor =
  | {
      kind: 'anonymous';
      /** Public and demo mode let anonymous visitors read public content; auth mode does not. */
      mayBrowsePublic: boolean;
    }
  | {
      kind: 'user';
      userId: string;
      role: Role;
      isTemporary: boolean;
      /** The session behind the token; null for the fixed single-user-mode admin, who has none. */
      sessionId: string | null;
      /** Present when the request came with a personal access token: what that token allows. */
      token?: TokenGrant;
    };

/**
 * What a personal access token adds to its user's rights: only limits (docs/auth.md "Personal access
 * tokens"). `read` refuses every write; `projectIds` makes every other project absent.
 */
export interface TokenGrant {
  tokenId: string;
  scope: 'read' | 'write';
  /** null: every project its user can reach. */
  projectIds: readonly string[] | null;
}

export type UserActor = Extract<Actor, { kind: 'user' }>;
