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
    };

export type UserActor = Extract<Actor, { kind: 'user' }>;
