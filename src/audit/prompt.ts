// Prompts: a raw template or the model's chat template, with n-shot examples drawn per question
// with a seed from the train split.

import { createPrng } from '../util/prng';
import type { ChatMessage, TemplateVars } from '../engine/types';
import { AuditError } from './errors';
import { indexLetter } from './formats/mc-letter';
import { seedFor } from './seeds';
import type { Condition, Doc } from './types';

/** "A. first\nB. second…" */
function formatChoices(choices: readonly string[]): string {
  return choices.map((c, i) => `${indexLetter(i)}. ${c}`).join('\n');
}

/** The template with {{question}} and {{choices}} filled, in one pass and verbatim: the text is
 *  never read as a replacement pattern (`$&`, `$$`, `` $` ``) nor searched for placeholders again. */
export function renderQuestion(template: string, doc: Doc): string {
  const choices = doc.choices ? formatChoices(doc.choices) : '';
  return template.replace(/\{\{(question|choices)\}\}/g, (_, field: string) => (field === 'question' ? doc.text : choices));
}

/** What a worked example shows after its question: the rationale when there is one, else the gold. */
function exampleTarget(doc: Doc): string {
  return doc.rationale ?? doc.target;
}

/** n distinct train docs for this question: a partial Fisher–Yates under seedFor(seed, doc.id). */
export function fewShotExamples(train: readonly Doc[], n: number, seed: number, docId: string): Doc[] {
  if (n === 0) return [];
  if (train.length < n) throw new AuditError('bad-input', `${n}-shot prompts need ${n} train examples; the task has ${train.length}`);
  const rng = createPrng(seedFor(seed, docId));
  const idx = train.map((_, i) => i);
  for (let i = 0; i < n; i++) {
    const j = i + rng.int(idx.length - i);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, n).map((i) => train[i]);
}

export interface PromptEngine {
  applyChatTemplate(messages: ChatMessage[], vars: TemplateVars): Promise<string>;
}

/** The prompt text for one question under a condition. */
export async function buildPrompt(engine: PromptEngine, cond: Condition, doc: Doc, train: readonly Doc[]): Promise<string> {
  const shots = fewShotExamples(train, cond.fewShot.n, cond.fewShot.seed, doc.id);
  const targetDelim = cond.fewShot.targetDelimiter ?? '';
  if (!cond.chatTemplate) {
    const delim = cond.fewShot.delimiter ?? '\n\n';
    const parts = shots.map((ex) => renderQuestion(cond.promptTemplate, ex) + targetDelim + exampleTarget(ex));
    parts.push(renderQuestion(cond.promptTemplate, doc));
    return (cond.systemPrompt ? cond.systemPrompt + delim : '') + parts.join(delim);
  }
  const messages: ChatMessage[] = [];
  if (cond.systemPrompt) messages.push({ role: 'system', content: cond.systemPrompt });
  for (const ex of shots) {
    messages.push({ role: 'user', content: renderQuestion(cond.promptTemplate, ex) });
    messages.push({ role: 'assistant', content: exampleTarget(ex) });
  }
  messages.push({ role: 'user', content: renderQuestion(cond.promptTemplate, doc) });
  if (!cond.templateVars) throw new AuditError('bad-input', 'a chat condition needs its templateVars (condition.ts validateCondition)');
  return engine.applyChatTemplate(messages, cond.templateVars);
}

/** The continuation scored for option `letter` in log-likelihood mode: " B" after a raw prompt
 *  ending in a non-space character, "B" otherwise (chat prompts end with the assistant header). */
export function letterContinuation(prompt: string, chat: boolean, letter: string): string {
  return !chat && prompt.length > 0 && !/\s$/.test(prompt) ? ` ${letter}` : letter;
}
