// A local stand-in for the Hub dataset rows API (datasets-server /rows): serves the rows a test
// gives it, at most PAGE_CAP a page (so loaders must page on), and records what was asked.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Rows per reply at most, as a server capping its pages. */
const PAGE_CAP = 40;

export interface RowsServer {
  endpoint: string;
  /** The (dataset, config, split, offset) of every request, in order. */
  requests: { dataset: string; config: string; split: string; offset: number }[];
  close(): Promise<void>;
}

/** `splits` keyed "dataset/config/split". */
export async function startRowsServer(splits: Record<string, Record<string, unknown>[]>): Promise<RowsServer> {
  const requests: RowsServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const [dataset, config, split] = ['dataset', 'config', 'split'].map((k) => u.searchParams.get(k) ?? '');
    const offset = Number(u.searchParams.get('offset'));
    const length = Math.min(PAGE_CAP, Number(u.searchParams.get('length')));
    const rows = u.pathname === '/rows' ? splits[`${dataset}/${config}/${split}`] : undefined;
    if (!rows) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no split ${dataset}/${config}/${split}` }));
      return;
    }
    requests.push({ dataset, config, split, offset });
    const page = rows.slice(offset, offset + length).map((row, i) => ({ row_idx: offset + i, row, truncated_cells: [] }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rows: page, num_rows_total: rows.length }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rows`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
