/**
 * One condition on a delivery, as parsed (parse-conditions.ts) and judged (judge-conditions.ts).
 * Plain data: routes holding conditions cross to the SQLite writer's thread.
 */

/** What a condition reads: a place in the JSON body, or a request header. */
export type Operand =
  /** `pointer`: written as a JSON pointer (`/items/0`), whose digit segments also index arrays. */
  | { kind: 'body'; path: Array<string | number>; pointer: boolean }
  /** The name lower-cased; the values of a repeated header joined with ", ". */
  | { kind: 'header'; name: string };

export type Operator = '=' | '!=' | 'in' | 'prefix' | 'exists' | 'not-exists' | '<' | '<=' | '>' | '>=';

/** The bound of `<`, `<=`, `>`, `>=`: a JSON number's text, or an RFC 3339 time. */
export type Bound = { kind: 'number'; text: string } | { kind: 'time'; text: string; seconds: number; fraction: string };

export interface Condition {
  /** As written, for messages. */
  text: string;
  /** 1-based column of its first character in the text it was read from. */
  column: number;
  operand: Operand;
  /** The operand as written (`/data/id`, `data.id`, `header:x-kind`), to find two conditions on one place. */
  operandText: string;
  op: Operator;
  /** `=`, `!=`, `prefix`: one value; `in`: the list; otherwise empty. */
  values: string[];
  bound?: Bound;
}

export interface ConditionProblem {
  column: number;
  reason: string;
}

/** True when some condition reads the body (so a judge must parse it). */
export const readsBody = (conditions: readonly Condition[]): boolean => conditions.some((c) => c.operand.kind === 'body');
