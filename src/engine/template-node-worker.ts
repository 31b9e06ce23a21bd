// The chat template sandbox in Node: a worker thread (started by template-host-node.ts through
// template-node-boot.mjs, under a heap cap) that renders one prompt at a time (template-serve.ts).
import { parentPort } from 'node:worker_threads';
import { serveTemplates } from './template-serve.ts';
import type { RenderRequest } from './template-sandbox.ts';

const port = parentPort!;
const handle = serveTemplates((r) => port.postMessage(r));
port.on('message', (req: RenderRequest) => handle(req));
