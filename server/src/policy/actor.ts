import type { Role } from '@service/common';

/** Who is asking. Every authorization decision starts from one of these. */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'user'; userId: string; role: Role; isTemporary: boolean; sessionId: string };

export const anonymous: Actor = { kind: 'anonymous' };
