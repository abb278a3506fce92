import { shiftedTransitionRules } from '../../functions/schedule/index.ts';
import { makeJob } from './jobs.ts';

/**
 * The drift scenario the zone-data tests share: synth on 2027-01-01, Europe/Berlin's 2027
 * spring change (2027-03-28 01:00Z on every tz release) moved a week later, as a machine with
 * other zone data would have it, and jobs in Berlin and in zones the change does not touch.
 *
 * Hand-checked: 02:30 every day first runs at another instant on 2027-03-29 (00:30Z CEST under
 * the real rules, 01:30Z CET under the moved ones); every 15 minutes never does.
 */
export const DRIFT_SYNTH_TIME = new Date('2027-01-01T00:00:00Z');

/** Rules with Berlin's 2027 spring change a week later, at 2027-04-04 01:00Z. */
export const springMovedAWeek = shiftedTransitionRules(
  'Europe/Berlin',
  new Date('2027-03-28T01:00:00Z'),
  7 * 24 * 60,
);

/** Two Berlin jobs the change reaches, two elsewhere, and a disabled Berlin job. */
export const DRIFT_JOBS = [
  makeJob({ id: 'berlin-nightly', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }),
  makeJob({ id: 'berlin-quarterly', schedule: '*/15 * * * *', timezone: 'Europe/Berlin' }),
  makeJob({ id: 'tokyo-morning', schedule: '0 9 * * *', timezone: 'Asia/Tokyo' }),
  makeJob({ id: 'london-hourly', schedule: '0 * * * *', timezone: 'Europe/London' }),
  makeJob({ id: 'berlin-off', schedule: '0 3 * * *', timezone: 'Europe/Berlin', enabled: false }),
];
