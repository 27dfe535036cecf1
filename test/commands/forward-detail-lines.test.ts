/** The forward lines of listen's and connect's banners: a forward proxy is shown, its password never. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardDetailLines } from '../../src/commands/shared-options.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('forwardDetailLines', () => {
  it('names the proxy the hand-offs go through, and where it was set, without its credentials', () => {
    const { dir, remove } = tempDir();
    try {
      const result = resolveListenConfig({
        flags: { secret: ['whsec_forward_detail_0123456789'], db: join(dir, 'h.db'), forwardTo: 'http://127.0.0.1:3000/hooks' },
        env: { HOOKRELAY_FORWARD_PROXY: 'http://ana:s3cretpw@127.0.0.1:4290' },
        configFile: join(dir, 'none.json'),
      });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const lines = forwardDetailLines(result.config.forward);
      expect(lines).toContain('  proxy      hand-offs go through http://[redacted]@127.0.0.1:4290/ (HOOKRELAY_FORWARD_PROXY)');
      expect(lines.join('\n')).not.toContain('s3cretpw');
    } finally {
      remove();
    }
  });

  it('says nothing of a proxy when there is none', () => {
    const { dir, remove } = tempDir();
    try {
      const result = resolveListenConfig({ flags: { secret: ['whsec_forward_detail_0123456789'], db: join(dir, 'h.db'), forwardTo: 'http://127.0.0.1:3000/hooks' }, env: {}, configFile: join(dir, 'none.json') });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const lines = forwardDetailLines(result.config.forward);
      expect(lines.length).toBe(0); // a plain --forward-to adds no detail line (its own line is the banner's)
      expect(lines.some((line) => line.includes('proxy'))).toBe(false);
    } finally {
      remove();
    }
  });
});
