import { describe, expect, it } from 'vitest';
import { isPrivateOrReserved } from '../../src/sender/private-address.js';

describe('isPrivateOrReserved (spec 6.4 blocked)', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.10', '198.18.0.1', '::1', '[::1]', '::', 'fe80::1', 'fc00::1',
    'fd12:3456::1', 'ff02::1', '2001:db8::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1',
  ])('blocks %s', (address) => {
    expect(isPrivateOrReserved(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', 'example.com', '', 'not an ip'])(
    'lets %j through',
    (address) => {
      expect(isPrivateOrReserved(address)).toBe(false);
    },
  );
});
