// One self-contained HTML report of a study: inline styles, each finding's verdict with its
// evidence, the tables as HTML tables and the figures as inline SVG, then the provenance (the plan
// as run, seeds, app, every cited run's model, engine and condition) and the definitions of the
// numbers; no script and no network needed to open it. Every text from a plan or a model
// (untrusted) is escaped.

import type { StudyExport } from '../../audit/provenance';
import type { Verdict } from '../../audit/verdict';
import { cellText } from './cells';
import type { StudyTable } from './study-tables';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;color:#111;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:13px}
th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f0f0f0}caption{text-align:left;font-weight:600;padding:.25rem 0}
figure{margin:1rem 0}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}dt{font-weight:600}figcaption{font-size:13px;color:#333}code{font-size:12px;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;max-width:100%}figure svg{max-width:100%;height:auto}`;

export interface HtmlFigure {
  title: string;
  alt: string;
  /** The figure's serialized <svg>. */
  svg: string;
}

const verdictHtml = (v: Verdict, id: string) =>
  (v.plain ? `<p class="plain" id="${id}-plain"><strong>${escapeHtml(v.plain)}</strong></p><p class="verdict" id="${id}">${escapeHtml(v.sentence)}</p>` : `<p class="verdict" id="${id}"><strong>${escapeHtml(v.sentence)}</strong></p>`) + (v.evidence.length ? `<ul>${v.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>` : '');

function provenanceHtml(r: StudyExport): string {
  const p = r.provenance;
  const row = (cells: (string | number | null)[]) => `<tr>${cells.map((c) => `<td>${c === null ? '—' : escapeHtml(String(c))}</td>`).join('')}</tr>`;
  const runs = p.runs.map((x) =>
    row([
      x.run_key.slice(0, 12), x.model.name, x.model.revision, x.model.fingerprint.slice(0, 16), x.engine ? `${x.engine.ep} · ${x.engine.dtype}` : null, x.condition_key.slice(0, 12),
      x.condition ? `decoding ${JSON.stringify(x.condition.decoding)}, ${x.condition.maxNewTokens} new tokens, ${x.condition.answerFormat} answers, grader v${x.condition.graderVersion}` : null,
      x.probes.map((s) => s.probe).join(', '), x.app_version,
    ]),
  );
  return `<h2>Provenance</h2>
<p>App ${escapeHtml(p.app.version)}, commit <code>${escapeHtml(p.app.commit)}</code>. Seeds: question seed ${p.seeds.question_seed}, probe seed ${p.seeds.seed}, split seed ${p.seeds.split_seed}.${p.unavailable.length ? ` Runs whose manifest could not be read: ${escapeHtml(p.unavailable.map((k) => k.slice(0, 12)).join(', '))}.` : ''}</p>
<div class="table-wrap"><table><caption>Runs cited (full conditions, prompts and probe specs in the JSON export)</caption><thead><tr>${['run key', 'model', 'revision', 'fingerprint', 'engine · dtype', 'condition key', 'condition', 'probes', 'app version'].map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${runs.join('')}</tbody></table></div>
<p>The plan as run (paste it into the Study screen to run the same study again):</p>
<pre><code>${escapeHtml(JSON.stringify(r.plan, null, 1))}</code></pre>
<h2>Definitions</h2>
<dl>${p.definitions.map((d) => `<dt>${escapeHtml(d.term)}</dt><dd>${escapeHtml(d.definition)}</dd>`).join('')}</dl>`;
}

export function studyReportHtml(report: StudyExport, tables: readonly StudyTable[], figures: readonly HtmlFigure[], generatedAt: string): string {
  const table = (t: StudyTable) =>
    `<div class="table-wrap"><table><caption>${escapeHtml(t.caption)}</caption><thead><tr>${t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>` +
    t.rows.map((r) => `<tr>${r.map(cellText).map((c) => `<td>${c === null || c === undefined ? '' : escapeHtml(String(c))}</td>`).join('')}</tr>`).join('') +
    '</tbody></table></div>';
  const figure = (f: HtmlFigure) => `<figure>${f.svg}<figcaption>${escapeHtml(f.title)}. ${escapeHtml(f.alt)}</figcaption></figure>`;
  const missing = report.missing.length
    ? `<p><strong>Incomplete:</strong> ${report.missing.length} planned runs have no records yet: ${escapeHtml(report.missing.join('; '))}.</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(report.name)} — ReachLab findings</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(report.name)}</h1>
<p>ReachLab findings report. Plan <code>${escapeHtml(report.plan_key)}</code>, generated ${escapeHtml(generatedAt)}. Every number is computed from the stored records of the runs cited by their run keys (first 12 hex digits).</p>
${missing}
<h2>In plain words</h2>
<ul id="plain-findings">${[report.verdicts.reach, report.verdicts.f1, report.verdicts.f2, report.verdicts.f3].flatMap((v) => (v.plain ? [`<li><strong>${escapeHtml(v.plain)}</strong></li>`] : [])).join('')}</ul>
<p class="verdict" id="verdict-opening">${escapeHtml(report.verdicts.opening.sentence)}</p>
<p>${escapeHtml(report.verdicts.multiplicity.sentence)}</p>
<h2>Reach against the decoy answer</h2>
${verdictHtml(report.verdicts.reach, 'verdict-reach')}
<h2>Finding 1: reachability vs structured search</h2>
${verdictHtml(report.verdicts.f1, 'verdict-f1')}
${report.verdicts.f1.uniform ? verdictHtml(report.verdicts.f1.uniform, 'verdict-f1-uniform') : ''}
${table(tables.find((t) => t.id === 'study-f1')!)}
${table(tables.find((t) => t.id === 'study-selectors')!)}
${figures.filter((f) => f.title.startsWith('F1')).map(figure).join('\n')}
<h2>Finding 2: silencing one MLP block</h2>
${verdictHtml(report.verdicts.f2, 'verdict-f2')}
${table(tables.find((t) => t.id === 'study-f2')!)}
${figures.filter((f) => f.title.startsWith('F2')).map(figure).join('\n')}
<h2>Finding 3: training, deployed vs ceiling</h2>
${verdictHtml(report.verdicts.f3, 'verdict-f3')}
${table(tables.find((t) => t.id === 'study-f3')!)}
${table(tables.find((t) => t.id === 'study-f3-transitions')!)}
${figures.filter((f) => f.title.startsWith('F3')).map(figure).join('\n')}
<h2>Settings</h2>
${table(tables.find((t) => t.id === 'study-settings')!)}
${provenanceHtml(report)}
</body></html>
`;
}
