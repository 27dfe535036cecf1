/** PostgreSQL URL helpers that need no driver: the config and the banner use them at start-up. */

/** True for a `postgres://` or `postgresql://` URL (the store selector's test). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The URL with its password replaced, for banners and errors. */
export function redactPostgresUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return 'postgres://…';
  }
}
