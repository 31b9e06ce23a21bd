// Node's template worker: a worker thread with a heap cap (resourceLimits), so a template that
// allocates without end is stopped by V8 at TEMPLATE_MEMORY_MB and the process goes on.
import { Worker } from 'node:worker_threads';
import { TEMPLATE_MEMORY_MB, type RenderReply, type TemplatePort } from './template-sandbox.ts';

/** `entry`: the worker's module (another one only in the sandbox's own tests). */
export function spawnNodeTemplateWorker(entry = new URL('./template-node-worker.ts', import.meta.url)): TemplatePort {
  const worker = new Worker(new URL('./template-node-boot.mjs', import.meta.url), {
    workerData: { entry: entry.href },
    resourceLimits: { maxOldGenerationSizeMb: TEMPLATE_MEMORY_MB, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    stdout: false,
    stderr: false,
  });
  let ended = false;
  return {
    post: (req) => worker.postMessage(req),
    listen(onReply, onExit) {
      worker.on('message', (r: RenderReply) => onReply(r));
      worker.on('error', (e: Error & { code?: string }) => {
        if (ended) return;
        ended = true;
        onExit(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : e.message);
      });
      worker.on('exit', (code) => {
        if (ended) return;
        ended = true;
        onExit(`exit code ${code}`);
      });
    },
    hold: (held) => (held ? worker.ref() : worker.unref()),
    terminate() {
      ended = true;
      void worker.terminate();
    },
  };
}
