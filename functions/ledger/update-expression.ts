import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './ledger-item.ts';

/**
 * What one update does to one attribute, as the builder that wrote it knows: set to a literal
 * value, set to a value computed at write time (`if_not_exists`, another attribute's value),
 * removed, added to, or deleted from.
 *
 * A reader of an update (the simulation's query memo) learns from these what the update
 * changes without parsing its expression. Every builder action names a whole top-level
 * attribute (a `#name` placeholder names one attribute, never a path).
 */
export type UpdateAction =
  | { readonly kind: 'set'; readonly attribute: string; readonly value: AttributeValue }
  | { readonly kind: 'set-computed' | 'remove' | 'add' | 'delete'; readonly attribute: string };

/** A built update: the expression, its placeholders, and what it does attribute by attribute. */
export interface BuiltUpdate {
  readonly update: string;
  readonly names: Record<string, string>;
  readonly values: Item;
  /** The expression's actions, in its order (`UpdateAction`). */
  readonly actions: readonly UpdateAction[];
}

/** One clause of the expression and the action it stands for. */
interface Part {
  readonly clause: string;
  readonly action: UpdateAction;
}

/**
 * Builds one DynamoDB update expression from named parts, so a transition reads as the list of
 * attributes it touches instead of a hand-joined string.
 *
 * Every attribute name goes through `#name` placeholders (a few, like `status` and `at`, are
 * reserved words) and every value through `:name`.
 *
 * @example
 * new UpdateExpression().set('status', { S: 'dispatched' }).remove('leaseUntilEpochMs').build()
 * //=> { update: 'SET #status = :status REMOVE #leaseUntilEpochMs',
 * //     names: { '#status': 'status', '#leaseUntilEpochMs': 'leaseUntilEpochMs' },
 * //     values: { ':status': { S: 'dispatched' } },
 * //     actions: [{ kind: 'set', attribute: 'status', value: { S: 'dispatched' } },
 * //               { kind: 'remove', attribute: 'leaseUntilEpochMs' }] }
 */
export class UpdateExpression {
  /** By attribute placeholder: setting an attribute twice keeps the last value. */
  readonly #sets = new Map<string, Part & { readonly value?: string }>();
  readonly #removes: Part[] = [];
  readonly #adds: Part[] = [];
  readonly #deletes: Part[] = [];
  readonly #names: Record<string, string> = {};
  readonly #values: Item = {};

  /** `SET name = value`. */
  set(name: string, value: AttributeValue): this {
    const n = this.#name(name);
    this.#replaceSet(n, (v) => `${n} = ${v}`, name, value, { kind: 'set', attribute: name, value });
    return this;
  }

  /** `SET name = if_not_exists(name, value)`: only when the attribute is absent. */
  setIfAbsent(name: string, value: AttributeValue): this {
    const n = this.#name(name);
    this.#replaceSet(n, (v) => `${n} = if_not_exists(${n}, ${v})`, name, value, computed(name));
    return this;
  }

  /**
   * `SET name = if_not_exists(source, absent)`: `source` as it was before this update (every
   * operand of an update is read before any of its actions), or `absent` when it had none.
   *
   * @example
   * new UpdateExpression().setToPrevious('previousStatus', 'status', { S: 'new' })
   *   .set('status', { S: 'claimed' }).build().update
   * //=> 'SET #previousStatus = if_not_exists(#status, :previousStatus), #status = :status'
   */
  setToPrevious(name: string, source: string, absent: AttributeValue): this {
    const n = this.#name(name);
    const from = this.#name(source);
    this.#replaceSet(n, (v) => `${n} = if_not_exists(${from}, ${v})`, name, absent, computed(name));
    return this;
  }

  /**
   * `SET name = source`: the value `source` had before this update.
   *
   * @example
   * new UpdateExpression().setFrom('lastPauseFrom', 'pausedAt').remove('pausedAt').build().update
   * //=> 'SET #lastPauseFrom = #pausedAt REMOVE #pausedAt'
   */
  setFrom(name: string, source: string): this {
    const n = this.#name(name);
    const previous = this.#sets.get(n);
    if (previous?.value) delete this.#values[previous.value];
    this.#sets.set(n, { clause: `${n} = ${this.#name(source)}`, action: computed(name) });
    return this;
  }

  /** `REMOVE name`. */
  remove(...names: string[]): this {
    for (const name of names) {
      this.#removes.push({ clause: this.#name(name), action: { kind: 'remove', attribute: name } });
    }
    return this;
  }

  /** `ADD name value`: adds to a number, or adds elements to a set. */
  add(name: string, value: AttributeValue): this {
    const clause = `${this.#name(name)} ${this.#value(name, value)}`;
    this.#adds.push({ clause, action: { kind: 'add', attribute: name } });
    return this;
  }

  /** `DELETE name value`: removes elements from a set (an emptied set disappears). */
  delete(name: string, value: AttributeValue): this {
    const clause = `${this.#name(name)} ${this.#value(`del_${name}`, value)}`;
    this.#deletes.push({ clause, action: { kind: 'delete', attribute: name } });
    return this;
  }

  /** A placeholder for a name, for use in a condition. */
  name(name: string): string {
    return this.#name(name);
  }

  /** A placeholder for a value, for use in a condition. */
  value(label: string, value: AttributeValue): string {
    return this.#value(label, value);
  }

  /** The expression, its placeholders and its actions. */
  build(): BuiltUpdate {
    const clauses: [string, readonly Part[]][] = [
      ['SET', [...this.#sets.values()]],
      ['REMOVE', this.#removes],
      ['ADD', this.#adds],
      ['DELETE', this.#deletes],
    ];
    const used = clauses.filter(([, parts]) => parts.length > 0);
    return {
      update: used
        .map(([verb, parts]) => `${verb} ${parts.map((p) => p.clause).join(', ')}`)
        .join(' '),
      names: { ...this.#names },
      values: { ...this.#values },
      actions: used.flatMap(([, parts]) => parts.map((p) => p.action)),
    };
  }

  #replaceSet(
    placeholder: string,
    clause: (value: string) => string,
    label: string,
    value: AttributeValue,
    action: UpdateAction,
  ): void {
    const previous = this.#sets.get(placeholder);
    if (previous?.value) delete this.#values[previous.value];
    const v = this.#value(label, value);
    this.#sets.set(placeholder, { clause: clause(v), value: v, action });
  }

  #name(name: string): string {
    const placeholder = `#${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
    this.#names[placeholder] = name;
    return placeholder;
  }

  #value(label: string, value: AttributeValue): string {
    const base = `:${label.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let placeholder = base;
    for (let i = 2; placeholder in this.#values; i++) placeholder = `${base}${i}`;
    this.#values[placeholder] = value;
    return placeholder;
  }
}

/** A set whose value DynamoDB computes as it writes. */
function computed(attribute: string): UpdateAction {
  return { kind: 'set-computed', attribute };
}
