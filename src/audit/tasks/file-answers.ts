// What a task file's gold answers say about the condition it needs: answers written as worked
// solutions (prose) or LaTeX need room to be written and a format that reads them, which the
// arithmetic defaults (a few new tokens, stop at a new line, a bare number) do not give.
import { formatOf } from '../formats/registry';
import type { Condition } from '../types';
import { quote } from '../../util/clip';

export type AnswerStyle = 'latex' | 'prose' | 'short';

const LATEX = /\\[A-Za-z]+|\$[^$\n]+\$|\^\{|_\{/;
/** An answer this many words long (or over several lines) is a worked solution, not a bare answer. */
const PROSE_WORDS = 6;

/** How a gold answer is written. */
export function answerStyle(answer: string): AnswerStyle {
  if (LATEX.test(answer)) return 'latex';
  const a = answer.trim();
  return a.includes('\n') || a.split(/\s+/).length >= PROSE_WORDS ? 'prose' : 'short';
}

/** A warning naming the condition fields to change (Setup's labels) when the file's answers are
 *  prose or LaTeX and the condition would cut a response short or not read it; null otherwise. */
export function answerStyleWarning(answers: readonly string[], c: Pick<Condition, 'maxNewTokens' | 'stopSequences' | 'answerFormat'>): string | null {
  const i = answers.findIndex((a) => answerStyle(a) === 'latex');
  const at = i >= 0 ? i : answers.findIndex((a) => answerStyle(a) === 'prose');
  if (at < 0) return null;
  const latex = i >= 0;
  const math = formatOf('math');
  const room = latex ? math.maxNewTokens : formatOf('numeric').maxNewTokens;
  const fixes: string[] = [];
  if (c.maxNewTokens < room) fixes.push(`Max new tokens (now ${c.maxNewTokens}; about ${room} lets a worked answer finish)`);
  if (c.stopSequences.includes('\n')) fixes.push('Stop sequences (a new line ends the response after its first line)');
  if (latex && c.answerFormat !== 'math') fixes.push(`Answer format (now ${c.answerFormat}; ${math.label} reads LaTeX answers)`);
  if (!fixes.length) return null;
  const kind = latex ? 'LaTeX' : 'worked solutions in words';
  return `This file's answers are ${kind} (row ${at + 1}: ${quote(answers[at].trim(), 60)}), but the condition is set for short answers. Under Condition, change: ${fixes.join('; ')}.`;
}
