import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { TargetDeliveryError } from './errors.ts';

/** The part of the EventBridge client delivery uses. */
export type EventBridgeLike = Pick<EventBridgeClient, 'send'>;

/** `Source` of every event zonecron puts. */
export const EVENT_SOURCE = 'zonecron';

/** `DetailType` of a run event. */
export const EVENT_DETAIL_TYPE = 'zonecron.run';

/**
 * Delivers a run as one event on a bus (the target ARN is the bus's), detail = envelope.
 *
 * PutEvents reports per-entry failures in a 200 response, so `FailedEntryCount` is checked and
 * turned into a `TargetDeliveryError`.
 */
export function createEventBridgeDelivery(eventbridge: EventBridgeLike) {
  return async (arn: string, envelope: RunEnvelope): Promise<{ deliveryId: string }> => {
    const out = await eventbridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: arn,
            Source: EVENT_SOURCE,
            DetailType: EVENT_DETAIL_TYPE,
            Detail: JSON.stringify(envelope),
            Time: new Date(envelope.scheduledAt),
          },
        ],
      }),
    );
    const entry = out.Entries?.[0];
    if ((out.FailedEntryCount ?? 0) > 0 || !entry?.EventId) {
      throw new TargetDeliveryError(
        'eventbridge',
        arn,
        entry?.ErrorCode ?? 'FailedEntry',
        entry?.ErrorMessage ?? 'PutEvents did not accept the entry',
      );
    }
    return { deliveryId: entry.EventId };
  };
}
