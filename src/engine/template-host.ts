// Where a chat template worker comes from, chosen in one place: a Web Worker in the browser (and
// in the engine's own worker), a worker thread with a heap cap in Node. Node's module is loaded
// through a variable specifier so bundlers never pull it into the browser graph.
import { TemplateSandbox, type TemplatePort } from './template-sandbox.ts';

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

function spawnWebTemplateWorker(): TemplatePort {
  const worker = new Worker(new URL('../../workers/template.worker.ts', import.meta.url), { type: 'module', name: 'reachlab-template' });
  return {
    post: (req) => worker.postMessage(req),
    listen(onReply, onExit) {
      worker.onmessage = (e) => onReply(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        onExit(e.message || 'uncaught error');
      };
    },
    hold: () => undefined,
    terminate: () => worker.terminate(),
  };
}

export async function spawnTemplateWorker(): Promise<TemplatePort> {
  if (!isNode) return spawnWebTemplateWorker();
  const spec = './template-host-node.ts';
  const { spawnNodeTemplateWorker } = (await import(/* @vite-ignore */ spec)) as typeof import('./template-host-node.ts');
  return spawnNodeTemplateWorker();
}

let shared: TemplateSandbox | null = null;

/** The sandbox every tokenizer of this thread renders in (one worker, started on first use). */
export function sharedTemplateSandbox(): TemplateSandbox {
  shared ??= new TemplateSandbox(spawnTemplateWorker);
  return shared;
}
