// Chat templates a hostile repo could publish (issue 43's reproductions and the cases that held),
// each with the named error its render must end in. Read by the Node corpus spec
// (template-sandbox.spec.ts) and the production-build e2e test (e2e/hostile-template.e2e.ts).

export interface HostileTemplate {
  name: string;
  source: string;
  /** The error the render ends in. */
  error: RegExp;
  /** Where the error comes from: the template is refused when it is parsed (at load). */
  atParse?: true;
}

const nestedLoops = '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}';

export const HOSTILE_TEMPLATES: HostileTemplate[] = [
  // the reproductions
  { name: 'range by alias', source: '{% set r = range %}{{ r(300000000)|length }}', error: /^chat template called range\(\) for 300000000 numbers, more than the 100000 allowed/ },
  {
    name: 'range assigned to the old bound\'s name',
    source: '{% set __reachlab_range = range %}{{ range(200000000)|length }}',
    error: /^chat template called range\(\) for 200000000 numbers, more than the 100000 allowed/,
  },
  { name: 'time check assigned away, then nested loops', source: `{% set __reachlab_tick = 'x'.upper %}${nestedLoops}`, error: /^chat template ran past its 2 s time limit/ },
  { name: 'a list doubled thirty times without a loop', source: `{% set x = [1] %}${'{% set x = x + x %}'.repeat(30)}{{ x|length }}`, error: /^chat template made a list of 131072 items, more than the 100000 allowed/ },
  { name: 'a megabyte raise_exception', source: "{{ raise_exception(range(100000)|join('<b>x</b>')) }}", error: /^chat template made a string of 1288882 characters, more than the 1000000 allowed$/ },
  // one filter that runs for hours: only the sandbox's outside deadline ends it
  {
    name: 'one sort of 65,536 megabyte strings',
    source: `{% set s = 'x'|indent(999999, true) %}{% set l = [s] %}${'{% set l = l + l %}'.repeat(16)}{{ l|sort|length }}`,
    error: /^chat template ran past its 2 s time limit and was stopped/,
  },
  // one filter that makes 230 MB at once: refused when it is made (or at the worker's memory cap)
  { name: 'one 230 MB tojson', source: `{% set l = [1] %}${'{% set l = l + l %}'.repeat(8)}{{ l|tojson(indent=900000)|length }}`, error: /^chat template (went past its 256 MB memory limit|made a string of 230400770 characters)/ },
  // the cases that held
  { name: 'recursion', source: '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}', error: /^chat template nests or recurses too deeply|^chat template ran past/ },
  { name: 'an exponential macro', source: '{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% else %}x{% endif %}{% endmacro %}{{ f(64) }}', error: /^chat template (ran past its 2 s time limit|made a string|built more than)/ },
  { name: 'range(1e9) in a loop', source: '{% for i in range(1000000000) %}x{% endfor %}', error: /^chat template called range\(\) for 1000000000 numbers/ },
  { name: 'output over a million characters', source: `{% for i in range(20000) %}${'0123456789'.repeat(10)}{% endfor %}`, error: /^chat template made a string of 2000000 characters, more than the 1000000 allowed$/ },
  { name: 'a 10 MB source', source: 'x'.repeat(10_000_000), error: /^chat template made a string of 10000000 characters/ },
  { name: '100k-deep nesting', source: `${'{% if true %}'.repeat(100_000)}x${'{% endif %}'.repeat(100_000)}`, error: /does not parse: .*call stack|^chat template nests or recurses too deeply/, atParse: true },
];

/** Templates that try to reach the host: each must render to text with none of it. */
export const ESCAPE_TEMPLATES: { name: string; source: string }[] = [
  { name: 'constructor', source: "{{ ''.constructor }}|{{ messages.constructor }}|{{ range.constructor }}" },
  { name: '__proto__', source: "{{ ''.__proto__ }}|{{ messages.__proto__ }}|{{ {}.__proto__ }}" },
  { name: 'process and globals', source: '{{ process }}|{{ globalThis }}|{{ self }}|{{ require }}|{{ Function }}' },
];
