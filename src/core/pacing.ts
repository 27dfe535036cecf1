/**
 * `--pace '[URL] [concurrency=N] [rate=N/s|N/m] [burst=N] [paused] [order=KEY] [on-dead=skip|block]'`: how fast, and in what order, the relay hands on to a
 * target. A text with a URL paces that target; one without sets the default of every other target.
 * The relay applies it (src/relay/target-gates.ts); a target nobody paced gets DEFAULT_PACE, today's
 * fixed concurrency and no rate.
 */
import type { Operand } from './conditions/condition.js';
import { factsOf, operandText, type DeliverySubject } from './conditions/judge-conditions.js';
import { parseOperand } from './conditions/parse-operand.js';
import { displayUrl } from './url-secrets.js';

export interface Pace {
  /** Hand-offs to this target in flight at once. */
  concurrency: number;
  /** Hand-offs started a second at most, on average; null: no rate. */
  ratePerSecond: number | null;
  /** Hand-offs that may start at once after a quiet while (a token bucket's depth); 1 spaces them evenly. */
  burst: number;
  /** Start paused: nothing is handed on until resumed (the queue stays in the store). */
  paused: boolean;
  /** `order=…`: one delivery at a time per key, in acceptance order; null: no order. */
  order: OrderSpec | null;
}

/**
 * Ordered hand-offs to a target: a delivery waits while an earlier one of its key is owed. After its
 * tries a head goes dead; `skip` lets the key move on, `block` keeps its later deliveries waiting until
 * the dead one is retried (`events retry`) or removed. Plain data: it crosses to the SQLite writer's thread.
 */
export interface OrderSpec {
  /** As written: `trigger`, `/data/accessRequestId`, `header:x-tenant`. */
  text: string;
  /** The trigger, or what the operand reads. */
  key: 'trigger' | Operand;
  onDead: 'skip' | 'block';
}

export interface PaceSettings {
  /** For every target no text names. */
  fallback: Pace;
  /** By target URL, normalised as routes are (`new URL(…).href`). */
  byTarget: ReadonlyMap<string, Pace>;
}

export const DEFAULT_PACE: Pace = Object.freeze({ concurrency: 16, ratePerSecond: null, burst: 1, paused: false, order: null });
export const MAX_PACE_CONCURRENCY = 256;
/** A rate above this is no pacing: the relay cannot start hand-offs faster anyway. */
export const MAX_PACE_RATE_PER_SECOND = 100_000;
export const MAX_PACE_BURST = 10_000;

export const NO_PACING: PaceSettings = Object.freeze({ fallback: DEFAULT_PACE, byTarget: new Map() });

/** The pace of one target. */
export function paceOf(settings: PaceSettings, target: string): Pace {
  return settings.byTarget.get(target) ?? settings.fallback;
}

type ParsedPace = { ok: true; target: string | null; fields: Partial<Pace> } | { ok: false; problems: string[] };

const RATE = /^(\d+(?:\.\d+)?)\/(s|m)$/;
const COUNT = /^\d+$/;

/** One `--pace` text: every problem in it at once, each naming the word. */
export function parsePace(text: string): ParsedPace {
  const words = text.trim().split(/\s+/).filter((w) => w !== '');
  const problems: string[] = [];
  const fields: Partial<Pace> = {};
  let target: string | null = null;
  let order: Omit<OrderSpec, 'onDead'> | null = null;
  let onDead: OrderSpec['onDead'] | null = null;
  if (words.length === 0) return { ok: false, problems: ['is empty: write e.g. \'http://127.0.0.1:3000/webhooks rate=50/s\' or \'concurrency=4\''] };
  words.forEach((word, i) => {
    const shown = JSON.stringify(displayUrl(word).slice(0, 100));
    if (/^https?:\/\//i.test(word)) {
      if (i !== 0) return problems.push(`${shown}: the target URL comes first`);
      try {
        target = new URL(word).href;
      } catch {
        problems.push(`${shown} is not a URL`);
      }
      return;
    }
    if (word === 'paused') return void (fields.paused = true);
    const eq = word.indexOf('=');
    const name = eq < 0 ? word : word.slice(0, eq);
    const value = eq < 0 ? '' : word.slice(eq + 1);
    switch (name) {
      case 'order': {
        if (value === 'trigger') return void (order = { text: value, key: 'trigger' });
        const operand = value === '' ? { ok: false as const, reason: 'is empty' } : parseOperand(value);
        if (!operand.ok) return problems.push(`${shown}: order is trigger, a JSON pointer into the body (/data/accessRequestId) or header:NAME; ${operand.reason}`);
        order = { text: value, key: operand.operand };
        return;
      }
      case 'on-dead':
        if (value !== 'skip' && value !== 'block') return problems.push(`${shown}: on-dead is skip (the key moves on past a dead delivery) or block (it waits until the dead one is retried)`);
        onDead = value;
        return;
      case 'concurrency':
      case 'burst': {
        const max = name === 'concurrency' ? MAX_PACE_CONCURRENCY : MAX_PACE_BURST;
        const n = COUNT.test(value) ? Number(value) : NaN;
        if (!(n >= 1 && n <= max)) return problems.push(`${shown}: ${name} is a whole number from 1 to ${max}`);
        fields[name] = n;
        return;
      }
      case 'rate': {
        const m = RATE.exec(value);
        const perSecond = m ? Number(m[1]) / (m[2] === 'm' ? 60 : 1) : NaN;
        if (!(perSecond > 0 && perSecond <= MAX_PACE_RATE_PER_SECOND)) return problems.push(`${shown}: rate is N/s or N/m (a number above 0, at most ${MAX_PACE_RATE_PER_SECOND}/s), e.g. rate=50/s`);
        fields.ratePerSecond = perSecond;
        return;
      }
      default:
        if (i === 0 && eq < 0 && word.includes(':')) return problems.push(`${shown}: a target URL starts with http:// or https://`);
        problems.push(`${shown} is not a pace setting (concurrency=N, rate=N/s or N/m, burst=N, paused, order=KEY, on-dead=skip|block${i === 0 ? ', after an optional target URL' : ''})`);
    }
  });
  if (onDead !== null && order === null) problems.push('on-dead applies to ordered hand-offs: add order=trigger or order=/json/pointer');
  if (order !== null) fields.order = { ...(order as Omit<OrderSpec, 'onDead'>), onDead: onDead ?? 'skip' };
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, target, fields };
}

/**
 * Every `--pace` text folded into settings: the texts without a URL set the fallback (the later
 * wins, field by field), a text with one sets that target over the fallback. Problems name the
 * text's place (`where #n`); a pace for a target no route or --forward-to names is a warning.
 */
export function resolvePacing(texts: readonly string[], where: string, targets: readonly string[], problems: string[], warnings: string[]): PaceSettings {
  let fallback: Pace = { ...DEFAULT_PACE };
  const own: Array<[string, Partial<Pace>, string]> = [];
  texts.forEach((text, i) => {
    const label = texts.length > 1 ? `${where} #${i + 1}` : where;
    const parsed = parsePace(text);
    if (!parsed.ok) return void problems.push(...parsed.problems.map((p) => `${label}: ${p}`));
    if (parsed.target === null) fallback = { ...fallback, ...parsed.fields };
    else own.push([parsed.target, parsed.fields, label]);
  });
  const byTarget = new Map<string, Pace>();
  for (const [target, fields, label] of own) {
    if (!targets.includes(target)) warnings.push(`${label}: no route or --forward-to hands on to ${displayUrl(target)}; this pace applies to nothing`);
    byTarget.set(target, { ...fallback, ...byTarget.get(target), ...fields });
  }
  return { fallback, byTarget };
}

/** A pace as `--pace` writes it, e.g. `concurrency=16 rate=50/s burst=1`. */
export function describePace(pace: Pace): string {
  const rate = pace.ratePerSecond === null ? '' : ` rate=${Number.isInteger(pace.ratePerSecond) ? `${pace.ratePerSecond}/s` : `${Math.round(pace.ratePerSecond * 60 * 1000) / 1000}/m`} burst=${pace.burst}`;
  const order = pace.order === null ? '' : ` order=${pace.order.text} on-dead=${pace.order.onDead}`;
  return `concurrency=${pace.concurrency}${rate}${order}${pace.paused ? ' paused' : ''}`;
}

/** The longest order key kept: a longer value is cut, which can only make two keys one (stricter order, never looser). */
export const MAX_ORDER_KEY_LENGTH = 256;

/**
 * The key a delivery is ordered by: `t:` and its trigger, `v:` and the compact JSON of the value
 * read, or `-` when the value is missing or the body is not JSON (those are ordered among themselves).
 */
export function orderKeyOf(spec: OrderSpec, delivery: DeliverySubject & { trigger: string }): string {
  const key = spec.key === 'trigger' ? `t:${delivery.trigger}` : ((text) => (text === null ? '-' : `v:${text}`))(operandText(spec.key, factsOf(delivery)));
  return key.length > MAX_ORDER_KEY_LENGTH ? key.slice(0, MAX_ORDER_KEY_LENGTH) : key;
}

/** The ordered targets among `targets`, by URL: what the store keys each job by. */
export function orderOfTargets(settings: PaceSettings, targets: readonly string[]): Record<string, OrderSpec> {
  const ordered: Record<string, OrderSpec> = {};
  for (const target of targets) {
    const { order } = paceOf(settings, target);
    if (order !== null) ordered[target] = order;
  }
  return ordered;
}
