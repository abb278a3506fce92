/**
 * What a target may need to know about a delivery besides its envelope.
 *
 * A file of its own so that the target modules and the delivery boundary
 * (`./index.ts`, which loads them) both import it without importing each other.
 */
export interface DeliveryContext {
  /** The run's round: 0, then one more for each operator redrive. */
  readonly generation: number;
}
