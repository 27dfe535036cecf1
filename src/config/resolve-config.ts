/**
 * Turns flags, HOOKRELAY_* variables and hookrelay.config.json into one config, checking every
 * value and reporting every problem at once (never the first only).
 */
import { jsonSyntaxProblem } from '../core/json-syntax.js';
import { displayUrl } from '../core/url-secrets.js';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { OptionSpec } from './option-specs.js';
import { closestName } from '../core/closest-name.js';
import { unreadableBecause } from '../core/file-errors.js';

export const CONFIG_FILE = 'hookrelay.config.json';

export type Source = 'flag' | 'env' | 'file' | 'default';

export interface Resolved {
  values: Record<string, unknown>;
  sources: Record<string, Source>;
  problems: string[];
}

export interface ConfigInputs {
  /** Values given on the command line, by key (only those the user typed). */
  flags: Record<string, unknown>;
  /** The environment; default process.env (config is the one place that reads it). */
  env?: NodeJS.ProcessEnv;
  /** Path of the config file; `hookrelay.config.json` in the working folder when absent. */
  configFile?: string;
  /** True when the user named the file: then it must exist. */
  configFileRequired?: boolean;
}

export function readConfigFile(path: string, required: boolean, problems: string[]): Record<string, unknown> {
  const file = resolve(path);
  if (!existsSync(file)) {
    if (required) problems.push(`config file ${path}: not found`);
    return {};
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`config file ${path}: cannot read it (${unreadableBecause(err)})`);
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      problems.push(`config file ${path}: must hold a JSON object`);
      return {};
    }
    return parsed as Record<string, unknown>;
  } catch (err) {
    problems.push(`config file ${path}: not valid JSON (${jsonSyntaxProblem(err, text)})`);
    return {};
  }
}

export function resolveOptions(specs: readonly OptionSpec[], inputs: ConfigInputs, extraFileKeys: readonly string[] = []): Resolved {
  const problems: string[] = [];
  const env = inputs.env ?? process.env;
  const fileName = inputs.configFile ?? CONFIG_FILE;
  const file = readConfigFile(fileName, inputs.configFileRequired ?? false, problems);
  const known = new Set([...specs.map((s) => s.key), ...extraFileKeys]);
  for (const key of Object.keys(file)) {
    if (known.has(key)) continue;
    const meant = closestName(key, known);
    problems.push(`config file ${fileName}: unknown key "${key}"${meant ? ` (did you mean "${meant}"?)` : ''} (known: ${[...known].join(', ')})`);
  }

  const values: Record<string, unknown> = {};
  const sources: Record<string, Source> = {};
  for (const spec of specs) {
    let raw: unknown;
    let source: Source;
    let where: string;
    if (inputs.flags[spec.key] !== undefined) {
      raw = inputs.flags[spec.key];
      source = 'flag';
      where = spec.flag;
    } else if (env[spec.env] !== undefined && env[spec.env] !== '' && !(isLineList(spec) && env[spec.env]!.trim() === '')) {
      raw = env[spec.env];
      source = 'env';
      where = spec.env;
    } else if (file[spec.key] !== undefined) {
      raw = file[spec.key];
      source = 'file';
      where = `${fileName} "${spec.key}"`;
    } else {
      values[spec.key] = spec.default;
      sources[spec.key] = 'default';
      continue;
    }
    const checked = coerce(spec, raw, source);
    // Where the user gave it, also when it was refused: the other checks then know it was given.
    sources[spec.key] = source;
    if (checked.ok) {
      values[spec.key] = checked.value;
    } else {
      problems.push(`${where}: ${checked.message}`);
    }
  }
  return { values, sources, problems };
}

/** A list whose items may hold commas (rules, header values, URLs, token globs) is read one item a line from the environment. */
const isLineList = (spec: OptionSpec) => spec.kind.type === 'strings' && spec.kind.envLines === true;

function envList(text: string, lines: boolean): string[] {
  return lines ? text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean) : text.split(',');
}

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

function coerce(spec: OptionSpec, raw: unknown, source: Source): Coerced {
  const kind = spec.kind;
  switch (kind.type) {
    case 'port':
    case 'int': {
      const [min, max] = kind.type === 'port' ? [0, 65535] : [kind.min, kind.max];
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        return { ok: false, message: `must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}` };
      }
      return { ok: true, value: n };
    }
    case 'bool': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (typeof raw === 'string' && /^(1|true|yes|on)$/i.test(raw)) return { ok: true, value: true };
      if (typeof raw === 'string' && /^(0|false|no|off)$/i.test(raw)) return { ok: true, value: false };
      return { ok: false, message: `must be true or false, got ${JSON.stringify(raw)}` };
    }
    case 'strings': {
      // In an environment variable: comma-separated, or one item a line; an array in the file or from repeated flags.
      const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? (source === 'env' ? envList(raw, kind.envLines === true) : [raw]) : null;
      if (!list || list.some((v) => typeof v !== 'string' || v.length === 0)) {
        return { ok: false, message: 'must be one or more non-empty strings' };
      }
      return { ok: true, value: list };
    }
    case 'enum':
      if (typeof raw === 'string' && kind.values.includes(raw)) return { ok: true, value: raw };
      return { ok: false, message: `must be one of ${kind.values.join(', ')}, got ${JSON.stringify(raw)}` };
    case 'url': {
      if (typeof raw !== 'string') return { ok: false, message: 'must be a URL' };
      try {
        const url = new URL(raw);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: `must be an http or https URL, got ${displayUrl(raw)}` };
        return { ok: true, value: url.href };
      } catch {
        return { ok: false, message: `must be a URL such as http://127.0.0.1:3000/webhooks, got ${JSON.stringify(displayUrl(raw))}` };
      }
    }
    case 'path':
    case 'string':
      if (typeof raw !== 'string' || raw.length === 0) return { ok: false, message: 'must be a non-empty string' };
      return { ok: true, value: raw };
  }
}
