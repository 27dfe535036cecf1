/**
 * Cursor pagination exactly as spec 4.1 says: pass `cursor.nextCursor` back as `cursor`, stop
 * when `hasMore` is false; never the legacy `page`. A cursor that leads back to a page already
 * read (the same cursor again, or a page of items all seen before) is a CURSOR_LOOP error, not
 * an endless loop; a page claiming more with no cursor is a BAD_RESPONSE.
 */
import type { ApiClient } from './api-client.js';
import { excerpt, ServiceError } from './service-error.js';

export interface CursorPage<T> {
  items: T[];
  /** The raw `data` of the page, for --json. */
  raw: unknown[];
  /** 1 for the first page read in this run. */
  page: number;
  /** The cursor that fetched this page (null for the first one). */
  cursor: string | null;
  nextCursor: string | null;
  hasMore: boolean;
}

export interface PageOptions<T> {
  path: string;
  limit: number;
  /** Start from this cursor (a resumed run) instead of the newest page. */
  startCursor?: string | null;
  query?: Record<string, string | number | undefined>;
  read: (value: unknown) => T;
  idOf: (item: T) => string;
}

/** Empty pages in a row that still claim more: past this, the cursor goes nowhere. */
const MAX_EMPTY_PAGES_IN_A_ROW = 10;
/** No list is walked past this many pages, whatever the service claims. */
const MAX_PAGES = 100_000;

export async function* cursorPages<T>(client: ApiClient, options: PageOptions<T>): AsyncGenerator<CursorPage<T>> {
  const seenCursors = new Map<string, number>();
  const seenIds = new Set<string>();
  let cursor = options.startCursor ?? null;
  let emptyInARow = 0;
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) throw new ServiceError('CURSOR_LOOP', `GET ${options.path}: more than ${MAX_PAGES} pages; stopped instead of reading forever`);
    const answer = await client.call('GET', options.path, { query: { ...options.query, limit: options.limit, ...(cursor === null ? {} : { cursor }) } });
    if (!Array.isArray(answer.data)) throw new ServiceError('BAD_RESPONSE', `GET ${options.path}: "data" of a list must be an array (spec 2.1)`);
    const raw = answer.data;
    const items = raw.map(options.read);
    const info = answer.envelope.cursor;
    if (info === null || typeof info !== 'object' || Array.isArray(info)) {
      throw new ServiceError('BAD_RESPONSE', `GET ${options.path}: a cursor-based list answered without its "cursor" object (spec 2.1, 4.1)`);
    }
    const { hasMore, nextCursor } = info as { hasMore?: unknown; nextCursor?: unknown };
    if (typeof hasMore !== 'boolean') throw new ServiceError('BAD_RESPONSE', `GET ${options.path}: cursor.hasMore must be true or false (spec 2.1)`);
    if (hasMore && (typeof nextCursor !== 'string' || nextCursor.length === 0)) {
      throw new ServiceError('BAD_RESPONSE', `GET ${options.path}: page ${page} says hasMore but gives no cursor.nextCursor (spec 4.1): cannot go on`);
    }
    const fresh = items.filter((item) => !seenIds.has(options.idOf(item)));
    if (items.length > 0 && fresh.length === 0) {
      throw new ServiceError('CURSOR_LOOP', `GET ${options.path}: page ${page} repeats only items of earlier pages: the service's cursor loops back; stopped after ${page - 1} pages instead of reading forever`);
    }
    emptyInARow = items.length === 0 && hasMore ? emptyInARow + 1 : 0;
    if (emptyInARow > MAX_EMPTY_PAGES_IN_A_ROW) {
      throw new ServiceError('CURSOR_LOOP', `GET ${options.path}: ${emptyInARow} empty pages in a row each say there is more: the service's cursor goes nowhere; stopped after ${page} pages instead of reading forever`);
    }
    for (const item of items) seenIds.add(options.idOf(item));
    const next = hasMore ? (nextCursor as string) : null;
    yield { items, raw, page, cursor, nextCursor: next, hasMore };
    if (next === null) return;
    const earlier = seenCursors.get(next) ?? (next === cursor ? page : undefined);
    if (earlier !== undefined) {
      throw new ServiceError('CURSOR_LOOP', `GET ${options.path}: the cursor after page ${page} (${excerpt(next, 40)}) is the one that fetched page ${earlier}: the service's cursor loops back; stopped instead of reading forever`);
    }
    if (cursor !== null) seenCursors.set(cursor, page);
    cursor = next;
  }
}
