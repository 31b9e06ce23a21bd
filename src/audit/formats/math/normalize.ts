// Text normalisation of an extracted answer before it is parsed: presentation commands, units,
// percent and degree signs, thousands separators, malformed \frac13 and \sqrt3, relation
// spellings and trailing punctuation. The output is still LaTeX, in one canonical spelling.

/** Wrappers whose argument is kept as is. */
const WRAPPERS = /\\(?:mathbf|boldsymbol|bm|mathit|mathsf|mathtt|mathnormal|mathop|operatorname\*?)\s*(?=\{)|\\(?:displaystyle|textstyle|scriptstyle)(?![a-zA-Z])/g;
/** Text commands: their argument is prose (a unit, a word), not mathematics. */
const TEXT_CMD = /\\(?:text(?:bf|it|rm|sf|tt|normal|up)?|mbox|mathrm|hbox)\s*\{([^{}]*)\}/g;
/** A text command with an optional square or cube after it ("\text{ cm}^2"). */
const TEXT_WITH_POWER = new RegExp(`${TEXT_CMD.source}(\\s*\\^\\s*\\{?\\s*[23]\\s*\\}?)?`, 'g');
/** Unit and filler words dropped after a number ("15 cm^2", "28 percent"). */
const UNIT_WORDS =
  /^(?:units?|square|sq|cubic|cm|mm|km|m|meters?|metres?|centimeters?|inches|inch|in|feet|foot|ft|yards?|miles?|mi|mph|seconds?|s|sec|minutes?|min|hours?|hrs?|h|days?|weeks?|months?|years?|degrees?|deg|dollars?|cents?|grams?|g|kg|pounds?|lbs?|ounces?|oz|liters?|litres?|l|ml|people|persons?|students?|ways|points?|times|percent|percentage|pct|radians?|rad)$/i;

/** Replace each `\cmd{a}{b}`-style malformed call: `\frac13` → `\frac{1}{3}`, `\frac3{3}`,
 *  `\sqrt3` → `\sqrt{3}`, `\sqrt 2` → `\sqrt{2}`. */
function braceArgs(s: string): string {
  return s
    .replace(/\\frac\s*(\d)\s*(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac\s*(\d)\s*(?=\{)/g, '\\frac{$1}')
    .replace(/\\frac\s*(\{[^{}]*\})\s*(\d)/g, '\\frac$1{$2}')
    .replace(/\\frac\s*([a-zA-Z])\s*([a-zA-Z\d])/g, '\\frac{$1}{$2}')
    .replace(/\\sqrt\s*(\d+|[a-zA-Z])(?![a-zA-Z])/g, '\\sqrt{$1}');
}

/** Units written as text after a quantity: dropped. Text standing alone (a name, a choice) is kept. */
function dropUnits(s: string): string {
  return s.replace(TEXT_WITH_POWER, (whole, body: string, _power: string | undefined, at: number) => {
    const words = body.trim().replace(/[.,]$/, '');
    const before = s.slice(0, at).trim();
    if (before === '') return whole;
    if (words === '' || words.split(/\s+/).every((w) => UNIT_WORDS.test(w))) return ' ';
    if (/^(?:and|or)$/i.test(words)) return ',';
    return whole;
  });
}

/** Canonical spelling of an answer's LaTeX. Idempotent. */
export function normalizeLatex(input: string): string {
  let s = input.normalize('NFKC');
  s = s
    .replace(/\\[dtc]frac/g, '\\frac')
    .replace(/\\(?:left|right)\s*\.|\\(?:left|right|[bB]igg?[lr]?)(?![a-zA-Z])/g, '')
    // thousands separators: 1{,}000, 1{, }000, 10,\!000, 10,\! 000
    .replace(/(\d)\s*\{,\s*\}\s*(?=\d{3}(?!\d))/g, '$1')
    .replace(/(\d),\\!\s*(?=\d{3}(?!\d))/g, '$1')
    .replace(/\\\\|\\[!,;:> ]|\\q?quad(?![a-zA-Z])|~/g, (m) => (m === '\\\\' ? m : ' ')) // a row break "\\" stays
    .replace(WRAPPERS, '')
    .replace(/\\\$|\$/g, ' ')
    .replace(/\\%|%|\\percent(?![a-zA-Z])/g, ' ')
    .replace(/\^\s*\{?\s*\\circ\s*\}?|\\circ(?![a-zA-Z])|°|\\degree(?![a-zA-Z])/g, ' ')
    .replace(/\\(?:lt)(?![a-zA-Z])/g, '<')
    .replace(/\\(?:gt)(?![a-zA-Z])/g, '>')
    .replace(/>=|\\geqslant(?![a-zA-Z])|\\ge(?![a-zA-Z])/g, '\\geq ')
    .replace(/<=|\\leqslant(?![a-zA-Z])|\\le(?![a-zA-Z])/g, '\\leq ')
    .replace(/!=|\\ne(?![a-zA-Z])/g, '\\neq ')
    .replace(/\\emptyset|\\varnothing/g, '\\{\\}');
  s = braceArgs(s);
  s = dropUnits(s);
  // bare unit words after a number ("28 pct", "125 miles"): dropped at the end of the answer
  s = s.replace(/(\d|\})\s*(?:\^\s*\{?[23]\}?)?\s+([a-zA-Z]+(?:\s+[a-zA-Z]+)?)\s*$/g, (m, d: string, w: string) =>
    w.split(/\s+/).every((x) => UNIT_WORDS.test(x)) ? d : m,
  );
  s = s
    .replace(/,\s*(?:and|or)\s+/g, ', ')
    .replace(/(?<=[\d}])\s+(?:and|or)\s+(?=[-\d\\])/g, ', ')
    .replace(/,(?:\s*,)+/g, ',')
    .replace(/\s+/g, ' ')
    .trim();
  // trailing sentence punctuation, never an ellipsis
  while (/(?<!\.)[.,;:]$/.test(s) && !/\.\.$/.test(s) && !/\\[,;:!]$/.test(s)) s = s.slice(0, -1).trimEnd();
  return s;
}
