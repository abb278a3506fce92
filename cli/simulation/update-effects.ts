import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { UpdateAction } from '#ledger/index.ts';

/** The attributes that key a secondary index: an item is in it only when it has both. */
export interface IndexKeyAttributes {
  readonly hash: string;
  readonly sort: string;
}

/**
 * What an applied `UpdateItem` did to an item's place in one secondary index, as far as its
 * actions tell (an update changes only the attributes it names):
 *
 * - `untouched`: it names neither key attribute; the item stays where it was, or out.
 * - `left`: it removes a key attribute; the item is out of the index now.
 * - `placed`: it sets the sort key to a literal number, and the hash key to a literal
 *   (`hash`) or not at all (the item keeps its partition, if it had one).
 * - `unknown`: anything else (a computed value, `ADD`, an update without actions): no telling.
 */
export type IndexEffect =
  | { readonly kind: 'untouched' }
  | { readonly kind: 'left' }
  | { readonly kind: 'placed'; readonly sort: number; readonly hash?: AttributeValue }
  | { readonly kind: 'unknown' };

/**
 * An update request (a `ConditionalUpdate`): its expression, and its actions as
 * `UpdateExpression.build` gives them. One sent without actions, its expression written by
 * hand, has an unknown effect: the expression is never read.
 */
export interface UpdateRequest {
  readonly update: string;
  readonly actions?: readonly UpdateAction[];
}

const UNKNOWN: IndexEffect = { kind: 'unknown' };

/**
 * Reads what an applied update did to an item's place in the index keyed by `key`.
 *
 * The simulation's query memo uses it to keep what it knows of an index partition across
 * writes that cannot have changed it, rather than forgetting everything at every write. It
 * reads the actions the ledger's builder recorded, never the expression.
 *
 * @example
 * indexEffect(new UpdateExpression().set('openShard', { S: 'open#1' })
 *   .set('checkAtEpochMs', { N: '1000' }).build(), { hash: 'openShard', sort: 'checkAtEpochMs' })
 * //=> { kind: 'placed', sort: 1000, hash: { S: 'open#1' } }
 * indexEffect(new UpdateExpression().set('watermarkAt', { S: 'x' }).build(),
 *   { hash: 'openShard', sort: 'checkAtEpochMs' })
 * //=> { kind: 'untouched' }
 * // written by hand, without actions:
 * indexEffect({ update: 'SET #w = :w' }, { hash: 'openShard', sort: 'checkAtEpochMs' })
 * //=> { kind: 'unknown' }
 */
export function indexEffect(request: UpdateRequest, key: IndexKeyAttributes): IndexEffect {
  if (!request.actions) return UNKNOWN;
  // An applied update names each attribute once: DynamoDB refuses overlapping paths.
  const hash = request.actions.find((a) => a.attribute === key.hash);
  const sort = request.actions.find((a) => a.attribute === key.sort);
  // Without either key attribute, whatever else the update does, the item is not indexed.
  if (hash?.kind === 'remove' || sort?.kind === 'remove') return { kind: 'left' };
  if (!hash && !sort) return { kind: 'untouched' };
  if (sort?.kind !== 'set') return UNKNOWN;
  const sortValue = Number(sort.value.N);
  if (!Number.isFinite(sortValue)) return UNKNOWN;
  if (!hash) return { kind: 'placed', sort: sortValue };
  return hash.kind === 'set' ? { kind: 'placed', sort: sortValue, hash: hash.value } : UNKNOWN;
}
