// One self-contained HTML report of a study: inline styles, the tables as HTML tables and the
// figures as inline SVG; no script and no network needed to open it. Every text from a plan or a
// model (untrusted) is escaped.

import type { StudyReport } from '../../audit/study';
import type { StudyTable } from './study-tables';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;color:#111;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:13px}
th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f0f0f0}caption{text-align:left;font-weight:600;padding:.25rem 0}
figure{margin:1rem 0}figcaption{font-size:13px;color:#333}code{font-size:12px}`;

export interface HtmlFigure {
  title: string;
  alt: string;
  /** The figure's serialized <svg>. */
  svg: string;
}

export function studyReportHtml(report: StudyReport, tables: readonly StudyTable[], figures: readonly HtmlFigure[], generatedAt: string): string {
  const table = (t: StudyTable) =>
    `<table><caption>${escapeHtml(t.caption)}</caption><thead><tr>${t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>` +
    t.rows.map((r) => `<tr>${r.map((c) => `<td>${c === null ? '' : escapeHtml(String(c))}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>';
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
<h2>Finding 1: reachability vs structured search</h2>
${table(tables.find((t) => t.id === 'study-f1')!)}
${table(tables.find((t) => t.id === 'study-selectors')!)}
${figures.filter((f) => f.title.startsWith('F1')).map(figure).join('\n')}
<h2>Finding 2: silencing one MLP block</h2>
${table(tables.find((t) => t.id === 'study-f2')!)}
${figures.filter((f) => f.title.startsWith('F2')).map(figure).join('\n')}
<h2>Finding 3: training, deployed vs ceiling</h2>
${table(tables.find((t) => t.id === 'study-f3')!)}
${table(tables.find((t) => t.id === 'study-f3-transitions')!)}
${figures.filter((f) => f.title.startsWith('F3')).map(figure).join('\n')}
<h2>Settings</h2>
${table(tables.find((t) => t.id === 'study-settings')!)}
</body></html>
`;
}
