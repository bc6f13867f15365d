import { expect, inject, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';

// Two API replicas in this process need a server database; SQLite replicas are separate processes.
it.skipIf(inject('postgresAdminUrl') === '')(
  'starts one ingestion when two API replicas are triggered at once',
  async () => {
    const database = await createTestDatabase('postgres');
    const first = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    const second = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    try {
      const { access_token: token } = await login(first, ADMIN.email, ADMIN.password);
      const { projectId } = await createProjectWithUpload(first, token, 'replicated');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call<{ run_id: string; job_id: string; already_running: boolean }>(
            i % 2 === 0 ? first : second,
            'POST',
            `/projects/ingestion/trigger/${projectId}`,
            { token },
          ),
        ),
      );
      expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.body.run_id)).size).toBe(1);
      expect(new Set(answers.map((answer) => answer.body.job_id)).size).toBe(1);
      const runs = await first.context.database.db
        .selectFrom('ingestion_runs')
        .selectAll()
        .where('project_id', '=', projectId)
        .execute();
      expect(runs).toHaveLength(1);
      const jobs = await first.context.database.db
        .selectFrom('jobs')
        .selectAll()
        .where('project_id', '=', projectId)
        .execute();
      expect(jobs).toHaveLength(1);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  },
);
