// A tiny stand-in for the Hugging Face Hub in tests and e2e: serves fixture folders at
// `/{repo}/resolve/{revision}/{file}` with Range support, optional Bearer-token gating
// (401 without a token, 403 with a wrong one), 404 for missing files, CORS for the app's origin.
// Each folder is one commit (a SHA-1 of its files): `/api/models/{repo}/revision/{rev}` names the
// commit a revision is at, with each file's size and (for *.safetensors, as LFS files) SHA-256, and
// `resolve/{commit}/…` serves that commit. Faults for tests: `moveMain` points a repo's main at
// another folder (the old commit is still served), `stall` sends part of a file and then nothing,
// `flip` sends a file with one byte changed; `noRevisionApi` answers 404 there, like a mirror.
//
//   import { startHubServer } from '../test/hub-server.ts';
//   const hub = await startHubServer({ repos: { 'org/name': 'path/to/folder' } });   // port 0
//   ... fetch(`${hub.url}/org/name/resolve/main/config.json`) ...; await hub.close();
//
// As a script: tsx test/hub-server.ts --port 8788 --map org/name=path/to/folder [--token T [--gated org/name]]

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
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
  /** Answer 404 on the revision API, like a mirror without one (files are read under the name). */
  noRevisionApi?: boolean;
}

/** A fault injected into the files served (tests of timeouts and hash checks). */
export interface HubFault {
  /** File path in the repo this fault applies to (every repo). */
  file: string;
  /** Send this many bytes of the answer, then nothing (the connection stays open). */
  stallAfter?: number;
  /** Send the file with the byte at this offset changed (every request that covers it). */
  flipAt?: number;
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
  /** The commit a repo's main is at now. */
  commitOf(repo: string): Promise<string>;
  /** Points a repo's main at another folder: a new commit; the old one is still served by its sha. */
  moveMain(repo: string, dir: string): void;
  /** Faults in force from now on (replacing earlier ones); [] clears them. */
  setFaults(faults: HubFault[]): void;
  close(): Promise<void>;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Authorization, Range',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, X-Linked-Etag',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

export async function startHubServer(opts: HubServerOptions): Promise<HubServer> {
  const requests: HubRequest[] = [];
  let failuresLeft = opts.failFirst ?? 0;
  const gated = new Set(opts.token ? (opts.gated ?? Object.keys(opts.repos)) : []);
  const folders = new Map(Object.entries(opts.repos).map(([repo, dir]) => [repo, resolve(dir)]));
  let faults: HubFault[] = [];
  // commit sha -> folder, for every folder a repo's main has pointed at
  const byCommit = new Map<string, string>();
  const described = new Map<string, Promise<FolderInfo>>();
  const describeDir = (dir: string): Promise<FolderInfo> => {
    let p = described.get(dir);
    if (!p) {
      p = folderInfo(dir).then((info) => (byCommit.set(info.commit, dir), info));
      described.set(dir, p);
    }
    return p;
  };
  await Promise.all([...folders.values()].map(describeDir));

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

    const gate = (repo: string): boolean => {
      if (!gated.has(repo)) return true;
      const auth = req.headers.authorization;
      if (!auth) reply(401, 'Access to this repo is restricted: a token is needed');
      else if (auth !== `Bearer ${opts.token}`) reply(403, 'This token has no access to this repo');
      else return true;
      return false;
    };
    /** The folder a revision of a repo names: a known commit's, or main's for any name. */
    const folderAt = (repo: string, revision: string): string | undefined => {
      const main = folders.get(repo);
      if (!main) return undefined;
      if (/^[0-9a-f]{40}$/.test(revision)) return byCommit.get(revision);
      return main;
    };

    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(path);
    if (api && opts.noRevisionApi) return reply(404, 'Not Found');
    if (api) {
      const repo = decodeURIComponent(api[1]);
      const dir = folderAt(repo, decodeURIComponent(api[2]));
      if (!folders.has(repo)) return reply(404, JSON.stringify({ error: 'Repository not found' }));
      if (!gate(repo)) return;
      if (!dir) return reply(404, JSON.stringify({ error: 'Invalid rev id' }));
      const info = await describeDir(dir);
      return reply(200, JSON.stringify({ id: repo, sha: info.commit, siblings: info.siblings }), { 'Content-Type': 'application/json' });
    }

    // the revision is one encoded segment ("refs%2Fpr%2F1"); the file may have several
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repo = m && decodeURIComponent(m[1]);
    const dir = repo && folderAt(repo, decodeURIComponent(m[2]));
    if (!m || !repo || !folders.has(repo)) return reply(404, 'Repository not found');
    if (!gate(repo)) return;
    if (!dir) return reply(404, 'Revision not found');
    const name = decodeURIComponent(m[3]);
    const file = resolve(dir, name);
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
    const lfs = (await describeDir(dir)).siblings.find((s) => s.rfilename === name)?.lfs;
    if (lfs) headers['X-Linked-Etag'] = `"${lfs.sha256}"`;
    log.status = status;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') return void res.end();
    const fault = faults.find((f) => f.file === name);
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(1 << 20, end - start));
      for (let pos = start; pos < end; ) {
        let { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
        if (bytesRead === 0) break;
        if (fault?.flipAt !== undefined && fault.flipAt >= pos && fault.flipAt < pos + bytesRead) buf[fault.flipAt - pos] ^= 0xff;
        if (fault?.stallAfter !== undefined && pos - start + bytesRead >= fault.stallAfter) {
          bytesRead = Math.max(0, fault.stallAfter - (pos - start));
          res.write(buf.subarray(0, bytesRead));
          // nothing more until the client gives up or the server closes
          return;
        }
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
    commitOf: async (repo) => {
      const dir = folders.get(repo);
      if (!dir) throw new Error(`no repo ${repo}`);
      return (await describeDir(dir)).commit;
    },
    moveMain: (repo, dir) => {
      if (!folders.has(repo)) throw new Error(`no repo ${repo}`);
      folders.set(repo, resolve(dir));
      void describeDir(resolve(dir));
    },
    setFaults: (f) => {
      faults = [...f];
    },
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

interface FolderInfo {
  commit: string;
  siblings: { rfilename: string; size: number; lfs?: { sha256: string; size: number } }[];
}

/** A folder as one commit: the SHA-1 of its file names and contents, each file's size and LFS SHA-256. */
async function folderInfo(dir: string): Promise<FolderInfo> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)).split(sep).join('/'))
    .sort();
  const commit = createHash('sha1');
  const siblings: FolderInfo['siblings'] = [];
  for (const name of names) {
    const bytes = await readFile(join(dir, name));
    commit.update(`${name}\0${bytes.length}\0`).update(bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    siblings.push({ rfilename: name, size: bytes.length, ...(name.endsWith('.safetensors') ? { lfs: { sha256, size: bytes.length } } : {}) });
  }
  return { commit: commit.digest('hex'), siblings };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const opts = parseHubServerArgs(process.argv.slice(2));
  const hub = await startHubServer(opts);
  console.log(JSON.stringify({ url: hub.url, repos: Object.keys(opts.repos) }));
  const stop = () => void hub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
