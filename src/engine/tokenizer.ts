// Tokenizer (tokenizer.json through @huggingface/tokenizers) and chat template (parsed here for
// its errors and the variables it reads, rendered in the template sandbox: template-sandbox.ts), found where transformers finds it: the file
// chat_template.jinja first, else tokenizer_config.json chat_template (a string, or a list of
// {name, template} of which the one named "default" is used).
//
// decode is the tokenizer.json decoder alone, as `tokenizers` and transformers 5 decode: never
// clean_up_tokenization_spaces ("1 ,000" stays "1 ,000"), whatever tokenizer_config.json says.
//
// encode(text) adds no special tokens except a leading BOS when the checkpoint adds one the way
// Hugging Face does: tokenizer_config add_bos_token, or (when that is absent) a post-processor whose
// single-sequence template starts with the BOS token (Llama 3). A text that already starts with
// the BOS token (a rendered chat template) gets no second one.

import { Tokenizer } from '@huggingface/tokenizers';
import { compileChatTemplate } from './chat-template.ts';
import { sharedTemplateSandbox } from './template-host.ts';
import type { SandboxTemplate, TemplateRenderer } from './template-sandbox.ts';
import { EngineError, type ChatMessage, type ChatTemplateFile, type TemplateVarName, type TemplateVars } from './types.ts';

export interface TextTokenizer {
  readonly hasChatTemplate: boolean;
  /** Where the chat template came from; null when there is none. */
  readonly chatTemplateFile: ChatTemplateFile | null;
  /** The condition-set variables the chat template reads. */
  readonly chatTemplateReads: TemplateVarName[];
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly bosTokenId: number | null;
  encode(text: string): number[];
  decode(ids: number[], opts?: { skipSpecialTokens?: boolean }): string;
  applyChatTemplate(messages: ChatMessage[], vars: TemplateVars): Promise<string>;
  /** Token id of a string that is one token in the vocabulary, else undefined. */
  tokenId(token: string): number | undefined;
}

/** tokenizer_config token fields are a string or an AddedToken object {content, ...}. */
function tokenString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return null;
}

/** tokenizer_config.json chat_template: a string, or a list of {name, template} of which
 *  transformers uses the one named "default" (a list without one has no template to apply). */
function configTemplateSource(v: unknown): { source: string } | { missing: string } | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return { source: v };
  if (Array.isArray(v)) {
    const named = v.find((t) => t && (t as { name?: unknown }).name === 'default') as { template?: unknown } | undefined;
    if (typeof named?.template === 'string') return { source: named.template };
    const names = v.map((t) => JSON.stringify((t as { name?: unknown } | null)?.name)).join(', ');
    return { missing: `tokenizer_config.json chat_template lists templates ${names} and none named "default"` };
  }
  throw new EngineError('bad-checkpoint', 'tokenizer_config.json chat_template must be a string or a list of {name, template}');
}

/** Whether the tokenizer.json post-processor prepends `bos` to a single sequence. */
function postProcessorAddsBos(tokenizerJson: unknown, bos: string): boolean {
  const find = (pp: unknown): boolean => {
    if (!pp || typeof pp !== 'object') return false;
    const p = pp as { type?: string; single?: unknown[]; processors?: unknown[] };
    if (p.type === 'Sequence') return (p.processors ?? []).some(find);
    if (p.type !== 'TemplateProcessing' || !Array.isArray(p.single)) return false;
    const first = p.single[0] as { SpecialToken?: { id?: string } } | undefined;
    return first?.SpecialToken?.id === bos;
  };
  return find((tokenizerJson as { post_processor?: unknown } | null)?.post_processor);
}

/** Refuses a tokenizer.json that can produce an id the model has no embedding for (an id at or
 *  past config.json vocab_size), naming the token, instead of failing at the first encode. */
export function checkTokenizerVocab(tokenizerJson: unknown, vocabSize: number): void {
  const t = (tokenizerJson ?? {}) as { model?: { vocab?: unknown }; added_tokens?: unknown };
  const fail = (token: unknown, id: unknown) =>
    new EngineError('bad-checkpoint', `tokenizer.json: token ${JSON.stringify(token)} has id ${String(id)}, not below config.json vocab_size ${vocabSize}`);
  const vocab = t.model?.vocab;
  if (Array.isArray(vocab)) {
    // Unigram: [piece, score] pairs, the id is the position
    if (vocab.length > vocabSize) throw fail((vocab[vocabSize] as unknown[] | undefined)?.[0], vocabSize);
  } else if (vocab && typeof vocab === 'object') {
    for (const [token, id] of Object.entries(vocab)) if (!(Number.isSafeInteger(id) && (id as number) >= 0 && (id as number) < vocabSize)) throw fail(token, id);
  }
  if (Array.isArray(t.added_tokens)) {
    for (const a of t.added_tokens as { id?: unknown; content?: unknown }[]) {
      if (!(Number.isSafeInteger(a?.id) && (a.id as number) >= 0 && (a.id as number) < vocabSize)) throw fail(a?.content, a?.id);
    }
  }
}

/** `chatTemplateJinja`: the checkpoint's chat_template.jinja, when it has one (it takes precedence);
 *  `templates`: where the template renders (by default the thread's shared sandbox). */
export function createTokenizer(
  tokenizerJson: unknown,
  tokenizerConfig: Record<string, unknown>,
  chatTemplateJinja: string | null = null,
  templates: TemplateRenderer = sharedTemplateSandbox(),
): TextTokenizer {
  let tok: Tokenizer;
  try {
    tok = new Tokenizer(tokenizerJson as object, tokenizerConfig);
  } catch (e) {
    throw new EngineError('bad-checkpoint', `tokenizer.json cannot be loaded: ${(e as Error).message}`);
  }
  const bosToken = tokenString(tokenizerConfig.bos_token);
  const eosToken = tokenString(tokenizerConfig.eos_token);
  const bosTokenId = bosToken === null ? null : (tok.token_to_id(bosToken) ?? null);
  const addBos =
    bosTokenId !== null &&
    (typeof tokenizerConfig.add_bos_token === 'boolean' ? tokenizerConfig.add_bos_token : postProcessorAddsBos(tokenizerJson, bosToken!));

  const fromConfig = configTemplateSource(tokenizerConfig.chat_template);
  const chosen = chatTemplateJinja !== null
    ? { source: chatTemplateJinja, file: 'chat_template.jinja', from: 'chat_template.jinja' as const }
    : fromConfig && 'source' in fromConfig ? { source: fromConfig.source, file: 'tokenizer_config.json chat_template', from: 'tokenizer_config.json' as const } : null;
  const chatTemplateFile: ChatTemplateFile | null = chosen?.from ?? null;
  const chatTemplateReads = chosen ? compileChatTemplate(chosen.source, chosen.file).reads : [];
  const template: SandboxTemplate | null = chosen ? templates.template(chosen.source, chosen.file) : null;
  const noTemplate = fromConfig && 'missing' in fromConfig ? `this model has no chat template to apply: ${fromConfig.missing}` : 'this model has no chat template (no chat_template.jinja, no chat_template in tokenizer_config.json)';
  const specialVars: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const s = tokenString(tokenizerConfig[key]);
    if (s !== null) specialVars[key] = s;
  }

  return {
    hasChatTemplate: template !== null,
    chatTemplateFile,
    chatTemplateReads,
    bosToken,
    eosToken,
    bosTokenId,
    encode(text) {
      const ids = tok.encode(text, { add_special_tokens: false }).ids;
      if (addBos && ids[0] !== bosTokenId) ids.unshift(bosTokenId!);
      return ids;
    },
    decode(ids, opts = {}) {
      if (ids.length === 0) return '';
      return tok.decode(ids, { skip_special_tokens: opts.skipSpecialTokens ?? false, clean_up_tokenization_spaces: false });
    },
    async applyChatTemplate(messages, vars) {
      if (!template) throw new EngineError('bad-input', noTemplate);
      return template.render({ ...specialVars, messages }, vars);
    },
    tokenId: (token) => tok.token_to_id(token),
  };
}
