/** hookrelay/testing: `hookrelay send` against startTestReceiver, waited for on the receiver's own event. */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestReceiver, type TestReceiver } from '../../src/testing/index.js';
import { isEvent } from '../../src/kit/events.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest } from '../helpers/signed-delivery.js';

const receivers: TestReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
async function start(options?: Parameters<typeof startTestReceiver>[0]) {
  const receiver = await startTestReceiver(options);
  receivers.push(receiver);
  return receiver;
}

describe('startTestReceiver', () => {
  it('receives what `hookrelay send` sends, and waitFor resolves with the typed delivery', async () => {
    const receiver = await start();
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const waiting = receiver.waitFor({ trigger: 'trustcenter.access_*' }, { timeoutMs: 20_000 });
    const sent = await runCli(['send', '--to', receiver.url, '--secret', receiver.secret, '--trigger', 'trustcenter.access_approved', '--data', '{"accessRequestId":"ar_42","visitorTokenId":"vt_1","decidedBy":"api_client"}']);
    expect(sent.code).toBe(0);
    const delivery = await waiting;
    expect(delivery.trigger).toBe('trustcenter.access_approved');
    if (!isEvent(delivery.event, 'trustcenter.access_approved')) throw new Error('not narrowed');
    expect(delivery.event.data).toEqual({ accessRequestId: 'ar_42', visitorTokenId: 'vt_1', decidedBy: 'api_client' });
    // A delivery that arrived before the call counts too, by id.
    expect((await receiver.waitFor({ deliveryId: delivery.id })).id).toBe(delivery.id);
    expect((await receiver.deliveries()).map((d) => d.id)).toEqual([delivery.id]);
  }, 60_000);

  it('verifies as listen does: a wrong signature is refused and listed with its hints, never delivered', async () => {
    const receiver = await start({ secret: 'whsec_right' });
    const bad = signedRequest({ secret: 'whsec_wrong', t: Math.floor(Date.now() / 1000) });
    const response = await fetch(receiver.url, { method: 'POST', headers: bad.headers, body: new Uint8Array(bad.body) });
    expect(response.status).toBe(400);
    await expect(receiver.waitFor({ deliveryId: bad.id }, { timeoutMs: 300 })).rejects.toThrow(/no delivery matching \{"deliveryId":.*within 300 ms[\s\S]*received: nothing[\s\S]*refused 400 SIGNATURE_MISMATCH/);
    expect(receiver.refused().map((a) => a.reason)).toEqual(['SIGNATURE_MISMATCH']);
  });

  it('resolves a predicate on the hub event, and dedupes a repeat', async () => {
    const receiver = await start({ clock: () => 1_763_719_200_000 });
    const waiting = receiver.waitFor((d) => d.event.organizationId === 'org_1' && d.id === 'p-2');
    for (const id of ['p-1', 'p-2', 'p-2']) {
      const request = signedRequest({ secret: receiver.secret, id, t: 1_763_719_200 });
      expect((await fetch(receiver.url, { method: 'POST', headers: request.headers, body: new Uint8Array(request.body) })).status).toBe(200);
    }
    expect((await waiting).id).toBe('p-2');
    const stored = await receiver.deliveries();
    expect(stored.map((d) => [d.id, d.duplicateCount])).toEqual([['p-1', 0], ['p-2', 1]]);
  });

  it('rejects a waitFor with nothing to match, a throwing predicate, and waits cut short by close()', async () => {
    const receiver = await start();
    await expect(receiver.waitFor({})).rejects.toThrow(/needs a predicate/);
    const throwing = expect(
      receiver.waitFor(() => {
        throw new Error('predicate broke');
      }),
    ).rejects.toThrow(/predicate broke/);
    const request = signedRequest({ secret: receiver.secret, t: Math.floor(Date.now() / 1000) });
    await fetch(receiver.url, { method: 'POST', headers: request.headers, body: new Uint8Array(request.body) });
    await throwing;
    const pending = receiver.waitFor({ trigger: 'never.*' }, { timeoutMs: 60_000 });
    await receiver.close();
    await expect(pending).rejects.toThrow(/closed while waiting/);
  });
});

describe('startTestReceiver: refused options', () => {
  it.each([
    [{ toleranceSeconds: 0 }, /toleranceSeconds must be a whole number of seconds > 0, got 0/],
    [{ toleranceSeconds: 1.5 }, /toleranceSeconds must be a whole number/],
    [{ extraSecrets: [''] }, /extraSecrets must be non-empty strings/],
  ])('%j is refused with a RangeError naming it, before anything starts', async (options, message) => {
    await expect(startTestReceiver(options)).rejects.toThrow(message);
  });
});
