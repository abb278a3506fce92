/**
 * Benchmark: what a schedule fingerprint costs, per job and for 10,000 jobs at a cold start.
 *
 * 1. Per cadence (daily, hourly, *\/15, *\/1, in Europe/Berlin, 366 days from 2027-01-01):
 *    the shipped fingerprint (the zone's transitions plus a bounded sample of runs) against
 *    hashing every run of the horizon, the alternative it replaces.
 * 2. 10,000 jobs in a fresh process: a quarter of each cadence, with different minutes and
 *    hours, spread over 40 zones, fingerprinted once, as a dispatcher would at a cold start
 *    (zone tables built on the way), then once more warm.
 *
 * It prints figures, it asserts nothing: it is not a test. Run with
 * `npx tsx bench/zone-fingerprint.bench.ts`.
 */
import { createHash } from 'node:crypto';
import { scheduleFingerprint, zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { occurrencesBetween, type ScheduleSpec } from '../functions/schedule/index.ts';

const FROM = new Date('2027-01-01T00:00:00Z');
const TO = new Date(FROM.getTime() + 366 * 86_400_000);
const CADENCES: Record<string, (i: number) => string> = {
  daily: (i) => `${i % 60} ${(i >> 2) % 24} * * *`,
  hourly: (i) => `${i % 60} * * * *`,
  '*/15': (i) => `${i % 15}/15 * * * *`,
  '*/1': () => '* * * * *',
};
const ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'Europe/Paris',
  'Europe/Madrid',
  'Europe/Helsinki',
  'Europe/Moscow',
  'Europe/Istanbul',
  'Europe/Dublin',
  'Europe/Lisbon',
  'Europe/Kyiv',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Phoenix',
  'America/Anchorage',
  'America/Halifax',
  'America/St_Johns',
  'America/Mexico_City',
  'America/Sao_Paulo',
  'America/Santiago',
  'America/Bogota',
  'America/Havana',
  'Pacific/Honolulu',
  'Pacific/Auckland',
  'Pacific/Chatham',
  'Pacific/Apia',
  'Australia/Sydney',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'Australia/Perth',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Shanghai',
  'Asia/Tehran',
  'Asia/Jerusalem',
  'Africa/Casablanca',
  'Africa/Cairo',
  'Antarctica/Troll',
];

/** The alternative: every run of the horizon, hashed. */
function allRunsHash(spec: ScheduleSpec): string {
  const hash = createHash('sha256');
  for (const run of occurrencesBetween(spec, FROM, TO)) hash.update(`${run.at.getTime()}\n`);
  return hash.digest('hex').slice(0, 16);
}

function msPerCall(calls: number, run: (i: number) => void): number {
  const startMs = performance.now();
  for (let i = 0; i < calls; i++) run(i);
  return (performance.now() - startMs) / calls;
}

// 2 first, in a fresh process, so that its first pass is cold.
const jobs: ScheduleSpec[] = Array.from({ length: 10_000 }, (_, i) => {
  const cadence = Object.values(CADENCES)[i % 4] as (i: number) => string;
  return {
    cron: cadence(i),
    timezone: ZONES[(i >> 2) % ZONES.length] as string,
    jobId: `job-${i}`,
  };
});
const coldMs = msPerCall(jobs.length, (i) => scheduleFingerprint(jobs[i] as ScheduleSpec, FROM));
const warmMs = msPerCall(jobs.length, (i) => scheduleFingerprint(jobs[i] as ScheduleSpec, FROM));

console.log(
  `node ${process.version}, tz ${zoneDataVersion()}; horizon 366 days from ${FROM.toISOString()}\n`,
);
console.log('per job, Europe/Berlin (median of 5 batches):');
console.log(
  `${'cadence'.padEnd(10)}${'fingerprint'.padStart(14)}${'all runs hashed'.padStart(18)}${'runs'.padStart(10)}`,
);
for (const [name, cron] of Object.entries(CADENCES)) {
  const spec = (i: number): ScheduleSpec => ({ cron: cron(i), timezone: 'Europe/Berlin' });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[2] as number;
  const runs = occurrencesBetween(spec(0), FROM, TO).length;
  const allCalls = Math.max(1, Math.round(20_000 / runs));
  const shipped = median(
    Array.from({ length: 5 }, () => msPerCall(2000, (i) => scheduleFingerprint(spec(i), FROM))),
  );
  const all = median(
    Array.from({ length: 5 }, () => msPerCall(allCalls, (i) => allRunsHash(spec(i)))),
  );
  console.log(
    `${name.padEnd(10)}${`${shipped.toFixed(4)} ms`.padStart(14)}${`${all.toFixed(2)} ms`.padStart(18)}${runs.toLocaleString('en-US').padStart(10)}`,
  );
}
console.log(
  `\n10,000 jobs (a quarter of each cadence, 40 zones): cold ${(coldMs * jobs.length).toFixed(0)} ms (${coldMs.toFixed(3)} ms per job), warm ${(warmMs * jobs.length).toFixed(0)} ms (${warmMs.toFixed(3)} ms per job)`,
);
