// Part 3 of 3 of the disagreements the fuzzer found and that were resolved, replayed against
// the model of §6: the parts share the suite's workers (disagreements.ts deals them by cost).
import { describeDisagreements } from './disagreements.ts';

describeDisagreements(3, 3);
