import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DataLocation } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import type { WorkflowsTable } from '../../src/db/tables.js';
import { type ScanOptions, scanWorkflow } from '../../src/ingestion/scanner.js';
import { realPathInsideRoots } from '../../src/locations/allowed-roots.js';

const sha = (content: string) => createHash('sha256').update(content).digest('hex');

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

describeEachDialect('scanning workflow locations', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let projectId: string;
  /** Holds the allowed root and, next to it, a folder outside it. */
  let base: string;
  let root: string;
  let outside: string;
  let workflowCount = 0;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'service-scan-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await mkdir(root, { recursive: true });
    await put(join(outside, 'secret.csv'), 'secret\n1\n');
    await put(join(outside, 'dir', 'inner.csv'), 'inner\n1\n');
    server = await startTestServer(dialect, { SERVICE_INGESTION_ALLOWED_ROOTS: root });
    const admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'scans' },
    });
    projectId = project.body.project_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
    await rm(base, { recursive: true, force: true });
  });

  async function workflow(dataLocation: DataLocation): Promise<WorkflowsTable> {
    workflowCount += 1;
    const id = await server.context.workflows.insert(
      projectId,
      { name: `wf${workflowCount}`, data_location: dataLocation },
      owner.user.user_id,
    );
    return readWorkflow(id);
  }

  const readWorkflow = (id: string) =>
    server.context.database.db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** Changes the stored location behind the API's back, as if the allowed roots had changed since. */
  async function relocate(row: WorkflowsTable, dataLocation: DataLocation): Promise<WorkflowsTable> {
    await server.context.database.db
      .updateTable('workflows')
      .set({ data_location: JSON.stringify(dataLocation) })
      .where('id', '=', row.id)
      .execute();
    return readWorkflow(row.id);
  }

  const scan = (row: WorkflowsTable, options?: ScanOptions) =>
    scanWorkflow(server.context.database, server.context.config.ingestion.allowedRoots, row, options);

  const filesOf = (workflowId: string) =>
    server.context.database.db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .select([
        'runs.tag',
        'files.id',
        'files.path',
        'files.size',
        'files.sha256',
        'files.modified_at',
        'files.content_type',
        'files.origin',
        'files.storage_key',
        'files.source_path',
        'files.created_at',
        'files.updated_at',
      ])
      .where('runs.workflow_id', '=', workflowId)
      .orderBy('runs.tag')
      .orderBy('files.path')
      .execute();

  const runsOf = (workflowId: string) =>
    server.context.database.db
      .selectFrom('runs')
      .select(['tag', 'location', 'status'])
      .where('workflow_id', '=', workflowId)
      .orderBy('tag')
      .execute();

  it('finds the runs of a runs-structured location by runs_regex, with nested files', async () => {
    const location = join(root, 'penguins');
    await put(join(location, 'run_1', 'measures.csv'), 'a,b\n1,2\n');
    await put(join(location, 'run_1', 'Biscoe', 'deep', 'sites.tsv'), 'site\tn\nx\t1\n');
    await put(join(location, 'run_12', 'data.json'), '{"a":1}');
    await put(join(location, 'other', 'ignored.csv'), 'x\n');
    await put(join(location, 'run_3'), 'a file, not a run folder');
    await put(join(location, '.run_4', 'hidden.csv'), 'x\n');
    const row = await workflow({ structure: 'runs', locations: [location], runs_regex: '^run_\\d+$' });

    const summary = await scan(row);
    expect(summary).toMatchObject({
      runs: 2,
      files: 3,
      added: 3,
      changed: 0,
      removed: 0,
      unchanged: 0,
      hashed: 3,
      skipped: [],
      errors: [],
      sourcePaths: [location],
    });
    expect(await runsOf(row.id)).toEqual([
      { tag: 'run_1', location: join(location, 'run_1'), status: 'registered' },
      { tag: 'run_12', location: join(location, 'run_12'), status: 'registered' },
    ]);
    const files = await filesOf(row.id);
    expect(files.map((file) => [file.tag, file.path])).toEqual([
      ['run_1', 'Biscoe/deep/sites.tsv'],
      ['run_1', 'measures.csv'],
      ['run_12', 'data.json'],
    ]);
    expect(files[0]).toMatchObject({
      size: Buffer.byteLength('site\tn\nx\t1\n'),
      sha256: sha('site\tn\nx\t1\n'),
      content_type: 'text/tab-separated-values',
      origin: 'scan',
      storage_key: null,
      source_path: join(location, 'run_1', 'Biscoe', 'deep', 'sites.tsv'),
    });
    expect(files[2]).toMatchObject({ sha256: sha('{"a":1}'), content_type: 'application/json' });

    // Without runs_regex, every visible sub-folder is a run.
    const everyFolder = await workflow({ structure: 'runs', locations: [location] });
    const all = await scan(everyFolder);
    expect(all).toMatchObject({ runs: 3, files: 4, added: 4, errors: [] });
    expect((await runsOf(everyFolder.id)).map((run) => run.tag)).toEqual(['other', 'run_1', 'run_12']);
  });

  it('treats a flat location as one run named after the folder', async () => {
    const location = join(root, 'flat', 'results');
    await put(join(location, 'top.csv'), 'a\n1\n');
    await put(join(location, 'island', 'Dream', 'measures.csv'), 'a\n2\n');
    const row = await workflow({ structure: 'flat', locations: [location] });

    const summary = await scan(row);
    expect(summary).toMatchObject({ runs: 1, files: 2, added: 2, errors: [], skipped: [] });
    expect(await runsOf(row.id)).toEqual([{ tag: 'results', location, status: 'registered' }]);
    expect((await filesOf(row.id)).map((file) => file.path)).toEqual(['island/Dream/measures.csv', 'top.csv']);
  });

  it('re-scans without reading unchanged files and changes nothing', async () => {
    const location = join(root, 'rescan');
    await put(join(location, 'run_1', 'a.csv'), 'a\n1\n');
    await put(join(location, 'run_1', 'sub', 'b.csv'), 'b\n1\n');
    await put(join(location, 'run_2', 'c.csv'), 'c\n1\n');
    const row = await workflow({ structure: 'runs', locations: [location] });
    await scan(row);
    const before = await filesOf(row.id);
    const runsBefore = await server.context.database.db
      .selectFrom('runs')
      .selectAll()
      .where('workflow_id', '=', row.id)
      .orderBy('tag')
      .execute();

    const again = await scan(row);
    expect(again).toMatchObject({
      runs: 2,
      files: 3,
      added: 0,
      changed: 0,
      removed: 0,
      unchanged: 3,
      hashed: 0,
      skipped: [],
      errors: [],
    });
    expect(await filesOf(row.id)).toEqual(before);
    expect(
      await server.context.database.db
        .selectFrom('runs')
        .selectAll()
        .where('workflow_id', '=', row.id)
        .orderBy('tag')
        .execute(),
    ).toEqual(runsBefore);
  });

  it('re-hashes a changed file, and only records the new time of a touched one', async () => {
    const location = join(root, 'changes');
    const grown = join(location, 'run_1', 'grown.csv');
    const sameSize = join(location, 'run_1', 'same-size.csv');
    const touched = join(location, 'run_1', 'touched.csv');
    await put(grown, 'a\n1\n');
    await put(sameSize, 'a\n1\n');
    await put(touched, 'a\n1\n');
    const row = await workflow({ structure: 'runs', locations: [location] });
    await scan(row);
    const before = new Map((await filesOf(row.id)).map((file) => [file.path, file]));

    await writeFile(grown, 'a\n1\n2\n');
    await writeFile(sameSize, 'a\n9\n');
    const later = new Date(Date.now() + 60_000);
    await utimes(sameSize, later, later);
    await utimes(touched, later, later);

    // A second later, so that a changed record's updated_at differs from the first scan's.
    const summary = await withClockAhead(1_000, () => scan(row));
    expect(summary).toMatchObject({ files: 3, added: 0, changed: 2, unchanged: 1, removed: 0, hashed: 3 });
    const after = new Map((await filesOf(row.id)).map((file) => [file.path, file]));
    expect(after.get('grown.csv')).toMatchObject({
      id: before.get('grown.csv')?.id,
      created_at: before.get('grown.csv')?.created_at,
      size: 6,
      sha256: sha('a\n1\n2\n'),
    });
    expect(after.get('grown.csv')?.updated_at).not.toBe(before.get('grown.csv')?.updated_at);
    expect(after.get('same-size.csv')).toMatchObject({ sha256: sha('a\n9\n'), modified_at: later.toISOString() });
    expect(after.get('same-size.csv')?.updated_at).not.toBe(before.get('same-size.csv')?.updated_at);
    // Same content, new time: the time is recorded (so the next scan is fast), the content record stays.
    expect(after.get('touched.csv')).toMatchObject({
      sha256: before.get('touched.csv')?.sha256,
      modified_at: later.toISOString(),
      updated_at: before.get('touched.csv')?.updated_at,
    });

    expect(await scan(row)).toMatchObject({ changed: 0, unchanged: 3, hashed: 0 });
  });

  it('unregisters scanned files that are gone, and never touches uploads', async () => {
    const location = join(root, 'removals');
    await put(join(location, 'run_1', 'keep.csv'), 'a\n1\n');
    await put(join(location, 'run_1', 'drop.csv'), 'a\n2\n');
    await put(join(location, 'run_1', 'clash.csv'), 'from disk\n');
    await put(join(location, 'run_2', 'only.csv'), 'a\n3\n');
    const row = await workflow({ structure: 'runs', locations: [location] });
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${row.id}/datacollections`,
      { token: owner.access_token, json: { tag: 'anything', pattern: '.*\\.csv', format: 'csv' } },
    );
    expect(collection.status).toBe(201);
    const upload = (run: string, path: string, content: string) => {
      const form = new FormData();
      form.append('run', run);
      form.append('path', path);
      form.append('file', new Blob([content]), path);
      return call(server, 'POST', `/datacollections/${collection.body.data_collection_id}/files`, {
        token: owner.access_token,
        form,
      });
    };
    expect((await upload('run_1', 'uploaded.csv', 'u\n1\n')).status).toBe(201);
    expect((await upload('run_1', 'clash.csv', 'uploaded\n')).status).toBe(201);
    expect((await upload('run_2', 'uploaded.csv', 'u\n2\n')).status).toBe(201);

    const first = await scan(row);
    expect(first).toMatchObject({ added: 3, files: 3 });
    expect(first.skipped).toEqual([
      { path: join(location, 'run_1', 'clash.csv'), reason: 'an uploaded file has the same path in this run' },
    ]);

    await rm(join(location, 'run_1', 'drop.csv'));
    await rm(join(location, 'run_2'), { recursive: true });
    const second = await scan(row);
    expect(second).toMatchObject({ runs: 1, files: 1, removed: 2, unchanged: 1, added: 0, changed: 0 });
    const files = await filesOf(row.id);
    expect(files.map((file) => [file.tag, file.path, file.origin])).toEqual([
      ['run_1', 'clash.csv', 'upload'],
      ['run_1', 'keep.csv', 'scan'],
      ['run_1', 'uploaded.csv', 'upload'],
      ['run_2', 'uploaded.csv', 'upload'],
    ]);
    expect(files.find((file) => file.path === 'clash.csv')?.sha256).toBe(sha('uploaded\n'));
    expect(await scan(row)).toMatchObject({ removed: 0, unchanged: 1, added: 0 });
  });

  it('does not follow symbolic links that leave the allowed roots, but follows those that stay', async () => {
    const location = join(root, 'links');
    const run = join(location, 'run_1');
    await put(join(run, 'real.csv'), 'a\n1\n');
    await put(join(root, 'shared', 'lib', 'shared.csv'), 'shared\n1\n');
    await symlink(join(outside, 'secret.csv'), join(run, 'secret.csv'));
    await symlink(join(outside, 'dir'), join(run, 'escape'));
    await symlink(join(run, 'real.csv'), join(run, 'alias.csv'));
    await symlink(join(root, 'shared', 'lib'), join(run, 'lib'));
    await symlink(run, join(run, 'loop'));
    await symlink(join(run, 'missing.csv'), join(run, 'dangling.csv'));
    await symlink(outside, join(location, 'run_2'));
    const row = await workflow({ structure: 'runs', locations: [location] });

    const summary = await scan(row);
    expect((await filesOf(row.id)).map((file) => [file.tag, file.path, file.source_path])).toEqual([
      ['run_1', 'alias.csv', join(run, 'alias.csv')],
      ['run_1', 'lib/shared.csv', join(run, 'lib', 'shared.csv')],
      ['run_1', 'real.csv', join(run, 'real.csv')],
    ]);
    expect(summary).toMatchObject({ runs: 1, files: 3, added: 3, errors: [] });
    // Run folders are found first, then each run is walked in name order.
    expect(summary.skipped).toEqual([
      { path: join(location, 'run_2'), reason: 'symbolic link leads outside the allowed roots' },
      { path: join(run, 'dangling.csv'), reason: 'symbolic link target does not exist' },
      { path: join(run, 'escape'), reason: 'symbolic link leads outside the allowed roots' },
      { path: join(run, 'loop'), reason: 'symbolic link loops back into a folder being scanned' },
      { path: join(run, 'secret.csv'), reason: 'symbolic link leads outside the allowed roots' },
    ]);
    expect(JSON.stringify(await filesOf(row.id))).not.toContain(sha('secret\n1\n'));

    // Readers of source_path can check the same again when they open a file.
    const roots = server.context.config.ingestion.allowedRoots;
    expect(await realPathInsideRoots(join(run, 'alias.csv'), roots)).toBe(join(run, 'real.csv'));
    expect(await realPathInsideRoots(join(run, 'secret.csv'), roots)).toBeNull();
    expect(await realPathInsideRoots(join(run, 'escape', 'inner.csv'), roots)).toBeNull();
    expect(await realPathInsideRoots(join(outside, 'secret.csv'), roots)).toBeNull();
  });

  it('refuses a location that leads out of the roots through a symbolic link, itself or by a parent', async () => {
    await symlink(outside, join(root, 'escape'));
    const itself = join(root, 'escape');
    const byParent = join(root, 'escape', 'dir');
    const row = await workflow({ structure: 'flat', locations: [itself, byParent] });

    const summary = await scan(row);
    expect(summary).toMatchObject({ runs: 0, files: 0, added: 0, sourcePaths: [] });
    expect(summary.errors).toEqual([
      {
        location: itself,
        message: 'the location leads outside SERVICE_INGESTION_ALLOWED_ROOTS through a symbolic link',
      },
      {
        location: byParent,
        message: 'the location leads outside SERVICE_INGESTION_ALLOWED_ROOTS through a symbolic link',
      },
    ]);
    expect(await runsOf(row.id)).toEqual([]);
  });

  it('refuses a location outside the roots, and unregisters what was scanned from where it may no longer read', async () => {
    const location = join(root, 'moved');
    await put(join(location, 'a.csv'), 'a\n1\n');
    const row = await workflow({ structure: 'flat', locations: [location] });
    expect(await scan(row)).toMatchObject({ added: 1 });

    const refused = await relocate(row, { structure: 'flat', locations: [join(outside, 'dir')] });
    const summary = await scan(refused);
    expect(summary).toMatchObject({ runs: 0, files: 0, removed: 1, sourcePaths: [] });
    expect(summary.errors).toEqual([
      { location: join(outside, 'dir'), message: 'the location is not inside SERVICE_INGESTION_ALLOWED_ROOTS' },
    ]);
    expect(await filesOf(row.id)).toEqual([]);

    const relative = await relocate(row, { structure: 'flat', locations: ['relative/path'] });
    expect((await scan(relative)).errors).toEqual([
      { location: 'relative/path', message: 'the location is not inside SERVICE_INGESTION_ALLOWED_ROOTS' },
    ]);
  });

  it('reports a missing location, scans the others, and keeps what was registered from it', async () => {
    const present = join(root, 'present');
    const vanishing = join(root, 'vanishing');
    await put(join(present, 'a.csv'), 'a\n1\n');
    await put(join(vanishing, 'b.csv'), 'b\n1\n');
    const row = await workflow({ structure: 'flat', locations: [present, vanishing] });
    expect(await scan(row)).toMatchObject({ runs: 2, added: 2 });

    await rm(vanishing, { recursive: true });
    const summary = await scan(row);
    expect(summary).toMatchObject({ runs: 1, files: 1, unchanged: 1, removed: 0, sourcePaths: [present] });
    expect(summary.errors).toEqual([{ location: vanishing, message: 'the location does not exist' }]);
    expect((await filesOf(row.id)).map((file) => [file.tag, file.path])).toEqual([
      ['present', 'a.csv'],
      ['vanishing', 'b.csv'],
    ]);

    const never = await workflow({ structure: 'runs', locations: [join(root, 'never-created')] });
    expect(await scan(never)).toMatchObject({
      runs: 0,
      errors: [{ location: join(root, 'never-created'), message: 'the location does not exist' }],
    });
  });

  it('reports two locations with a run of the same name', async () => {
    const one = join(root, 'dup-one');
    const two = join(root, 'dup-two');
    await put(join(one, 'run_1', 'a.csv'), 'a\n1\n');
    await put(join(two, 'run_1', 'b.csv'), 'b\n1\n');
    const row = await workflow({ structure: 'runs', locations: [one, two] });
    const summary = await scan(row);
    expect(summary).toMatchObject({ runs: 1, files: 1 });
    expect(summary.errors).toEqual([
      { location: join(two, 'run_1'), message: 'another location already has a run named run_1' },
    ]);
  });

  it('skips hidden files and folders', async () => {
    const location = join(root, 'hidden');
    await put(join(location, 'run_1', 'seen.csv'), 'a\n1\n');
    await put(join(location, 'run_1', '.hidden.csv'), 'a\n2\n');
    await put(join(location, 'run_1', '.git', 'config'), '[core]\n');
    await put(join(location, 'run_1', 'sub', '.DS_Store'), 'x');
    await put(join(location, 'run_1', 'sub', 'visible.csv'), 'a\n3\n');
    const row = await workflow({ structure: 'runs', locations: [location] });
    const summary = await scan(row);
    expect(summary).toMatchObject({ files: 2, skipped: [], errors: [] });
    expect((await filesOf(row.id)).map((file) => file.path)).toEqual(['seen.csv', 'sub/visible.csv']);
  });

  it('stops when aborted, throwing the abort reason', async () => {
    const location = join(root, 'abort');
    await put(join(location, 'run_1', 'a.csv'), 'a\n1\n');
    await put(join(location, 'run_2', 'b.csv'), 'b\n1\n');
    await put(join(location, 'run_3', 'c.csv'), 'c\n1\n');
    const row = await workflow({ structure: 'runs', locations: [location] });

    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const progress: [string, number | null][] = [];
    const scanning = scan(row, {
      signal: controller.signal,
      onProgress: (detail, fraction) => {
        progress.push([detail, fraction]);
        if (detail.includes('run_2')) controller.abort(reason);
      },
    });
    await expect(scanning).rejects.toBe(reason);
    expect(progress).toEqual([
      ['finding runs', null],
      ['scanning run run_1 (1/3)', 0],
      ['scanning run run_2 (2/3)', 1 / 3],
    ]);
    expect((await filesOf(row.id)).map((file) => file.tag)).toEqual(['run_1']);

    const already = new AbortController();
    already.abort(reason);
    await expect(scan(row, { signal: already.signal })).rejects.toBe(reason);

    const finished = await scan(row);
    expect(finished).toMatchObject({ runs: 3, added: 2, unchanged: 1 });
  });

  it('is safe to run concurrently, for the same workflow and for different ones', async () => {
    const location = join(root, 'concurrent');
    for (let run = 1; run <= 3; run++)
      for (let file = 1; file <= 20; file++)
        await put(join(location, `run_${run}`, `f${file}.csv`), `value\n${run * 100 + file}\n`);
    const row = await workflow({ structure: 'runs', locations: [location] });
    const other = await workflow({ structure: 'runs', locations: [location] });

    const summaries = await Promise.all([scan(row), scan(row), scan(other)]);
    for (const summary of summaries) expect(summary).toMatchObject({ runs: 3, files: 60, errors: [] });
    expect(await runsOf(row.id)).toHaveLength(3);
    expect(await filesOf(row.id)).toHaveLength(60);
    expect(await filesOf(other.id)).toHaveLength(60);
    expect(await scan(row)).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 60, hashed: 0 });
  });
});
