/**
 * Schema drift in the console (issue 40, item 3): the detail API carries it, and the page shows it
 * as a warning with each finding as text, hostile content inert; a body matching its schema shows none.
 */
import { describe, expect, it } from 'vitest';
import { envelopeBody, receive, startConsole } from '../helpers/console-fixture.js';
import { useBrowser } from '../helpers/browser.js';

const suite = useBrowser();
const ID = '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60';
const HOSTILE = '<img src=x onerror=alert(1)>\u202e';

describe('schema drift in the delivery detail', () => {
  it('is in GET /api/deliveries/:id and on the page, as text; a matching delivery has none', async () => {
    const fx = await startConsole({ webRoot: suite.webRoot });
    suite.cleanup(() => fx.close());
    await receive(fx.store, fx.hub, { id: 'evt-drift', trigger: 'trustcenter.access_approved', rawBody: envelopeBody('evt-drift', 'trustcenter.access_approved', { accessRequestId: ID, decidedBy: HOSTILE }) });
    await receive(fx.store, fx.hub, { id: 'evt-fine', trigger: 'trustcenter.access_requested', rawBody: envelopeBody('evt-fine', 'trustcenter.access_requested', { accessRequestId: ID, later: 1 }) });

    const detail = (await (await fetch(`${fx.base}/api/deliveries/evt-drift`)).json()) as { data: { drift: unknown } };
    expect(detail.data.drift).toEqual({
      trigger: 'trustcenter.access_approved',
      problems: ['/data/visitorTokenId: missing (uuid string expected)', `/data/decidedBy: ${JSON.stringify(HOSTILE)} (one of reviewer, access_rule, api_client expected)`],
      more: 0,
    });
    const fine = (await (await fetch(`${fx.base}/api/deliveries/evt-fine`)).json()) as { data: { drift: unknown } };
    expect(fine.data.drift).toBeNull();

    const { page, errors, dialogs } = await suite.open(`${fx.base}/#/d/evt-drift`);
    const section = page.getByTestId('schema-drift');
    await section.waitFor();
    const text = (await section.textContent()) ?? '';
    expect(text).toContain('Schema drift');
    expect(text).toMatch(/2 known fields missing or of another type than the trustcenter\.access_approved schema says/);
    expect(text).toContain('/data/visitorTokenId: missing (uuid string expected)');
    expect(text).toContain('<img src=x onerror=alert(1)>');
    expect(await section.locator('img').count()).toBe(0);
    // The bidi override is shown as an escape, not applied.
    expect(await section.locator('.esc').count()).toBeGreaterThan(0);

    await page.goto(`${fx.base}/#/d/evt-fine`);
    await page.getByTestId('detail-id').filter({ hasText: 'evt-fine' }).waitFor();
    expect(await page.getByTestId('schema-drift').count()).toBe(0);
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
