// A fetch handler as Workers, Deno (`Deno.serve(handler.fetch)`), Bun and Next.js route handlers take it.
import { hookrelay, isEvent } from 'hookrelay/fetch';

export function createHandler(secret: string) {
  const verifyRequest = hookrelay({ secrets: [secret], onError: (e) => console.error(JSON.stringify({ refused: e.code, hints: e.hints })) });
  return async function fetch(request: Request): Promise<Response> {
    const event = await verifyRequest(request);
    if (event instanceof Response) return event;
    console.log(JSON.stringify({ received: event.type, id: event.id, ...(isEvent(event, 'trustcenter.access_approved') ? { decidedBy: event.data.decidedBy } : {}) }));
    return new Response(null, { status: 204 });
  };
}
