/** Query parameters of the control API, validated (spec 4.1 and 8: cursor lists, limit 1 to 100). */
import { ConsoleApiError, badRequest } from './api-envelope.js';
import type { CursorCodec, CursorKind } from './cursor.js';

export type Query = Record<string, unknown>;

/** A single string parameter (repeated parameters are refused), at most `max` characters. */
export function stringParam(query: Query, name: string, max = 255): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`query parameter "${name}" must be given once`);
  if (value.length > max) throw badRequest(`query parameter "${name}" must be at most ${max} characters`);
  return value;
}

export interface PageParams {
  limit: number;
  /** Store sequence to continue below. */
  before: number | undefined;
}

export function pageParams(query: Query, kind: CursorKind, cursors: CursorCodec): PageParams {
  if (query.page !== undefined) throw badRequest('this is a cursor list: use "cursor" (from cursor.nextCursor), not "page"');
  const limitText = stringParam(query, 'limit', 10);
  let limit = 50;
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
      throw badRequest('"limit" must be an integer from 1 to 100');
    }
    limit = Number(limitText);
  }
  const cursor = stringParam(query, 'cursor', 300);
  let before: number | undefined;
  if (cursor !== undefined) {
    const seq = cursor.length > 0 ? cursors.decode(kind, cursor) : null;
    if (seq === null) throw new ConsoleApiError(400, 'INVALID_CURSOR', 'the cursor is malformed or was not issued by this console for this list (cursors do not survive a restart)');
    before = seq;
  }
  return { limit, before };
}
