// A checkpoint's chat template (untrusted Jinja) rendered with @huggingface/jinja under stated
// bounds, the first line of defence (the second is the sandbox worker, template-sandbox.ts, which
// is terminated from outside on overrun). The bounds live in the interpreter, not in the template
// or its variables, so no name the template can reach or assign turns them off:
// - every evaluated node checks the time limit (loops, macros, and plain statements alike);
// - every value a node makes is checked: a list at most TEMPLATE_LIMITS.listItems items, a string
//   at most TEMPLATE_LIMITS.outputChars characters, and all of them together at most
//   TEMPLATE_LIMITS.builtUnits (characters plus items), which bounds memory without a loop;
// - the only range the template can reach (by any name, alias or attribute) is the bounded one;
// - strftime_now formats the condition's date, never the clock.

import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { clip } from '../util/clip.ts';
import { parseDateString, strftime } from './template-date.ts';
import { EngineError, type TemplateVarName, type TemplateVars } from './types.ts';

export const TEMPLATE_LIMITS = {
  /** A chat template renders a conversation in milliseconds; 2 s means it loops. */
  timeMs: 2000,
  /** A rendered prompt past a million characters is far past any context the engine runs. */
  outputChars: 1_000_000,
  /** Templates use range() and lists over messages or tools; 100,000 is far past either. */
  listItems: 100_000,
  /** Characters and list items of every value made during one render, together. */
  builtUnits: 50_000_000,
};

function limitError(what: string): EngineError {
  return new EngineError('bad-input', `chat template ${what}`);
}

/** Python's range(), refused past TEMPLATE_LIMITS.listItems numbers before any is made. */
function boundedRange(start: number, stop?: number, step = 1): number[] {
  if (stop === undefined) [start, stop] = [0, start];
  if (![start, stop, step].every(Number.isSafeInteger)) throw limitError(`called range(${clip(`${start}, ${stop}, ${step}`)}) with a value that is not an integer`);
  if (step === 0) throw limitError('called range() with step 0');
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > TEMPLATE_LIMITS.listItems) {
    throw limitError(`called range() for ${length} numbers, more than the ${TEMPLATE_LIMITS.listItems} allowed (a looping template?)`);
  }
  return Array.from({ length }, (_, i) => start + i * step);
}

type Value = { type: string; value: unknown };
type Evaluate = (statement: unknown, environment: Environment) => Value;

/** The interpreter with the bounds: a time check and a size check around every evaluated node. */
class BoundedInterpreter extends Interpreter {
  private built = 0;
  constructor(env: Environment, private readonly deadline: number) {
    super(env);
  }

  override evaluate(statement: Parameters<Evaluate>[0], environment: Environment): ReturnType<Interpreter['evaluate']> {
    if (performance.now() > this.deadline) throw limitError(`ran past its ${TEMPLATE_LIMITS.timeMs / 1000} s time limit (a looping template?)`);
    const out = super.evaluate(statement as never, environment);
    this.check(out as unknown as Value);
    return out;
  }

  private check(v: Value): void {
    let units = 0;
    if (v.type === 'StringValue') {
      units = (v.value as string).length;
      if (units > TEMPLATE_LIMITS.outputChars) throw limitError(`made a string of ${units} characters, more than the ${TEMPLATE_LIMITS.outputChars} allowed`);
    } else if (v.type === 'ArrayValue' || v.type === 'TupleValue') {
      units = (v.value as unknown[]).length;
      if (units > TEMPLATE_LIMITS.listItems) throw limitError(`made a list of ${units} items, more than the ${TEMPLATE_LIMITS.listItems} allowed (an exploding template?)`);
    } else if (v.type === 'ObjectValue') {
      units = (v.value as Map<string, unknown>).size;
    }
    this.built += units;
    if (this.built > TEMPLATE_LIMITS.builtUnits) {
      throw limitError(`built more than ${TEMPLATE_LIMITS.builtUnits.toLocaleString('en-US')} characters and list items in all (an exploding template?)`);
    }
  }
}

/** Names the template reads (identifiers anywhere in it). */
function identifiers(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) identifiers(n, out);
  else if (node && typeof node === 'object') {
    const n = node as { type?: string; value?: unknown };
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

/** The message of a template that fails, cut to the quoting rule (a template's own
 *  raise_exception can carry a megabyte). */
export function templateFailure(e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof RangeError && /call stack/i.test(message)) return limitError('nests or recurses too deeply (Maximum call stack size exceeded)');
  // includes the template's own raise_exception(...) (a jinja built-in)
  return new EngineError('bad-input', `chat template failed: ${clip(message)}`);
}

/** Parses a chat template; throws EngineError('bad-checkpoint') naming `file` when it does not parse. */
export function compileChatTemplate(source: string, file = 'tokenizer_config.json chat_template'): ChatTemplate {
  let template: Template;
  let names: Set<string>;
  try {
    template = new Template(source);
    names = identifiers(template.parsed, new Set());
  } catch (e) {
    throw new EngineError('bad-checkpoint', `${file} does not parse: ${clip((e as Error).message)}`);
  }
  return {
    reads: (Object.keys(VAR_READS) as TemplateVarName[]).filter((v) => VAR_READS[v].some((n) => names.has(n))),
    render(base, templateVars) {
      const date = parseDateString(templateVars.date_string);
      if (!date) throw new EngineError('bad-input', `template variable date_string must be a day as "%d %b %Y" (e.g. "26 Jul 2024"), got ${JSON.stringify(clip(String(templateVars.date_string)))}`);
      const strftimeNow = (format?: unknown) => {
        if (typeof format !== 'string') throw limitError(`called strftime_now() ${format === undefined ? 'without a format' : 'with a format that is not a string'} (e.g. strftime_now("%d %b %Y"))`);
        return strftime(date, format);
      };
      const vars: Record<string, unknown> = {
        // the globals @huggingface/jinja's Template.render sets, with range and strftime_now bounded
        false: false, true: true, none: null, False: false, True: true, None: null,
        raise_exception: (message: unknown) => {
          throw new Error(String(message));
        },
        range: boundedRange,
        strftime_now: strftimeNow,
        ...base,
        ...templateVars,
      };
      if (templateVars.enable_thinking === undefined) delete vars.enable_thinking;
      const env = new Environment();
      for (const [key, value] of Object.entries(vars)) env.set(key, value);
      let out: string;
      try {
        out = new BoundedInterpreter(env, performance.now() + TEMPLATE_LIMITS.timeMs).run(template.parsed).value as string;
      } catch (e) {
        throw templateFailure(e);
      }
      if (out.length > TEMPLATE_LIMITS.outputChars) {
        throw limitError(`gave ${out.length} characters, more than the ${TEMPLATE_LIMITS.outputChars} allowed`);
      }
      return out;
    },
  };
}
