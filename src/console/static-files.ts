/**
 * The built page (web/dist), read into memory once. Serving from a fixed map means a request
 * path is only ever a key: there is no file-system path to traverse.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `<package>/web/dist`, from src/console/ (tsx) and dist/console/ (built) alike. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
  /** Vite's hashed assets never change under the same name. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const MAX_FILES = 500;

/** URL path → file. Empty when `root` does not exist (the page was not built). */
export function loadStaticFiles(root: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(root)) return files;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (files.size >= MAX_FILES) return;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size <= 16 * 1024 * 1024) {
        const body = readFileSync(full);
        const urlPath = `/${relative(root, full).split(sep).join('/')}`;
        files.set(urlPath, {
          body,
          type: TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream',
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
          immutable: urlPath.startsWith('/assets/'),
        });
      }
    }
  };
  walk(root);
  return files;
}

/** What `/` answers when web/dist is missing. */
export const PAGE_NOT_BUILT =
  'The console page is not built. Run `npm install` (its prepare script builds it) or `npx vite build --config web/vite.config.ts`, then restart. The control API under /api works without it.\n';
