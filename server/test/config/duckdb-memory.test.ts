import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/test-server.js';

describe('SERVICE_DUCKDB_MEMORY_LIMIT', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { SERVICE_DUCKDB_MEMORY_LIMIT: '96MiB' });
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  it('limits the server DuckDB, which spills a statement larger than the limit instead of failing', async () => {
    await server.context.duckdb.withConnection(async (connection) => {
      const [setting] = await connection.query(
        "SELECT current_setting('memory_limit') AS memory_limit, current_setting('temp_directory') AS temp_directory",
      );
      expect(setting).toEqual({
        memory_limit: '96.0 MiB',
        temp_directory: `${server.database.dataDir}/tmp/duckdb`,
      });
      // Sorting 2 M rows of 32-character strings needs well over 96 MiB.
      const [sorted] = await connection.query(
        `SELECT count(*)::INTEGER AS n, min(position)::INTEGER AS first, max(position)::INTEGER AS last
         FROM (SELECT row_number() OVER (ORDER BY hash) AS position
               FROM (SELECT md5(i::VARCHAR) AS hash FROM range(2000000) AS t(i)))`,
      );
      expect(sorted).toEqual({ n: 2_000_000, first: 1, last: 2_000_000 });
    });
  });
});
