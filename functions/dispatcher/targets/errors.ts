import type { TargetType } from '#jobs/job.ts';
import { DispatcherError } from '../errors.ts';

/** A target refused or failed a delivery in a way the SDK did not raise as an exception. */
export class TargetDeliveryError extends DispatcherError {
  readonly targetType: TargetType;
  readonly arn: string;
  readonly code: string;
  constructor(targetType: TargetType, arn: string, code: string, detail: string) {
    super(`${targetType} target '${arn}' refused the run: ${code}: ${detail}`);
    this.targetType = targetType;
    this.arn = arn;
    this.code = code;
  }
}

/** True for `TargetDeliveryError`, also across two loaded copies of this module. */
export function isTargetDeliveryError(error: unknown): error is TargetDeliveryError {
  return (error as { name?: unknown } | null)?.name === 'TargetDeliveryError';
}
