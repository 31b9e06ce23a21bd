// A tiny stand-in for the Hugging Face Hub in tests and e2e: serves fixture folders at
// `/{repo}/resolve/{revision}/{file}` with Range support, optional Bearer-token gating
// (401 without a token, 403 with a wrong one), 404 for missing files, CORS for the app's origin.
//
//   import { startHubServer } from '../test/hub-server.ts';
//   const hub = await startHubServer({ repos: { 'org/name': 'path/to/folder' } });   // port 0
//   ... fetch(`${hub.url}/org/name/resolve/main/config.json`) ...; await hub.close();
//
// As a script: tsx test/hub-server.ts --port 8788 --map org/name=path/to/folder [--token T [--gated org/name]]

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { open, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';

export interface HubServerOptions {
  /** repo id -> folder holding that repo's files */
  repos: Record<string, string>;
  /** When set, gated repos need `Authorization: Bearer <token>`. */
  token?: string;
  /** Repos that need the token (default: all, when a token is set). */
  gated?: string[];
  port?: number;
  host?: string;
  /** Answer Range requests with the whole file (200), like a server without range support. */
  ignoreRange?: boolean;
  /** Answer the first N weight-range requests (Range other than bytes=0-0) with 503, to test retries. */
  failFirst?: number;
}

export interface HubRequest {
  method: string;
  /** URL path as sent (percent-encoded). */
  path: string;
  range?: string;
  authorization?: string;
  status: number;
}

export interface HubServer {
  url: string;
  /** Every request served, in order (for asserting on ranges and headers). */
  requests: HubRequest[];
  close(): Promise<void>;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

export async function startHubServer(opts: HubServerOptions): Promise<HubServer> {
  const requests: HubRequest[] = [];
  let failuresLeft = opts.failFirst ?? 0;
  const gated = new Set(opts.token ? (opts.gated ?? Object.keys(opts.repos)) : []);
  const folders = new Map(Object.entries(opts.repos).map(([repo, dir]) => [repo, resolve(dir)]));

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, String(e));
      else res.destroy();
    });
  });

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { ...CORS, 'Content-Type': 'text/plain', ...headers });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname; // still percent-encoded
    const log: HubRequest = {
      method: req.method ?? 'GET',
      path,
      range: req.headers.range,
      authorization: req.headers.authorization,
      status: 0,
    };
    requests.push(log);
    const reply = (status: number, body: string, headers?: Record<string, string>) => {
      log.status = status;
      send(res, status, body, headers);
    };
    if (req.method === 'OPTIONS') return reply(204, '', { 'Access-Control-Allow-Methods': 'GET, HEAD' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'method not allowed');

    // the revision is one encoded segment ("refs%2Fpr%2F1"); the file may have several
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repo = m && decodeURIComponent(m[1]);
    const dir = repo && folders.get(repo);
    if (!m || !repo || !dir) return reply(404, 'Repository not found');
    if (gated.has(repo)) {
      const auth = req.headers.authorization;
      if (!auth) return reply(401, 'Access to this repo is restricted: a token is needed');
      if (auth !== `Bearer ${opts.token}`) return reply(403, 'This token has no access to this repo');
    }
    const file = resolve(dir, decodeURIComponent(m[3]));
    if (!file.startsWith(dir + sep)) return reply(404, 'Entry not found');
    const st = await stat(file).catch(() => null);
    if (!st || !st.isFile()) return reply(404, 'Entry not found');

    const size = st.size;
    let start = 0;
    let end = size; // exclusive
    let status = 200;
    if (failuresLeft > 0 && req.headers.range && req.headers.range !== 'bytes=0-0') {
      failuresLeft--;
      return reply(503, 'try again');
    }
    const range = opts.ignoreRange ? undefined : req.headers.range;
    if (range) {
      const r = /^bytes=(\d+)-(\d*)$/.exec(range);
      if (!r) return reply(416, 'bad range', { 'Content-Range': `bytes */${size}` });
      start = Number(r[1]);
      end = r[2] === '' ? size : Math.min(size, Number(r[2]) + 1);
      if (start >= size || end <= start) return reply(416, 'range not satisfiable', { 'Content-Range': `bytes */${size}` });
      status = 206;
    }
    const headers: Record<string, string> = {
      ...CORS,
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(end - start),
      'Accept-Ranges': 'bytes',
    };
    if (status === 206) headers['Content-Range'] = `bytes ${start}-${end - 1}/${size}`;
    log.status = status;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') return void res.end();
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(1 << 20, end - start));
      for (let pos = start; pos < end; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
        if (bytesRead === 0) break;
        if (!res.write(buf.subarray(0, bytesRead))) await new Promise((ok) => res.once('drain', ok));
        pos += bytesRead;
      }
    } finally {
      await fh.close();
    }
    res.end();
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => ok());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Command-line options of the script form (see the top of this file). */
export function parseHubServerArgs(argv: string[]): HubServerOptions {
  const opts: HubServerOptions = { repos: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${arg} needs a value`);
    if (arg === '--port') opts.port = Number(value);
    else if (arg === '--host') opts.host = value;
    else if (arg === '--token') opts.token = value;
    else if (arg === '--gated') (opts.gated ??= []).push(value);
    else if (arg === '--map') {
      const eq = value.indexOf('=');
      if (eq <= 0) throw new Error(`--map wants org/name=folder, got ${value}`);
      opts.repos[value.slice(0, eq)] = value.slice(eq + 1);
    } else throw new Error(`unknown option ${arg}`);
  }
  if (Object.keys(opts.repos).length === 0) throw new Error('give at least one --map org/name=folder');
  return opts;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const opts = parseHubServerArgs(process.argv.slice(2));
  const hub = await startHubServer(opts);
  console.log(JSON.stringify({ url: hub.url, repos: Object.keys(opts.repos) }));
  const stop = () => void hub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
