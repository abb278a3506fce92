/**
 * Writes a jobs file of N generated, varied jobs: the same N and seed always give the same file.
 *
 *   npx tsx scripts/generate-jobs.ts --count 10000 --seed 1 > /tmp/jobs-10000.yaml
 *   npx tsx scripts/generate-jobs.ts --count 1000 --seed 7 --mix hourly > /tmp/hourly.yaml
 *
 * `--mix varied` (the default) uses every cron form the engine knows (plain, lists, ranges,
 * steps, `L`, `LW`, `nW`, `dL`, `d#k`, `H`, macros), every target type, 40 time zones and
 * mostly distinct target ARNs, some shared, some qualified, some in other accounts and regions
 * (SQS, SNS and EventBridge only: completion of `lambda` and `stepfunctions` targets needs the
 * stack's own account and region, eu-west-1 / 123456789012 here). `--mix hourly` and
 * `--mix daily` keep the targets but give every job one run an hour or one a day, for the cost
 * table in docs/deploy.md. `--dedicated K` gives K jobs, spread over the file,
 * `alarm: { dedicated: true }`.
 *
 * The tests and `npm run bench:synth` call {@link generateJobsYaml} directly.
 */

import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { seededRandom } from '../cli/simulation/seeded-random.ts';

/** How the schedules are chosen. */
export type JobMix = 'varied' | 'hourly' | 'daily';

/** What {@link generateJobsYaml} generates. */
export interface GenerateJobsOptions {
  /** Number of jobs. */
  readonly count: number;
  /** Seed of the pseudo-random choices. */
  readonly seed: number;
  /** @default 'varied' */
  readonly mix?: JobMix;
  /** Jobs with `alarm.dedicated: true`. @default 0 */
  readonly dedicated?: number;
}

/** The account and region of the generated `lambda` and `stepfunctions` targets. */
export const GENERATED_HOME = { account: '123456789012', region: 'eu-west-1' } as const;

const OTHER_ACCOUNTS = ['123456789012', '210987654321', '111122223333'] as const;
const OTHER_REGIONS = ['eu-west-1', 'us-east-1', 'ap-southeast-2'] as const;

/** Forty zones: DST north and south, 30- and 45-minute offsets, 30-minute DST, none at all. */
export const GENERATED_ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'Europe/Paris',
  'Europe/Madrid',
  'Europe/Moscow',
  'Europe/Istanbul',
  'Europe/Helsinki',
  'Europe/Dublin',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Phoenix',
  'America/Anchorage',
  'America/Sao_Paulo',
  'America/Santiago',
  'America/St_Johns',
  'America/Mexico_City',
  'America/Havana',
  'America/Asuncion',
  'Pacific/Honolulu',
  'Pacific/Auckland',
  'Pacific/Chatham',
  'Australia/Sydney',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'Australia/Perth',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tehran',
  'Asia/Shanghai',
  'Asia/Singapore',
  'Asia/Dubai',
  'Asia/Jerusalem',
  'Africa/Cairo',
  'Africa/Casablanca',
  'Africa/Johannesburg',
  'Antarctica/Troll',
  'UTC',
] as const;

type Rng = () => number;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[int(rng, 0, items.length - 1)] as T;

/** Minutes people write: mostly quarter hours, sometimes anything. */
const minute = (rng: Rng) => (rng() < 0.6 ? pick(rng, [0, 15, 30, 45]) : int(rng, 0, 59));
const hour = (rng: Rng) => int(rng, 0, 23);
const weekday = (rng: Rng) => pick(rng, ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN', '1']);

/** One generator per cron form; the name ends up in the job id. */
const VARIED_FORMS: readonly [string, (rng: Rng) => string][] = [
  ['daily', (r) => `${minute(r)} ${hour(r)} * * *`],
  ['weekdays', (r) => `${minute(r)} ${hour(r)} * * MON-FRI`],
  ['weekly', (r) => `${minute(r)} ${hour(r)} * * ${weekday(r)}`],
  ['list', (r) => `0,30 ${int(r, 0, 11)},${int(r, 12, 23)} * * *`],
  ['range', (r) => `${minute(r)} 9-17 * * 1-5`],
  ['quarter-hourly', () => '*/15 * * * *'],
  ['half-hourly', (r) => pick(r, ['*/30 * * * *', '5/30 * * * *', '10,40 * * * *'])],
  ['two-hourly', (r) => `${minute(r)} */2 * * *`],
  ['six-hourly', (r) => `${minute(r)} 0/6 * * *`],
  ['hourly', (r) => `${minute(r)} * * * *`],
  ['last-day', (r) => `${minute(r)} ${hour(r)} L * *`],
  ['last-weekday', (r) => `${minute(r)} ${hour(r)} LW * *`],
  ['nearest-weekday', (r) => `${minute(r)} ${hour(r)} ${int(r, 1, 28)}W * *`],
  ['last-friday', (r) => `${minute(r)} ${hour(r)} * * ${int(r, 1, 5)}L`],
  ['nth-weekday', (r) => `${minute(r)} ${hour(r)} * * ${int(r, 1, 5)}#${int(r, 1, 4)}`],
  ['monthly', (r) => `${minute(r)} ${hour(r)} ${int(r, 1, 28)} * *`],
  ['quarterly', (r) => `${minute(r)} ${hour(r)} 1 1,4,7,10 *`],
  ['spread-daily', () => 'H H * * *'],
  ['spread-night', (r) => `H(0-29) ${int(r, 0, 5)} * * *`],
  ['spread-hourly', () => 'H * * * *'],
  ['spread-weekdays', () => 'H H(6-9) * * 1-5'],
  ['macro', (r) => pick(r, ['@daily', '@hourly', '@weekly', '@monthly', '@yearly', '@midnight'])],
];

const HOURLY_FORMS: readonly [string, (rng: Rng) => string][] = [
  ['hourly', (r) => `${minute(r)} * * * *`],
  ['spread-hourly', () => 'H * * * *'],
  ['macro-hourly', () => '@hourly'],
];

const DAILY_FORMS: readonly [string, (rng: Rng) => string][] = [
  ['daily', (r) => `${minute(r)} ${hour(r)} * * *`],
  ['spread-daily', () => 'H H * * *'],
  ['macro-daily', () => '@daily'],
];

const FORMS: Readonly<Record<JobMix, readonly [string, (rng: Rng) => string][]>> = {
  varied: VARIED_FORMS,
  hourly: HOURLY_FORMS,
  daily: DAILY_FORMS,
};

const TARGET_TYPES = ['lambda', 'sqs', 'sns', 'eventbridge', 'stepfunctions'] as const;

/** A target ARN: mostly one of its own, sometimes shared with earlier jobs, sometimes qualified. */
function targetOf(rng: Rng, type: (typeof TARGET_TYPES)[number], index: number) {
  const shared = rng() < 0.1;
  const name = shared ? `shared-${int(rng, 1, 20)}` : `t${String(index).padStart(5, '0')}`;
  const home = `${GENERATED_HOME.region}:${GENERATED_HOME.account}`;
  const elsewhere = `${pick(rng, OTHER_REGIONS)}:${pick(rng, OTHER_ACCOUNTS)}`;
  switch (type) {
    case 'lambda':
      return `arn:aws:lambda:${home}:function:${name}${rng() < 0.2 ? ':live' : ''}`;
    case 'stepfunctions':
      return `arn:aws:states:${home}:stateMachine:${name}${rng() < 0.1 ? ':prod' : ''}`;
    case 'sqs':
      return `arn:aws:sqs:${elsewhere}:${name}${rng() < 0.2 ? '.fifo' : ''}`;
    case 'sns':
      return `arn:aws:sns:${elsewhere}:${name}`;
    case 'eventbridge':
      return `arn:aws:events:${elsewhere}:event-bus/bus-${int(rng, 1, 200)}`;
  }
}

/**
 * The text of a jobs file with `count` generated jobs.
 *
 * @example
 * generateJobsYaml({ count: 2, seed: 1 }).split('\n')[0] //=> '# 2 generated jobs (seed 1, mix varied)'
 */
export function generateJobsYaml(options: GenerateJobsOptions): string {
  const rng = seededRandom(options.seed);
  const mix = options.mix ?? 'varied';
  const forms = FORMS[mix];
  const dedicated = options.dedicated ?? 0;
  const dedicatedEvery = dedicated > 0 ? Math.max(1, Math.floor(options.count / dedicated)) : 0;
  const jobs: Record<string, unknown>[] = [];
  let dedicatedLeft = dedicated;
  for (let i = 0; i < options.count; i += 1) {
    const [form, schedule] = pick(rng, forms);
    const zone = pick(rng, GENERATED_ZONES);
    const type = TARGET_TYPES[i % TARGET_TYPES.length] ?? 'sqs';
    const job: Record<string, unknown> = {
      id: `j${String(i).padStart(5, '0')}-${form}`,
      description: `Generated ${form} job ${i} in ${zone}`,
      schedule: schedule(rng),
      timezone: zone,
      target: { type, arn: targetOf(rng, type, i) },
    };
    if (rng() < 0.2) job.payload = { job: i, tags: ['generated', form] };
    if (rng() < 0.1) job.catchup = { policy: pick(rng, ['latest', 'none']) };
    if (rng() < 0.05) job.dst = { gap: pick(rng, ['shift', 'skip']) };
    if (rng() < 0.02) job.enabled = false;
    if (dedicatedLeft > 0 && job.enabled !== false && i % dedicatedEvery === 0) {
      job.alarm = { dedicated: true };
      dedicatedLeft -= 1;
    }
    jobs.push(job);
  }
  const header = `# ${options.count} generated jobs (seed ${options.seed}, mix ${mix})`;
  return `${header}\n${stringify({ alarms: { email: ['oncall@example.com'] }, jobs }, { lineWidth: 0 })}`;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      seed: { type: 'string', default: '1' },
      mix: { type: 'string', default: 'varied' },
      dedicated: { type: 'string', default: '0' },
    },
  });
  const count = Number(values.count);
  const seed = Number(values.seed);
  const dedicated = Number(values.dedicated);
  const mix = values.mix as JobMix;
  if (!Number.isInteger(count) || count < 0) {
    throw new Error(`invalid --count '${values.count}' (allowed: a whole number >= 0)`);
  }
  if (!Number.isInteger(seed))
    throw new Error(`invalid --seed '${values.seed}' (allowed: an integer)`);
  if (!Number.isInteger(dedicated) || dedicated < 0) {
    throw new Error(`invalid --dedicated '${values.dedicated}' (allowed: a whole number >= 0)`);
  }
  if (!(mix in FORMS)) {
    throw new Error(`invalid --mix '${values.mix}' (allowed: ${Object.keys(FORMS).join(', ')})`);
  }
  process.stdout.write(generateJobsYaml({ count, seed, mix, dedicated }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
