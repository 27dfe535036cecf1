/** Query parameters of the list endpoints (spec 4.1): whole numbers in bounds, else 400 naming the parameter. */
import { badRequest } from './api-error.js';

export function intParam(query: Record<string, unknown>, name: string, bounds: { min: number; max: number; default: number }): number {
  const raw = query[name];
  if (raw === undefined) return bounds.default;
  const text = Array.isArray(raw) ? undefined : raw;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text) || Number(text) < bounds.min || Number(text) > bounds.max) {
    throw badRequest(`${name} must be a whole number from ${bounds.min} to ${bounds.max}`, { field: name });
  }
  return Number(text);
}

export function stringParam(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw badRequest(`${name} must be given once`, { field: name });
  return raw;
}
