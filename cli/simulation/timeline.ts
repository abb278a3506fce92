/** Something that happens at a simulated instant. */
export interface Timed {
  readonly at: number;
}

/**
 * The simulation's pending events, earliest first; events at the same instant come out in the
 * order they were added (a binary heap with an insertion counter).
 *
 * @example
 * const t = new Timeline<{ at: number; name: string }>();
 * t.push({ at: 2, name: 'b' }); t.push({ at: 1, name: 'a' });
 * t.pop()?.name //=> 'a'
 */
export class Timeline<T extends Timed> {
  readonly #heap: { item: T; seq: number }[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  /** The earliest instant pending, or undefined. */
  peekAt(): number | undefined {
    return this.#heap[0]?.item.at;
  }

  push(item: T): void {
    this.#heap.push({ item, seq: this.#seq++ });
    this.#up(this.#heap.length - 1);
  }

  pop(): T | undefined {
    const top = this.#heap[0];
    const last = this.#heap.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.#heap.length > 0) {
      this.#heap[0] = last;
      this.#down(0);
    }
    return top.item;
  }

  #before(a: number, b: number): boolean {
    const x = this.#heap[a];
    const y = this.#heap[b];
    if (!x || !y) return false;
    return x.item.at < y.item.at || (x.item.at === y.item.at && x.seq < y.seq);
  }

  #swap(a: number, b: number): void {
    const x = this.#heap[a];
    const y = this.#heap[b];
    if (!x || !y) return;
    this.#heap[a] = y;
    this.#heap[b] = x;
  }

  #up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(index: number): void {
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let first = i;
      if (left < this.#heap.length && this.#before(left, first)) first = left;
      if (right < this.#heap.length && this.#before(right, first)) first = right;
      if (first === i) return;
      this.#swap(i, first);
      i = first;
    }
  }
}
