import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** The attributes that key a secondary index: an item is in it only when it has both. */
export interface IndexKeyAttributes {
  readonly hash: string;
  readonly sort: string;
}

/**
 * What an applied `UpdateItem` did to an item's place in one secondary index, as far as its
 * update expression tells (an update changes only the attributes it names):
 *
 * - `untouched`: it names neither key attribute; the item stays where it was, or out.
 * - `left`: it removes a key attribute; the item is out of the index now.
 * - `placed`: it sets the sort key to a literal number, and the hash key to a literal
 *   (`hash`) or not at all (the item keeps its partition, if it had one).
 * - `unknown`: anything else (a computed value, `ADD`, a nested path): no telling.
 */
export type IndexEffect =
  | { readonly kind: 'untouched' }
  | { readonly kind: 'left' }
  | { readonly kind: 'placed'; readonly sort: number; readonly hash?: AttributeValue }
  | { readonly kind: 'unknown' };

/** An update request's expression and placeholders (a `ConditionalUpdate`'s). */
export interface UpdateRequest {
  readonly update: string;
  readonly names?: Record<string, string>;
  readonly values?: Record<string, AttributeValue>;
}

/** The actions of an update expression, by top-level attribute. */
interface Actions {
  /** `SET a = v`: the value's text for a plain attribute, `undefined` for a nested path. */
  readonly sets: Map<string, string | undefined>;
  readonly removes: Set<string>;
  /** `ADD` and `DELETE`, and anything done to a nested path. */
  readonly others: Set<string>;
}

const CLAUSE_KEYWORD = /(?<![#:\w])(SET|REMOVE|ADD|DELETE)(?!\w)/gi;
const VALUE_PLACEHOLDER = /^:\w+$/;

/**
 * Reads what an applied update did to an item's place in the index keyed by `key`.
 *
 * The simulation's query memo uses it to keep what it knows of an index partition across
 * writes that cannot have changed it, rather than forgetting everything at every write.
 *
 * @example
 * indexEffect({ update: 'SET #s = :s, #c = :c', names: { '#s': 'openShard', '#c': 'checkAtEpochMs' },
 *   values: { ':s': { S: 'open#1' }, ':c': { N: '1000' } } }, { hash: 'openShard', sort: 'checkAtEpochMs' })
 * //=> { kind: 'placed', sort: 1000, hash: { S: 'open#1' } }
 * indexEffect({ update: 'SET #w = :w', names: { '#w': 'watermarkAt' }, values: { ':w': { S: 'x' } } },
 *   { hash: 'openShard', sort: 'checkAtEpochMs' })
 * //=> { kind: 'untouched' }
 */
export function indexEffect(request: UpdateRequest, key: IndexKeyAttributes): IndexEffect {
  const { sets, removes, others } = readActions(request);
  const named = (attribute: string) => sets.has(attribute) || others.has(attribute);
  // Without either key attribute, whatever else the update does, the item is not indexed.
  if (removes.has(key.hash) || removes.has(key.sort)) return { kind: 'left' };
  if (!named(key.hash) && !named(key.sort)) return { kind: 'untouched' };
  if (others.has(key.hash) || others.has(key.sort) || !sets.has(key.sort)) {
    return { kind: 'unknown' };
  }
  const sort = Number(literal(request, sets.get(key.sort))?.N);
  if (!Number.isFinite(sort)) return { kind: 'unknown' };
  if (!sets.has(key.hash)) return { kind: 'placed', sort };
  const hash = literal(request, sets.get(key.hash));
  return hash ? { kind: 'placed', sort, hash } : { kind: 'unknown' };
}

/** The value of a plain `:placeholder`; undefined for anything computed. */
function literal(request: UpdateRequest, text: string | undefined): AttributeValue | undefined {
  if (text === undefined || !VALUE_PLACEHOLDER.test(text)) return undefined;
  return request.values?.[text];
}

/** Actions read, by expression and names: the ledger writes a few dozen expressions, often. */
const actionsRead = new Map<string, Actions>();
const ACTIONS_MEMO_LIMIT = 10_000;

/** The update expression's actions (read once per expression and names; never changed). */
function readActions(request: UpdateRequest): Actions {
  const key = `${request.update}\u0000${JSON.stringify(request.names ?? null)}`;
  const known = actionsRead.get(key);
  if (known) return known;
  if (actionsRead.size >= ACTIONS_MEMO_LIMIT) actionsRead.clear();
  const actions = readActionsOf(request);
  actionsRead.set(key, actions);
  return actions;
}

/** The update expression's actions, clause by clause. */
function readActionsOf(request: UpdateRequest): Actions {
  const actions: Actions = { sets: new Map(), removes: new Set(), others: new Set() };
  const keywords = [...request.update.matchAll(CLAUSE_KEYWORD)];
  keywords.forEach((match, i) => {
    const start = (match.index ?? 0) + match[0].length;
    const body = request.update.slice(start, keywords[i + 1]?.index ?? request.update.length);
    const verb = (match[1] ?? '').toUpperCase();
    for (const action of splitTopLevel(body)) readAction(verb, action, request.names, actions);
  });
  return actions;
}

/** One action of a clause: `path = value` (SET), `path` (REMOVE), `path value` (ADD, DELETE). */
function readAction(
  verb: string,
  action: string,
  names: Record<string, string> | undefined,
  actions: Actions,
): void {
  const equals = action.indexOf('=');
  const pathText = verb === 'SET' ? action.slice(0, equals) : (action.split(/\s+/)[0] ?? '');
  const path = pathText.trim();
  const root = path.split(/[.[]/)[0] ?? '';
  const attribute = names?.[root] ?? root;
  const nested = root !== path;
  if (verb === 'SET' && !nested) actions.sets.set(attribute, action.slice(equals + 1).trim());
  else if (verb === 'REMOVE' && !nested) actions.removes.add(attribute);
  else actions.others.add(attribute);
}

/** The comma-separated parts of a clause, commas inside function calls left alone. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}
