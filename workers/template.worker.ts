// The chat template sandbox in the browser: a module worker that renders one prompt at a time
// (src/engine/template-serve.ts); the engine worker that starts it ends it on overrun.
import { serveTemplates } from '../src/engine/template-serve';
import type { RenderRequest } from '../src/engine/template-sandbox';

const handle = serveTemplates((r) => self.postMessage(r));
self.onmessage = (e: MessageEvent<RenderRequest>) => handle(e.data);
