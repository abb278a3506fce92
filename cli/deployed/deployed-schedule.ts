/**
 * A schedule as EventBridge Scheduler holds it. `ListSchedules` gives the name and state only;
 * the expression, its zone and the target's input come from `GetSchedule`, one call each.
 */
export interface DeployedSchedule {
  readonly name: string;
  /** `ENABLED` or `DISABLED`. */
  readonly state: string;
  /** UTC ISO instant of the last change (by CloudFormation or by hand). */
  readonly lastModifiedAt?: string;
  /** `cron(…)` as deployed: `GetSchedule` only. */
  readonly expression?: string;
  /** The zone the expression is read in (`UTC` as zonecron deploys it): `GetSchedule` only. */
  readonly timezone?: string;
  /** The target's input, the tick the dispatcher receives: `GetSchedule` only. */
  readonly input?: string;
}
