import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDynamoLedger } from '#ledger/index.ts';
import {
  type LedgerWatch,
  type SlotHold,
  watchedLedger,
} from '../../../../cli/simulation/containers.ts';
import { startContractStores } from '../../../support/ledger-stores.ts';

// The simulation's ledger runs on dynalite; the wrapper is held to the ledger's own contract
// on both stores, like the ledger itself (test/integration/ledger/ledger.test.ts).
const contract = await startContractStores(inject('dynamoEndpoint'));
afterAll(() => contract.stop());

const NOW = Date.parse('2027-06-16T15:45:58.893Z');
const HOUR_MS = 3_600_000;

describe.each(contract.stores)('the watched ledger of a simulated container on %s', (_, open) => {
  async function setup() {
    const watch: LedgerWatch = { firstClaims: new Map(), slotHolds: [], invocations: 0 };
    const container = { held: [] as SlotHold[], invocation: { id: 7 } };
    const clock = () => new Date(NOW);
    const ledger = watchedLedger(createDynamoLedger(await open()), watch, container, clock);
    return { ledger, watch, container };
  }

  it('hands a forbid slot to a run when the caller names the holder as no longer running (freeOf), and records both holds', async () => {
    const { ledger, watch, container } = await setup();
    await ledger.acquireSlot('j2', 'run-15-15', NOW, NOW + HOUR_MS);

    const refused = await ledger.acquireSlot('j2', 'run-15-45', NOW, NOW + HOUR_MS);
    const taken = await ledger.acquireSlot('j2', 'run-15-45', NOW, NOW + HOUR_MS, 'run-15-15');

    expect(refused).toEqual({ acquired: false, runningKey: 'run-15-15' });
    expect(taken).toEqual({ acquired: true });
    expect(watch.slotHolds.map((h) => [h.key, h.untilEpochMs])).toEqual([
      ['run-15-15', NOW + HOUR_MS],
      ['run-15-45', NOW + HOUR_MS],
    ]);
    expect(container.held.map((h) => h.key)).toEqual(['run-15-15', 'run-15-45']);
  });

  it('keeps the slot with its holder when freeOf names another run', async () => {
    const { ledger, watch } = await setup();
    await ledger.acquireSlot('j2', 'run-15-15', NOW, NOW + HOUR_MS);

    const taken = await ledger.acquireSlot('j2', 'run-15-45', NOW, NOW + HOUR_MS, 'run-15-30');

    expect(taken).toEqual({ acquired: false, runningKey: 'run-15-15' });
    expect(watch.slotHolds.map((h) => h.key)).toEqual(['run-15-15']);
  });
});
