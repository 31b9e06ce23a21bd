import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { grade } from '../graders';
import { builtinTask } from './builtin';
import { fileTask, parseCsv } from './file';
import { fetchRowsPage, hubTask, type FetchLike } from './hub';
import { loadTask } from './index';

const DATASETS = path.resolve(__dirname, '../../../../shared/datasets');
const JSONL = path.join(DATASETS, 'gsm8k-test-first100.jsonl');
const PAGE = path.join(DATASETS, 'gsm8k-main-test-rows-offset0-length100.json');
const haveData = existsSync(JSONL) && existsSync(PAGE);
const skipReason = haveData ? '' : ' (skipped: ../shared/datasets next to the repo is absent)';

describe('built-in tasks', () => {
  it('arithmetic: numeric docs keyed by their text, train and test disjoint, deterministic', async () => {
    const t = await loadTask('builtin:arith-2d', { questions: 20, trainQuestions: 50, seed: 3 });
    expect(t.spec).toMatchObject({ id: 'builtin:arith-2d', answerFormat: 'numeric', promptTemplate: '{{question}}', numTest: 20, numTrain: 50 });
    expect(t.test[0].id).toBe(t.test[0].text);
    expect(t.test[0].text).toMatch(/^\d\d[+-]\d\d=$/);
    const trainIds = new Set(t.train.map((d) => d.id));
    expect(t.test.some((d) => trainIds.has(d.id))).toBe(false);
    expect((await loadTask('builtin:arith-2d', { questions: 20, trainQuestions: 50, seed: 3 })).test).toEqual(t.test);
    // a larger draw keeps the smaller one as its prefix, so records stay comparable
    expect((await loadTask('builtin:arith-2d', { questions: 30, seed: 3 })).test.slice(0, 20)).toEqual(t.test);
  });

  it('multiple choice: four distinct options, the gold letter names the answer', () => {
    const t = builtinTask('arith-2d-mc', { questions: 50, trainQuestions: 0, seed: 5 });
    expect(t.spec.answerFormat).toBe('mc-letter');
    for (const d of t.test) {
      expect(d.choices).toHaveLength(4);
      expect(new Set(d.choices).size).toBe(4);
      const [a, op, b] = /^(\d+)([+-])(\d+)=$/.exec(d.text)!.slice(1);
      const answer = op === '+' ? Number(a) + Number(b) : Number(a) - Number(b);
      expect(d.choices!['ABCD'.indexOf(d.target)]).toBe(String(answer));
    }
    // the letters are spread, not always the same
    expect(new Set(t.test.map((d) => d.target)).size).toBe(4);
    expect(builtinTask('arith-2d-mc', { questions: 5, trainQuestions: 0, seed: 6 }).test[0].id).toMatch(/#6$/);
  });

  it('names unknown tasks and bad specs', async () => {
    await expect(loadTask('builtin:arith-7d')).rejects.toThrow(/unknown built-in task "builtin:arith-7d"/);
    await expect(loadTask('gsm8k')).rejects.toThrow(/must start with builtin:, hub: or file:/);
    await expect(loadTask('hub:squad')).rejects.toThrow(/unknown Hub task preset "squad"/);
    // names of Object's own members are unknown names too, not the prototype's functions
    for (const name of ['toString', '__proto__', 'constructor']) {
      await expect(loadTask(`builtin:${name}`)).rejects.toThrow(`unknown built-in task "builtin:${name}"`);
      await expect(loadTask(`hub:${name}`)).rejects.toThrow(`unknown Hub task preset "${name}"`);
    }
    await expect(loadTask('file:x.jsonl')).rejects.toThrow(/needs the file's text/);
    await expect(loadTask('builtin:arith-2d', { questions: 0 })).rejects.toThrow(/questions must be a positive integer/);
  });
});

describe('task files', () => {
  it.skipIf(!haveData)(`reads the real GSM8K JSONL with a field mapping${skipReason}`, async () => {
    const text = readFileSync(JSONL, 'utf8');
    const t = await loadTask('file:gsm8k-test-first100.jsonl', {
      questions: 100,
      file: { text, mapping: { question: 'question', answer: 'answer' }, answerFormat: 'numeric' },
    });
    expect(t.test).toHaveLength(100);
    expect(t.test[0].target).toBe('18'); // Janet's ducks: "#### 18"
    expect(t.test[0].rationale).toMatch(/#### 18$/);
    for (const d of t.test) expect(grade('numeric', d.target, `The answer is ${d.target}.`).correct).toBe(true);
  });

  it('reads CSV with quotes, commas and newlines inside fields, and several option columns', () => {
    const csv = 'id,question,A,B,C,answer\r\nq1,"What is 2+2, really?",3,4,5,B\r\nq2,"Multi\nline ""quoted""",x,y,z,2\r\n';
    expect(parseCsv(csv)[1].question).toBe('Multi\nline "quoted"');
    const t = fileTask({ name: 't.csv', text: csv, answerFormat: 'mc-letter', mapping: { id: 'id', question: 'question', answer: 'answer', choices: ['A', 'B', 'C'] } });
    expect(t.test.map((d) => [d.id, d.target, d.choices])).toEqual([
      ['q1', 'B', ['3', '4', '5']],
      ['q2', 'C', ['x', 'y', 'z']],
    ]);
  });

  it('takes the gold from a letter, an index, a label or the option text; splits by a field', () => {
    const rows = [
      { q: 'a', opts: { text: ['p', 'q', 'r'], label: ['1', '2', '3'] }, ans: '3', s: 'test' },
      { q: 'b', opts: ['p', 'q', 'r', 's', 't'], ans: 'q', s: 'test' },
      { q: 'c', opts: '["p","q","r"]', ans: 'c', s: 'train' },
    ];
    const text = rows.map((r) => JSON.stringify(r)).join('\n');
    const t = fileTask({ name: 'x.jsonl', text, answerFormat: 'mc-letter', mapping: { question: 'q', answer: 'ans', choices: 'opts', split: 's' } });
    expect(t.test.map((d) => d.target)).toEqual(['C', 'B']);
    expect(t.train.map((d) => d.target)).toEqual(['C']);
  });

  it('names the row and field of every problem', () => {
    const base = { name: 'x.jsonl', answerFormat: 'numeric' as const, mapping: { question: 'q', answer: 'a' } };
    expect(() => fileTask({ ...base, text: '{"q":"x"}' })).toThrow(/row 1 of "x.jsonl" has no field "a" \(fields: q\)/);
    expect(() => fileTask({ ...base, text: '{"q":"x","a":"none"}' })).toThrow(/row 1 of "x.jsonl".*holds no number/);
    expect(() => fileTask({ ...base, text: '{"q":"x","a":"1"}\nnot json' })).toThrow(/JSONL line 2 is not valid JSON/);
    expect(() => fileTask({ ...base, text: '' })).toThrow(/holds no rows/);
    expect(() => fileTask({ ...base, name: 'x.txt', text: '' })).toThrow(/cannot tell the format of "x.txt"/);
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a\n"open' })).toThrow(/^CSV row 2: a quoted field is never closed \(a " is missing\)$/);
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a\n"1"x,2' })).toThrow(/^CSV row 2: a quoted field has text after its closing "$/);
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a\r\n' })).toThrow(/^the CSV file has a header but no rows$/);
    expect(() => fileTask({ ...base, text: '\n\n' })).toThrow(/^the JSONL file holds no rows$/);
    expect(() => fileTask({ ...base, text: 'PK\u0003\u0004\u0000\u0000binary' })).toThrow(/^the file is not UTF-8 text \(it holds binary data\)/);
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a\n\uFFFD\uFFFD,1' })).toThrow(/not UTF-8 text/);
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a\n1,2,3' })).toThrow(/CSV row 2 has 3 fields; the header has 2/);
    expect(() =>
      fileTask({ name: 'm.jsonl', answerFormat: 'mc-letter', text: '{"q":"x","a":"E","c":["1","2"]}', mapping: { question: 'q', answer: 'a', choices: 'c' } }),
    ).toThrow(/answer "E" is not a letter, an index or the text of one of its 2 options/);
  });

  it('refuses duplicate CSV headers, repeated JSON keys, deep nesting and an empty id by name', () => {
    const base = { name: 'x.jsonl', answerFormat: 'numeric' as const, mapping: { question: 'q', answer: 'a' } };
    expect(() => fileTask({ ...base, name: 'x.csv', text: 'q,a,a\nx,1,2' })).toThrow(/^the CSV header names the column "a" twice$/);
    expect(() => fileTask({ ...base, text: '{"q":"x","a":"1"}\n{"q":"y","a":"1","a":"2"}' })).toThrow(/^JSONL line 2 is refused: duplicate key "a" at the top level \(line 1\)$/);
    expect(() => fileTask({ ...base, name: 'x.json', text: '[{"q":"x","a":"1","raw":{"k":1,"k":2}}]' })).toThrow(/^JSON file is refused: duplicate key "k" at \[0\]\.raw \(line 1\)$/);
    const deep = `{"q":"x","a":"1","n":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(() => fileTask({ ...base, text: deep })).toThrow(/^JSONL line 1 is refused: nested deeper than 64 levels/);
    const ids = { ...base, mapping: { question: 'q', answer: 'a', id: 'id' } };
    expect(() => fileTask({ ...ids, text: '{"id":"a","q":"x","a":"1"}\n{"id":"","q":"y","a":"2"}' })).toThrow(/^row 2 of "x\.jsonl" has an empty id \(field "id"\)/);
  });

  it('accepts a byte-order mark, as the browser does, in every format', () => {
    const base = { answerFormat: 'numeric' as const, mapping: { question: 'q', answer: 'a' } };
    expect(fileTask({ ...base, name: 'x.jsonl', text: '\uFEFF{"q":"x","a":"1"}' }).test[0].target).toBe('1');
    expect(fileTask({ ...base, name: 'x.json', text: '\uFEFF[{"q":"x","a":"2"}]' }).test[0].target).toBe('2');
    expect(fileTask({ ...base, name: 'x.csv', text: '\uFEFFq,a\nx,3' }).test[0].target).toBe('3');
  });
});

describe('Hub dataset rows API', () => {
  let server: Server;
  let endpoint = '';
  const requests: URLSearchParams[] = [];
  beforeAll(async () => {
    const page = haveData ? (JSON.parse(readFileSync(PAGE, 'utf8')) as { rows: unknown[]; num_rows_total: number }) : null;
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      requests.push(url.searchParams);
      const q = url.searchParams;
      if (url.pathname === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: "The dataset does not exist." }));
        return;
      }
      if (!page || q.get('dataset') !== 'openai/gsm8k' || q.get('config') !== 'main' || q.get('split') !== 'test') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not served here' }));
        return;
      }
      // serve at most 40 rows a page, as a server capping its pages would, so the loader must page on
      const offset = Number(q.get('offset'));
      const length = Math.min(40, Number(q.get('length')));
      const rows = page.rows.slice(offset, offset + length);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...page, rows }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rows`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.skipIf(!haveData)(`loads GSM8K test rows page by page from the real rows-API page${skipReason}`, async () => {
    requests.length = 0;
    const t = await hubTask('gsm8k', { questions: 90, endpoint });
    expect(t.test).toHaveLength(90);
    expect(requests.map((q) => [q.get('offset'), q.get('length')])).toEqual([
      ['0', '90'],
      ['40', '50'],
      ['80', '10'],
    ]);
    expect(t.spec).toMatchObject({ id: 'hub:gsm8k', answerFormat: 'numeric', numTest: 90 });
    expect(t.test[0]).toMatchObject({ id: 'test-0', target: '18' });
    // the rows API and the JSONL file hold the same questions and golds
    const jsonl = readFileSync(JSONL, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { question: string });
    expect(t.test.map((d) => d.text)).toEqual(jsonl.slice(0, 90).map((r) => r.question));
  });

  it('names HTTP errors with the dataset', async () => {
    await expect(fetchRowsPage('openai/gsm8k', 'main', 'test', 0, 10, { endpoint: endpoint.replace('/rows', '/missing') })).rejects.toThrow(
      /^openai\/gsm8k \(config main, split test\): not found \(check the name and the revision\) \(HTTP 404\)\. The server says: The dataset does not exist\.$/,
    );
    await expect(hubTask('arc-easy', { questions: 5, endpoint })).rejects.toMatchObject({ code: 'http' });
  });

  it('says "offline or unreachable" when the endpoint cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(hubTask('gsm8k', { questions: 5, endpoint: `http://127.0.0.1:${port}/rows` })).rejects.toThrow(
      /^the Hub dataset server cannot be reached for openai\/gsm8k \(config main, split test\): cannot reach 127\.0\.0\.1:\d+: offline or unreachable/,
    );
    await expect(hubTask('gsm8k', { questions: 5, fetch: () => Promise.reject(new TypeError('Failed to fetch')) })).rejects.toMatchObject({ code: 'offline' });
  });

  it('fails a rows page that stalls in words, and a cancelled one as cancelled', async () => {
    const stalled = (async () =>
      new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{"rows": [')) }), { status: 200 })) as FetchLike;
    await expect(fetchRowsPage('openai/gsm8k', 'main', 'test', 0, 10, { fetch: stalled, timeouts: { stallMs: 100 } })).rejects.toMatchObject({
      code: 'offline',
      message: 'the Hub dataset rows API page at offset 0 of openai/gsm8k (config main, split test) sent no bytes for 0.1 s',
    });
    const silent = ((_url: string, init: RequestInit) => new Promise<Response>((_, fail) => init.signal?.addEventListener('abort', () => fail(new DOMException('aborted', 'AbortError'))))) as FetchLike;
    await expect(fetchRowsPage('openai/gsm8k', 'main', 'test', 0, 10, { fetch: silent, timeouts: { headersMs: 100 } })).rejects.toMatchObject({
      code: 'offline',
      message: expect.stringMatching(/no answer within 0\.1 s$/),
    });
    const ctl = new AbortController();
    const page = fetchRowsPage('openai/gsm8k', 'main', 'test', 0, 10, { fetch: stalled, signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    await expect(page).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('refuses rows-API replies that would give missing or duplicate questions, naming the page', async () => {
    const row = (i: number) => ({ row_idx: i, row: { question: `q${i}`, answer: `#### ${i}` } });
    const serve = (reply: (offset: number, length: number) => unknown) => async (url: string | URL) => {
      const q = new URL(String(url)).searchParams;
      const body = reply(Number(q.get('offset')), Number(q.get('length')));
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const load = (reply: (offset: number, length: number) => unknown) => hubTask('gsm8k', { questions: 5, fetch: serve(reply) as FetchLike });
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => row(from + i));
    // a well-behaved server, for contrast
    expect((await load((off, len) => ({ rows: rows(off, len), num_rows_total: 1000 }))).test).toHaveLength(5);
    const bad: [string, (off: number, len: number) => unknown, RegExp][] = [
      ['empty page', () => ({ rows: [], num_rows_total: 1000 }), /returned no rows at offset 0 of openai\/gsm8k .*which it says holds 1000/],
      ['offset ignored', (_off, len) => ({ rows: rows(0, Math.min(2, len)), num_rows_total: 1000 }), /page at offset 2 .*row 0 has row_idx 0, expected 2/],
      ['repeated row', () => ({ rows: [row(0), row(0)], num_rows_total: 1000 }), /row 1 has row_idx 0, expected 1/],
      ['not JSON', () => '{"rows": [', /page at offset 0 of openai\/gsm8k .* is not JSON/],
      ['null rows', () => ({ rows: [null], num_rows_total: 1000 }), /row 0 is not an object with a row/],
      ['no total', (off, len) => ({ rows: rows(off, len) }), /lacks rows or num_rows_total/],
      ['too many', (off) => ({ rows: rows(off, 50), num_rows_total: 1000 }), /holds 50 rows; 5 were asked for/],
    ];
    for (const [name, reply, message] of bad) {
      const e = await load(reply).then(() => null, (x: unknown) => x);
      expect(e, name).toMatchObject({ code: 'bad-task' });
      expect((e as Error).message, name).toMatch(message);
    }
  });

  it('reads ARC and MMLU row shapes', async () => {
    const arcRow = { id: 'x', question: 'Which?', choices: { text: ['a', 'b', 'c', 'd', 'e'], label: ['A', 'B', 'C', 'D', 'E'] }, answerKey: 'E' };
    const mmluRow = { question: 'Q', subject: 'abstract_algebra', choices: ['0', '1', '2', '3'], answer: 2 };
    const fake = (row: object) => async () => new Response(JSON.stringify({ rows: [{ row_idx: 0, row }], num_rows_total: 1 }));
    const arc = await hubTask('arc-challenge', { questions: 1, fetch: fake(arcRow) });
    expect(arc.test[0]).toMatchObject({ id: 'test-0', target: 'E', choices: ['a', 'b', 'c', 'd', 'e'] });
    const mmlu = await hubTask('mmlu:abstract_algebra', { questions: 1, fetch: fake(mmluRow) });
    expect(mmlu.test[0]).toMatchObject({ target: 'C' });
    expect(mmlu.spec.id).toBe('hub:mmlu:abstract_algebra');
    await expect(hubTask('mmlu:Bad Subject', { questions: 1 })).rejects.toThrow(/MMLU subject "Bad Subject"/);
  });
});
