import { describe, expect, it } from 'vitest';
import { answerStyle, answerStyleWarning } from './file-answers';

const ARITH = { maxNewTokens: 8, stopSequences: ['\n'], answerFormat: 'numeric' as const };

describe('answerStyle', () => {
  it('tells a bare answer from a worked solution and from LaTeX', () => {
    expect(answerStyle('72')).toBe('short');
    expect(answerStyle('Natalia sold 48/2 = 24 clips in May.\n#### 72')).toBe('prose');
    expect(answerStyle('She sold forty eight clips in April')).toBe('prose');
    expect(answerStyle('\\frac{14}{3}')).toBe('latex');
    expect(answerStyle('$x^2$')).toBe('latex');
  });
});

describe('answerStyleWarning', () => {
  it('names the fields to change for a GSM8K-style file under the arithmetic defaults', () => {
    const w = answerStyleWarning(['42', 'Natalia sold 48/2 = 24 clips in May.\n#### 72'], ARITH);
    expect(w).toMatch(/worked solutions in words \(row 2: "Natalia sold/);
    expect(w).toContain('Max new tokens (now 8; about 256');
    expect(w).toContain('Stop sequences');
    expect(w).not.toContain('Answer format');
  });

  it('asks for the math format and its room for LaTeX answers', () => {
    const w = answerStyleWarning(['\\frac{14}{3}'], ARITH);
    expect(w).toMatch(/answers are LaTeX \(row 1/);
    expect(w).toContain('Max new tokens (now 8; about 1024');
    expect(w).toContain('Answer format (now numeric; math expression');
  });

  it('says nothing for short answers, or once the condition fits', () => {
    expect(answerStyleWarning(['42', '7'], ARITH)).toBeNull();
    expect(answerStyleWarning(['\\frac{14}{3}'], { maxNewTokens: 1024, stopSequences: [], answerFormat: 'math' })).toBeNull();
  });
});
