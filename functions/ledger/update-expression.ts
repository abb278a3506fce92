import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './ledger-item.ts';

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
 * //     values: { ':status': { S: 'dispatched' } } }
 */
export class UpdateExpression {
  /** By attribute placeholder: setting an attribute twice keeps the last value. */
  readonly #sets = new Map<string, { clause: string; value: string }>();
  readonly #removes: string[] = [];
  readonly #adds: string[] = [];
  readonly #deletes: string[] = [];
  readonly #names: Record<string, string> = {};
  readonly #values: Item = {};

  /** `SET name = value`. */
  set(name: string, value: AttributeValue): this {
    const n = this.#name(name);
    this.#replaceSet(n, (v) => `${n} = ${v}`, name, value);
    return this;
  }

  /** `SET name = if_not_exists(name, value)`: only when the attribute is absent. */
  setIfAbsent(name: string, value: AttributeValue): this {
    const n = this.#name(name);
    this.#replaceSet(n, (v) => `${n} = if_not_exists(${n}, ${v})`, name, value);
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
    this.#replaceSet(n, (v) => `${n} = if_not_exists(${from}, ${v})`, name, absent);
    return this;
  }

  /** `REMOVE name`. */
  remove(...names: string[]): this {
    for (const name of names) this.#removes.push(this.#name(name));
    return this;
  }

  /** `ADD name value`: adds to a number, or adds elements to a set. */
  add(name: string, value: AttributeValue): this {
    this.#adds.push(`${this.#name(name)} ${this.#value(name, value)}`);
    return this;
  }

  /** `DELETE name value`: removes elements from a set (an emptied set disappears). */
  delete(name: string, value: AttributeValue): this {
    this.#deletes.push(`${this.#name(name)} ${this.#value(`del_${name}`, value)}`);
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

  /** The expression and its placeholders. */
  build(): { update: string; names: Record<string, string>; values: Item } {
    const clauses = [
      this.#sets.size > 0 ? `SET ${[...this.#sets.values()].map((e) => e.clause).join(', ')}` : '',
      this.#removes.length > 0 ? `REMOVE ${this.#removes.join(', ')}` : '',
      this.#adds.length > 0 ? `ADD ${this.#adds.join(', ')}` : '',
      this.#deletes.length > 0 ? `DELETE ${this.#deletes.join(', ')}` : '',
    ];
    return {
      update: clauses.filter(Boolean).join(' '),
      names: { ...this.#names },
      values: { ...this.#values },
    };
  }

  #replaceSet(
    placeholder: string,
    clause: (value: string) => string,
    label: string,
    value: AttributeValue,
  ): void {
    const previous = this.#sets.get(placeholder);
    if (previous) delete this.#values[previous.value];
    const v = this.#value(label, value);
    this.#sets.set(placeholder, { clause: clause(v), value: v });
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
