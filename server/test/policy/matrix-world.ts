/**
 * The actors, fixtures and expected statuses the route matrix (route-matrix.test.ts) and its rows
 * (matrix-rows-*.ts) are written in.
 */
import { randomUUID } from 'node:crypto';
import type { AuthMode } from '@service/common';
import type { CallOptions, Session, TestServer } from '../../../test/support/test-server.js';
import type { UserActor } from '../../src/policy/actor.js';

export type ActorName = 'admin' | 'owner' | 'editor' | 'viewer' | 'other' | 'temporary' | 'anonymous';
export const PROVISIONING_KEY = 'p'.repeat(48);
export const INTERNAL_KEY = 'i'.repeat(48);

export interface Fixture {
  projectId: string;
  workflowId: string;
  dataCollectionId: string;
  runId: string;
  fileId: string;
  /** A private dashboard of the project, created by its owner: a table and a text component. */
  dashboardId: string;
}

export interface World {
  server: TestServer;
  mode: AuthMode;
  tokens: Partial<Record<ActorName, string>>;
  users: Partial<Record<ActorName, UserActor>>;
  p: Fixture;
  /** A new session for an actor (for routes that end one). */
  freshToken(actor: ActorName): Promise<string | undefined>;
  /** A throwaway project (with workflow, collection and run) owned by the owner, shared like P. */
  freshFixture(): Promise<Fixture>;
  /** The ids of everything the fixtures made: all private, all the owner's. */
  ownersIds: string[];
}

export interface Row {
  request(world: World, actor: ActorName): Promise<{ path: string; options?: CallOptions }>;
  expected(mode: AuthMode, actor: ActorName): number;
}

export const publicLike = (mode: AuthMode) => mode === 'public' || mode === 'demo';
export const anyone = (status: number) => () => status;
/** Routes that need a signed-in user (single-user mode: everyone is the admin). */
export const signedIn = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'single_user' || actor !== 'anonymous' ? ok : 401;
export const adminOnly = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || actor === 'admin') return ok;
  return actor === 'anonymous' ? 401 : 403;
};
export const userAdmin = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'auth' ? adminOnly(ok)(mode, actor) : 404;
/** Routes on the private project P, for an action only `allowed` roles may do. */
export const onProject = (ok: number, allowed: ActorName[]) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || allowed.includes(actor)) return ok;
  if (actor === 'anonymous') return publicLike(mode) && allowed.includes('viewer') ? 404 : 401;
  if (actor === 'other' || actor === 'temporary') return 404;
  return 403;
};
/** Jobs: their owner and admins see them; for everyone else they do not exist. */
export const ownJob = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || actor === 'admin' || actor === 'owner') return ok;
  return actor === 'anonymous' ? 401 : 404;
};
export const readers: ActorName[] = ['admin', 'owner', 'editor', 'viewer'];
export const outsiders: ActorName[] = ['other', 'temporary', 'anonymous'];
export const editors: ActorName[] = ['admin', 'owner', 'editor'];
export const owners: ActorName[] = ['admin', 'owner'];
export const reading = onProject(200, readers);

/** A pending job that belongs to the project owner (workers are off, so it stays pending). */
export async function ownersJob(world: World): Promise<string> {
  const owner = await world.server.context.users.repository.findByEmail('owner@example.org');
  const job = await world.server.context.jobs.enqueue(
    'deltatable.upsert',
    { data_collection_id: world.p.dataCollectionId },
    {
      userId: owner?.id ?? null,
      projectId: world.p.projectId,
    },
  );
  return job.job_id;
}

/** A session for the probe account without spending the login rate limit. */
export async function probeSession(world: World): Promise<Session> {
  const probe = await world.server.context.users.repository.findByEmail('probe@example.org');
  if (!probe) throw new Error('probe account missing');
  return world.server.context.sessions.start(probe);
}

export async function throwawayUser(world: World): Promise<string> {
  const row = await world.server.context.users.createAccount(
    { email: `victim-${randomUUID()}@example.org`, password: null, role: 'user' },
    { via: 'admin' },
  );
  return row.id;
}
