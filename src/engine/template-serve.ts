// The template worker's side of the sandbox (template-sandbox.ts): parses a template once, renders
// each request under the interpreter's bounds (chat-template.ts) and answers with the text or the
// named error. The same code serves the Web Worker (workers/template.worker.ts) and the Node worker
// thread (template-node-worker.ts).

import { compileChatTemplate, templateFailure, type ChatTemplate } from './chat-template.ts';
import type { RenderReply, RenderRequest } from './template-sandbox.ts';

export function serveTemplates(reply: (r: RenderReply) => void): (req: RenderRequest) => void {
  let last: { source: string; file: string; template: ChatTemplate } | null = null;
  reply({ ready: true });
  return (req) => {
    try {
      if (!last || last.source !== req.source || last.file !== req.file) last = { source: req.source, file: req.file, template: compileChatTemplate(req.source, req.file) };
      reply({ id: req.id, text: last.template.render(req.vars, req.templateVars) });
    } catch (e) {
      const named = templateFailure(e);
      reply({ id: req.id, error: { code: named.code, message: named.message } });
    }
  };
}
