// A checkpoint's chat template (untrusted Jinja) rendered with @huggingface/jinja under stated
// bounds, so a looping or exploding template ends in a named error instead of running out of
// memory: range() yields at most TEMPLATE_LIMITS.rangeLength numbers, every loop pass and macro
// call checks the time limit, and the output is at most TEMPLATE_LIMITS.outputChars.
// The bounds are put into the parsed template itself: range calls go to a bounded range, and each
// loop and macro body starts with a call to the time check.

import { parse, Template, tokenize } from '@huggingface/jinja';
import { parseDateString, strftime } from './template-date.ts';
import { EngineError, type TemplateVarName, type TemplateVars } from './types.ts';

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
/** The jinja library's strftime_now reads the clock and cannot be replaced by a render variable:
 *  the template's own name is renamed to this one, bound to the condition's date. */
const STRFTIME = '__reachlab_strftime_now';

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

/** Rewrites the parsed template in place: range() calls go to the bounded range, strftime_now to
 *  the condition's date, and each loop, macro and call block starts with the time check. */
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
  if (n.type === 'Identifier' && n.value === 'strftime_now') n.value = STRFTIME;
  for (const value of Object.values(n)) instrument(value, tick);
  if ((n.type === 'For' || n.type === 'Macro' || n.type === 'CallStatement') && Array.isArray(n.body)) n.body.unshift(tick());
}

/** Names the template reads (identifiers anywhere in it). */
function identifiers(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) identifiers(n, out);
  else if (node && typeof node === 'object') {
    const n = node as Node;
    if (n.type === 'Identifier' && typeof n.value === 'string') out.add(n.value);
    for (const value of Object.values(n)) identifiers(value, out);
  }
  return out;
}

/** The template variables a condition sets, and the names by which a template reads each. */
const VAR_READS: Record<TemplateVarName, string[]> = {
  add_generation_prompt: ['add_generation_prompt'],
  date_string: ['date_string', 'strftime_now'],
  enable_thinking: ['enable_thinking'],
};

export interface ChatTemplate {
  /** The condition-set variables the template reads. */
  readonly reads: TemplateVarName[];
  /** Renders with `vars` (the model's special tokens, messages) and the condition's template
   *  variables; strftime_now() formats the condition's date_string, never the clock. */
  render(vars: Record<string, unknown>, templateVars: TemplateVars): string;
}

/** Parses a chat template; throws EngineError('bad-checkpoint') naming `file` when it does not parse. */
export function compileChatTemplate(source: string, file = 'tokenizer_config.json chat_template'): ChatTemplate {
  let template: Template;
  let names: Set<string>;
  try {
    template = new Template(source);
    names = identifiers(template.parsed, new Set());
    const tickCall = () => (parse(tokenize(`{{ ${TICK}() }}`)).body[0] as unknown as Node);
    instrument(template.parsed, tickCall);
  } catch (e) {
    throw new EngineError('bad-checkpoint', `${file} does not parse: ${(e as Error).message}`);
  }
  return {
    reads: (Object.keys(VAR_READS) as TemplateVarName[]).filter((v) => VAR_READS[v].some((n) => names.has(n))),
    render(base, templateVars) {
      const date = parseDateString(templateVars.date_string);
      if (!date) throw new EngineError('bad-input', `template variable date_string must be a day as "%d %b %Y" (e.g. "26 Jul 2024"), got ${JSON.stringify(templateVars.date_string)}`);
      const vars: Record<string, unknown> = { ...base, ...templateVars, [STRFTIME]: (format: string) => strftime(date, String(format)) };
      if (templateVars.enable_thinking === undefined) delete vars.enable_thinking;
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
