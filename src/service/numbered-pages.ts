/**
 * The page-based lists (`page`, `limit`, and `pagination` in the envelope; spec 2.1), read page
 * after page until the last. A page beyond the count the service gave, or an answer without its
 * `pagination`, ends the walk with a BAD_RESPONSE rather than a loop.
 */
import type { ApiClient } from './api-client.js';
import { ServiceError } from './service-error.js';

/** Spec 4.4 shows no paging for these lists; 100 is the largest page the emulator serves. */
export const NUMBERED_PAGE_LIMIT = 100;
/** No list is walked past this many pages, whatever the service claims. */
const MAX_PAGES = 10_000;

export async function* numberedPages<T>(client: ApiClient, path: string, read: (value: unknown) => T, query: Record<string, string | number | undefined> = {}): AsyncGenerator<T> {
  let previous: string | null = null;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await client.call('GET', path, { query: { ...query, page, limit: NUMBERED_PAGE_LIMIT } });
    if (!Array.isArray(answer.data)) throw new ServiceError('BAD_RESPONSE', `GET ${path}: "data" of a list must be an array (spec 2.1)`);
    // A service that ignores `page` answers the first page again and again (by its records' ids): never yielded twice.
    const seen = answer.data.length > 0 ? JSON.stringify(answer.data.map((item) => (item !== null && typeof item === 'object' && 'id' in item ? (item as { id: unknown }).id : item))) : null;
    if (seen !== null && seen === previous) throw new ServiceError('BAD_RESPONSE', `GET ${path}: page ${page} is page ${page - 1} again: the service ignores \`page\`; stopped instead of reading it forever`);
    previous = seen;
    for (const item of answer.data) yield read(item);
    const info = answer.envelope.pagination as { totalPages?: unknown } | undefined;
    // A list answered without `pagination` is one page: all there is.
    if (info === undefined || info === null) return;
    const total = info.totalPages;
    if (!Number.isSafeInteger(total)) throw new ServiceError('BAD_RESPONSE', `GET ${path}: pagination.totalPages must be an integer (spec 2.1)`);
    if (page >= (total as number) || answer.data.length === 0) return;
  }
  throw new ServiceError('BAD_RESPONSE', `GET ${path}: more than ${MAX_PAGES} pages; stopped instead of reading forever`);
}
