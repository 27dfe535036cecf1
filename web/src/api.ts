/** The control API client: JSON only, the token as a header, the spec's envelopes unwrapped. */
import type { CursorInfo, RelayTarget } from './types.js';

const TOKEN_KEY = 'hookrelay.console.token';
let token: string | null = null;

/**
 * Takes `?token=` from the URL the console was opened with, keeps it for this tab, and removes it
 * from the address bar (and so from history and screenshots).
 */
export function initToken(): string | null {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
  }
  token = sessionStorage.getItem(TOKEN_KEY);
  return token;
}

export function currentToken(): string | null {
  return token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface ApiAnswer<T> {
  data: T;
  cursor?: CursorInfo;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers['x-hookrelay-token'] = token;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'the console server cannot be reached');
  }
  let json: { success?: boolean; data?: T; cursor?: CursorInfo; error?: string; code?: string; details?: unknown };
  try {
    json = await response.json();
  } catch {
    throw new ApiError(response.status, 'BAD_ANSWER', `unexpected answer (HTTP ${response.status})`);
  }
  if (!response.ok || json.success !== true) {
    throw new ApiError(response.status, json.code ?? 'ERROR', json.error ?? `HTTP ${response.status}`, json.details);
  }
  return { data: json.data as T, ...(json.cursor ? { cursor: json.cursor } : {}) };
}

export const apiGet = <T>(path: string) => request<T>('GET', path);
export const apiSend = <T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => request<T>(method, path, body);

/** The relay's targets with their pace (`GET /api/targets`; 501 where the process has no relay). */
export const listTargets = () => apiGet<RelayTarget[]>('/api/targets');
/** Pauses or resumes a target by its number; answers the target as it is now. */
export const setTargetPaused = (id: string, paused: boolean) => apiSend<RelayTarget>('POST', `/api/targets/${encodeURIComponent(id)}/${paused ? 'pause' : 'resume'}`, {});

/** Fetches a binary answer (the raw body) with the token header. */
export async function apiBlob(path: string): Promise<Blob> {
  const response = await fetch(path, { headers: token ? { 'x-hookrelay-token': token } : {}, cache: 'no-store' });
  if (!response.ok) throw new ApiError(response.status, 'DOWNLOAD', `download failed (HTTP ${response.status})`);
  return response.blob();
}

/** `?a=1&b=2` from the defined, non-empty values. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
