/** The client side of the control surface: `hookrelay emulate fire` posts one event to a running emulator. */

export interface ControlAnswer {
  status: number;
  body: unknown;
}

/** POSTs `body` to `<apiUrl>/_emulator/events`. Rejects only when the emulator cannot be reached. */
export async function postEvent(apiUrl: string, apiKey: string, body: unknown): Promise<ControlAnswer> {
  const { request } = await import('../runtime/undici-on-use.js'); // on use: not at every command's start
  const res = await request(`${apiUrl}/_emulator/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* shown as text */
  }
  return { status: res.statusCode, body: parsed };
}
