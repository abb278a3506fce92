import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Sender } from '#shared/aws-clients.ts';
import type { DeployedSchedule } from '../deployed/deployed-schedule.ts';

/** `ListSchedules` answers at most 100 schedules a page (Scheduler API reference, MaxResults). */
const LIST_PAGE_SIZE = 100;

/**
 * Every schedule of a group, by name, with its state: `ListSchedules`, page after page (100 a
 * page, so 101 calls for 10,000 jobs and the sweep). It does not return expressions; see
 * {@link getDeployedSchedule}.
 *
 * @example
 * const schedules = await listDeployedSchedules(scheduler, 'Zonecron-SchedulingGroup-1A2B');
 * schedules.get('berlin-nightly-report') //=> { name: 'berlin-nightly-report', state: 'ENABLED', … }
 */
export async function listDeployedSchedules(
  scheduler: Sender<SchedulerClient>,
  groupName: string,
): Promise<Map<string, DeployedSchedule>> {
  const { ListSchedulesCommand } = await import('@aws-sdk/client-scheduler');
  const found = new Map<string, DeployedSchedule>();
  let token: string | undefined;
  do {
    const page = await scheduler.send(
      new ListSchedulesCommand({
        GroupName: groupName,
        MaxResults: LIST_PAGE_SIZE,
        ...(token ? { NextToken: token } : {}),
      }),
    );
    for (const summary of page.Schedules ?? []) {
      if (!summary.Name) continue;
      found.set(summary.Name, {
        name: summary.Name,
        state: summary.State ?? 'UNKNOWN',
        ...(summary.LastModificationDate
          ? { lastModifiedAt: summary.LastModificationDate.toISOString() }
          : {}),
      });
    }
    token = page.NextToken;
  } while (token);
  return found;
}

/**
 * One schedule with its expression, zone and input (`GetSchedule`), or undefined when the
 * group has no schedule of that name.
 *
 * @example
 * await getDeployedSchedule(scheduler, 'Zonecron-SchedulingGroup-1A2B', 'berlin-nightly-report')
 * //=> { name: 'berlin-nightly-report', state: 'ENABLED', expression: 'cron(30 0,1 * * ? *)',
 * //     timezone: 'UTC', input: '{"jobId":"berlin-nightly-report",…}' }
 */
export async function getDeployedSchedule(
  scheduler: Sender<SchedulerClient>,
  groupName: string,
  name: string,
): Promise<DeployedSchedule | undefined> {
  const { GetScheduleCommand } = await import('@aws-sdk/client-scheduler');
  try {
    const out = await scheduler.send(new GetScheduleCommand({ GroupName: groupName, Name: name }));
    return {
      name: out.Name ?? name,
      state: out.State ?? 'UNKNOWN',
      ...(out.LastModificationDate
        ? { lastModifiedAt: out.LastModificationDate.toISOString() }
        : {}),
      ...(out.ScheduleExpression ? { expression: out.ScheduleExpression } : {}),
      timezone: out.ScheduleExpressionTimezone ?? 'UTC',
      ...(out.Target?.Input !== undefined ? { input: out.Target.Input } : {}),
    };
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

/**
 * `GetSchedule` calls in flight at once: EventBridge Scheduler throttles the API per account
 * and region, and the CLI's clients retry once.
 */
const GET_CONCURRENCY = 8;

/**
 * Several schedules with their expressions, zones and inputs (`GetSchedule`, at most
 * {@link GET_CONCURRENCY} in flight), by name; a name the group does not have is absent.
 * What `list` compares expressions with, `ListSchedules` having none.
 *
 * @example
 * const found = await getDeployedSchedules(scheduler, 'Zonecron-SchedulingGroup-1A2B', ['a', 'b']);
 * found.get('a')?.expression //=> 'cron(30 0,1 * * ? *)'
 */
export async function getDeployedSchedules(
  scheduler: Sender<SchedulerClient>,
  groupName: string,
  names: readonly string[],
): Promise<Map<string, DeployedSchedule>> {
  const found = new Map<string, DeployedSchedule>();
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++] as string;
      const schedule = await getDeployedSchedule(scheduler, groupName, name);
      if (schedule) found.set(name, schedule);
    }
  };
  await Promise.all(Array.from({ length: Math.min(GET_CONCURRENCY, names.length) }, worker));
  return found;
}
