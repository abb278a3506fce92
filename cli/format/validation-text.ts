/**
 * The text report of `zonecron validate`: a list of sections, each a function of the report,
 * so a new line (a figure, a note) is one more section. Loaded by the command when it prints
 * text, so other commands do not load the zone-data table at start.
 */
import { zoneDataLines } from '../zone-data/report.ts';
import type { Colours } from './colour.ts';
import { configWarningLines, holidayDataLine } from './config-warnings.ts';
import { hardWrap, plainTable, wrap } from './table.ts';
import type { ValidationReport } from './validation-report.ts';

/** The summary table's columns; a job's sentence spans all of them, separators included. */
const COLUMN_WIDTHS = [24, 18, 24, 5];
const SENTENCE_WIDTH = COLUMN_WIDTHS.reduce((sum, width) => sum + width + 2, -2);

/** The text report's sections, in order; each returns its lines. */
const SECTIONS: readonly ((report: ValidationReport, c: Colours) => string[])[] = [
  headline,
  jobTable,
  dstWarnings,
  ({ configWarnings }, c) => configWarningLines(configWarnings, c),
  deployLines,
  ({ zoneData, holidayData }, c) => [
    ...zoneDataLines(zoneData, c),
    ...(holidayData === null ? [] : [holidayDataLine(holidayData)]),
  ],
];

/**
 * The text report: a headline, the jobs with their UTC coverings, the DST warnings of the
 * coming year and the deploy check, sections separated by a blank line.
 *
 * @example
 * validationText(report, coloursFor(process.stdout)).split('\n')[0]
 * //=> '✓ jobs.yaml: 6 jobs valid (6 enabled)'
 */
export function validationText(report: ValidationReport, c: Colours): string {
  return SECTIONS.map((section) => section(report, c))
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n');
}

function headline({ file, jobs, deploy }: ValidationReport, c: Colours): string[] {
  const enabled = jobs.filter(({ job }) => job.enabled).length;
  const mark = deploy.violations.length === 0 ? c.green('✓ ') : c.red('✗ ');
  return [
    `${mark}${file}: ${jobs.length} job${jobs.length === 1 ? '' : 's'} valid (${enabled} enabled)`,
  ];
}

function jobTable({ jobs }: ValidationReport, c: Colours): string[] {
  const rows = jobs.flatMap(({ job, sentence, hint, covering }) => [
    [
      `${hardWrap(job.id, 24)}\n${job.target.type}`,
      `${job.schedule}\n${job.timezone}`,
      covering ? covering.awsExpression : 'disabled',
      covering ? `${Math.round(covering.ticksPerRun * 100) / 100}` : '-',
    ],
    [{ colSpan: COLUMN_WIDTHS.length, content: wrap(sentence, '  ↳ ', SENTENCE_WIDTH) }],
    ...(hint === undefined
      ? []
      : [[{ colSpan: COLUMN_WIDTHS.length, content: wrap(hint, '  hint: ', SENTENCE_WIDTH) }]]),
  ]);
  return [
    plainTable(['job / target', 'schedule / zone', 'UTC covering', 'ticks'], rows, {
      colWidths: COLUMN_WIDTHS,
    }),
    c.dim('ticks = covering ticks per real run; the dispatcher no-ops on the extra ones'),
  ];
}

function dstWarnings({ jobs, from }: ValidationReport, c: Colours): string[] {
  const day = from.toISOString().slice(0, 10);
  const warnings = jobs.flatMap(({ job, warnings }) => warnings.map((w) => ({ job, ...w })));
  if (warnings.length === 0) {
    return [`no job has local times in a DST change in the year after ${day}`];
  }
  return [
    `DST in the year after ${day}: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`,
    ...warnings.map((w) => c.yellow(wrap(`${w.job.id}: ${w.text}`, 'WARNING '))),
  ];
}

function deployLines({ deploy }: ValidationReport, c: Colours): string[] {
  const { largestTemplate: largest } = deploy;
  const lines = [
    wrap(
      `deploy check: ${deploy.stacks.length} stack${deploy.stacks.length === 1 ? '' : 's'}, largest template ${largest.file} (${largest.resources} resources, ${largest.bytes.toLocaleString('en-US')} bytes), jobs.json ${deploy.jobsJsonBytes.toLocaleString('en-US')} bytes`,
      '',
    ),
  ];
  for (const note of deploy.notes) lines.push(wrap(note, 'NOTE '));
  if (deploy.violations.length === 0) {
    lines.push(c.green('✓ every AWS limit a deploy meets is met'));
  } else {
    for (const violation of deploy.violations) lines.push(c.red(wrap(violation, 'LIMIT ')));
  }
  return lines;
}
