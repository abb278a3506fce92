/**
 * What to do with a local slot that does not exist because clocks jumped forward.
 *
 * `shift` runs at the slot read with the offset before the jump (later by the jump's length),
 * `transition` runs at the instant of the jump, `skip` does not run.
 */
export type GapPolicy = 'shift' | 'transition' | 'skip';

/**
 * What to do with a local slot that happens twice because clocks went back.
 *
 * `first` runs at the earlier instant, `last` at the later one, `both` at both.
 */
export type OverlapPolicy = 'first' | 'last' | 'both';

/**
 * The kind of a schedule, which picks its DST defaults.
 *
 * `cadence`: the hour field matches all 24 hours (gap `skip`, overlap `both`);
 * `wall-clock`: everything else (gap `shift`, overlap `first`).
 */
export type ScheduleKind = 'cadence' | 'wall-clock';

/** The effective DST policies of a schedule. */
export interface DstPolicies {
  readonly gap: GapPolicy;
  readonly overlap: OverlapPolicy;
}

/**
 * A schedule: a five-field cron expression read in an IANA zone.
 *
 * `jobId` is needed only when the expression uses `H`; `dst` overrides the defaults of the
 * schedule's kind.
 */
export interface ScheduleSpec {
  readonly cron: string;
  readonly timezone: string;
  readonly jobId?: string;
  readonly dst?: { readonly gap?: GapPolicy; readonly overlap?: OverlapPolicy };
}

/**
 * One run of a schedule.
 *
 * `at` is the UTC instant (whole minute), `nominal` the local slot it stands for
 * (`YYYY-MM-DDTHH:mm`), `dst` whether that slot was in a gap, an overlap, or neither.
 */
export interface Occurrence {
  readonly at: Date;
  readonly nominal: string;
  readonly dst: 'none' | 'gap' | 'overlap';
}

/** An offset change of a zone: at `at` the offset goes from before to after (minutes east of UTC). */
export interface ZoneTransition {
  readonly at: Date;
  readonly offsetBeforeMinutes: number;
  readonly offsetAfterMinutes: number;
}
