import { describe, expect, it } from 'vitest';
import { planColumns, planRewrite, planUpsert, upsertCommit } from '../../src/deltatables/upsert-plan.js';
import type { SqlColumn } from '../../src/engine/duckdb.js';
import { DomainError } from '../../src/errors.js';

const file = (id: string, sha256 = `sha-${id}`) => ({ id, sha256 });
const dataFile = (path: string, source: string) => ({ path, partitionValues: { _file_id: source, _run_id: 'r' } });
const column = (name: string, type: string): SqlColumn => ({ name, type: { kind: 'scalar', name: type } });

describe('planUpsert', () => {
  it('reads every wanted file on a first write (no table yet)', () => {
    const plan = planUpsert({ registered: [file('a'), file('b')], tableFiles: null, recorded: new Map() });
    expect(plan).toMatchObject({ overwrite: true, gone: [], unchanged: false });
    expect(plan.changed.map((f) => f.id)).toEqual(['a', 'b']);
  });

  it('reads only the files whose content the table does not hold', () => {
    const plan = planUpsert({
      registered: [file('a'), file('b', 'new')],
      tableFiles: [dataFile('p1', 'a'), dataFile('p2', 'b')],
      recorded: new Map([
        ['a', 'sha-a'],
        ['b', 'old'],
      ]),
    });
    expect(plan.overwrite).toBe(false);
    expect(plan.changed.map((f) => f.id)).toEqual(['b']);
    expect(plan.dataFilesOf.get('b')).toEqual(['p2']);
  });

  it('has nothing to do when the table holds every file as it is', () => {
    const plan = planUpsert({
      registered: [file('a')],
      tableFiles: [dataFile('p1', 'a')],
      recorded: new Map([['a', 'sha-a']]),
    });
    expect(plan.unchanged).toBe(true);
  });

  it('drops the rows of files no longer registered, unless a file list is given', () => {
    const state = {
      registered: [file('a')],
      tableFiles: [dataFile('p1', 'a'), dataFile('p2', 'gone'), dataFile('p3', 'gone')],
      recorded: new Map([
        ['a', 'sha-a'],
        ['gone', 'x'],
        ['empty', 'y'],
      ]),
    };
    const plan = planUpsert(state);
    expect(plan.gone.sort()).toEqual(['empty', 'gone']);
    expect(plan.dataFilesOf.get('gone')).toEqual(['p2', 'p3']);
    expect(plan.unchanged).toBe(false);
    expect(planUpsert({ ...state, fileIds: ['a'] })).toMatchObject({ gone: [], unchanged: true });
  });

  it('rereads every wanted file on an overwrite', () => {
    const plan = planUpsert({
      registered: [file('a'), file('b')],
      fileIds: ['b'],
      overwrite: true,
      tableFiles: [dataFile('p1', 'a')],
      recorded: new Map([['b', 'sha-b']]),
    });
    expect(plan.overwrite).toBe(true);
    expect(plan.changed.map((f) => f.id)).toEqual(['b']);
  });

  it('refuses ids that are not registered files, naming each', () => {
    const plan = () =>
      planUpsert({ registered: [file('a')], fileIds: ['a', 'z'], tableFiles: null, recorded: new Map() });
    expect(plan).toThrow(DomainError);
    expect(plan).toThrow(/not registered files/);
  });
});

describe('planColumns', () => {
  const source = (path: string, columns: SqlColumn[]) => ({ file: { path }, columns });

  it('widens and extends the table columns by the files, without the file id', () => {
    const columns = planColumns(
      [column('_file_id', 'VARCHAR'), column('n', 'INTEGER')],
      [source('a.csv', [column('n', 'BIGINT'), column('s', 'VARCHAR')])],
      null,
    );
    expect(columns).toEqual([column('n', 'BIGINT'), column('s', 'VARCHAR')]);
  });

  it('refuses types that cannot be combined, naming the file', () => {
    expect(() => planColumns([column('n', 'INTEGER')], [source('a.csv', [column('n', 'VARCHAR')])], null)).toThrow(
      /a\.csv: column n holds VARCHAR/,
    );
  });

  it('refuses a key column that no file has', () => {
    expect(() => planColumns([], [source('a.csv', [column('n', 'INTEGER')])], ['id'])).toThrow(/key column id/);
  });
});

describe('planRewrite', () => {
  it('rewrites the kept files when a column widened or the run id is still a data column', () => {
    const old = [column('n', 'INTEGER')];
    expect(planRewrite(old, old, ['_file_id', '_run_id'], false)).toEqual({ runIdInData: false, rewriteAll: false });
    expect(planRewrite(old, [column('n', 'BIGINT')], ['_file_id', '_run_id'], false).rewriteAll).toBe(true);
    expect(planRewrite(old, old, ['_file_id'], false)).toEqual({ runIdInData: true, rewriteAll: true });
    expect(planRewrite(old, old, ['_file_id'], true)).toEqual({ runIdInData: true, rewriteAll: false });
    expect(planRewrite([], old, null, true)).toEqual({ runIdInData: false, rewriteAll: false });
  });
});

describe('upsertCommit', () => {
  const schema = { type: 'struct' as const, fields: [] };
  const base = {
    overwrite: false,
    merge: false,
    rewrite: { runIdInData: false, rewriteAll: false },
    tableFileCount: 2,
    add: [],
    remove: new Set(['p1']),
    schema,
  };

  it('appends, removing the replaced files', () => {
    const request = upsertCommit(base);
    expect(request).toMatchObject({ operation: 'WRITE', remove: ['p1'] });
    expect(request.operationParameters).toEqual({ mode: 'Append', source: 'upsert' });
    expect(request.partitionColumns).toBeUndefined();
    expect(request.schema?.fields.map((field) => field.name)).toEqual(['_file_id']);
  });

  it('merges with keys', () => {
    expect(upsertCommit({ ...base, merge: true }).operation).toBe('MERGE');
  });

  it('replaces every file and sets the partition columns on an overwrite or a run-id move', () => {
    expect(upsertCommit({ ...base, overwrite: true })).toMatchObject({
      operation: 'WRITE',
      removeAll: true,
      partitionColumns: ['_file_id', '_run_id'],
    });
    const moved = upsertCommit({ ...base, rewrite: { runIdInData: true, rewriteAll: true }, tableFileCount: 0 });
    expect(moved).toMatchObject({ removeAll: true, partitionColumns: ['_file_id', '_run_id'] });
  });
});
