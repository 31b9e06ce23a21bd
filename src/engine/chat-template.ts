// A checkpoint's chat template (untrusted Jinja) rendered with @huggingface/jinja under stated
// bounds, so a looping or exploding template ends in a named error instead of running out of
// memory: range() yields at most TEMPLATE_LIMITS.rangeLength numbers, every loop pass and macro
// call checks the time limit, and the output is at most TEMPLATE_LIMITS.outputChars.
// The bounds are put into the parsed template itself: range calls go to a bounded range, and each
// loop and macro body starts with a call to the time check.

import { parse, Template, tokenize } from '@huggingface/jinja';
import { EngineError } from './types.ts';

export const TEMPLATE_LIMITS = {
  /** A chat template renders a conversation in milliseconds; 2 s means it loops. */
  timeMs: 2000,
  /** A rendered prompt past a million characters is far past any context the engine runs. */
  outputChars: 1_000_000,
  /** Templates use range() over messages or tools; 100,000 is far past either. */
  rangeLength: 100_000,
};

const TICK = '__reachlab_tick';
const RANGE = '__reachlab_range';

type Node = { type?: string; [k: string]: unknown };

function limitError(what: string): EngineError {
  return new EngineError('bad-input', `chat template ${what}`);
}

/** Python's range(), refused past TEMPLATE_LIMITS.rangeLength numbers before any is made. */
function boundedRange(start: number, stop?: number, step = 1): number[] {
  if (stop === undefined) [start, stop] = [0, start];
  if (![start, stop, step].every(Number.isSafeInteger)) throw limitError(`called range(${start}, ${stop}, ${step}) with a value that is not an integer`);
  if (step === 0) throw limitError('called range() with step 0');
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > TEMPLATE_LIMITS.rangeLength) {
    throw limitError(`called range() for ${length} numbers, more than the ${TEMPLATE_LIMITS.rangeLength} allowed (a looping template?)`);
  }
  return Array.from({ length }, (_, i) => start + i * step);
}

/** Rewrites the parsed template in place: range() calls go to the bounded range, and each loop,
 *  macro and call block starts with the time check. */
function instrument(node: unknown, tick: () => Node): void {
  if (Array.isArray(node)) {
    for (const n of node) instrument(n, tick);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (n.type === 'CallExpression') {
    const callee = n.callee as Node;
    if (callee.type === 'Identifier' && callee.value === 'range') callee.value = RANGE;
  }
  for (const value of Object.values(n)) instrument(value, tick);
  if ((n.type === 'For' || n.type === 'Macro' || n.type === 'CallStatement') && Array.isArray(n.body)) n.body.unshift(tick());
}

export interface ChatTemplate {
  render(vars: Record<string, unknown>): string;
}

/** Parses a chat template; throws EngineError('bad-checkpoint') when it does not parse. */
export function compileChatTemplate(source: string): ChatTemplate {
  let template: Template;
  try {
    template = new Template(source);
    const tickCall = () => (parse(tokenize(`{{ ${TICK}() }}`)).body[0] as unknown as Node);
    instrument(template.parsed, tickCall);
  } catch (e) {
    throw new EngineError('bad-checkpoint', `tokenizer_config.json chat_template does not parse: ${(e as Error).message}`);
  }
  return {
    render(vars) {
      const deadline = performance.now() + TEMPLATE_LIMITS.timeMs;
      const tick = () => {
        if (performance.now() > deadline) throw limitError(`ran past its ${TEMPLATE_LIMITS.timeMs / 1000} s time limit (a looping template?)`);
      };
      let out: string;
      try {
        out = template.render({ ...vars, [TICK]: tick, [RANGE]: boundedRange });
      } catch (e) {
        if (e instanceof EngineError) throw e;
        // includes the template's own raise_exception(...) (a jinja built-in)
        throw new EngineError('bad-input', `chat template failed: ${(e as Error).message}`);
      }
      if (out.length > TEMPLATE_LIMITS.outputChars) {
        throw limitError(`gave ${out.length} characters, more than the ${TEMPLATE_LIMITS.outputChars} allowed`);
      }
      return out;
    },
  };
}
