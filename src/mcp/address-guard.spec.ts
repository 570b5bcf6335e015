import { BlockedAddressError, blockedRange, PinnedLookup } from './address-guard';

describe('blockedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052'],
    ['2002:a9fe:a9fe::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each([['8.8.8.8'], ['1.1.1.1'], ['2606:4700:4700::1111'], ['::ffff:8.8.8.8']])('allows the public address %s', (address) => {
    expect(blockedRange(address)).toBeUndefined();
  });
});

describe('PinnedLookup', () => {
  const lookupOnce = (p: PinnedLookup, host: string, all = false) =>
    new Promise<unknown>((resolve, reject) => p.lookup(host, { all }, (err, address, family) => (err ? reject(err) : resolve(all ? address : [address, family]))));

  it('resolves a name once and answers every connection with the checked address (DNS rebinding)', async () => {
    const answers = [[{ address: '93.184.216.34', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let calls = 0;
    const pinned = new PinnedLookup(false, async () => answers[Math.min(calls++, 1)]);
    expect(await lookupOnce(pinned, 'rebind.example')).toEqual(['93.184.216.34', 4]);
    expect(await lookupOnce(pinned, 'rebind.example')).toEqual(['93.184.216.34', 4]);
    expect(await lookupOnce(pinned, 'rebind.example', true)).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(calls).toBe(1);
  });

  it('refuses a name when any of its addresses is blocked', async () => {
    const pinned = new PinnedLookup(false, async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]);
    await expect(lookupOnce(pinned, 'mixed.example')).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('allows private addresses when configured to', async () => {
    const pinned = new PinnedLookup(true, async () => [{ address: '127.0.0.1', family: 4 }]);
    expect(await lookupOnce(pinned, 'localhost')).toEqual(['127.0.0.1', 4]);
    expect(() => pinned.checkLiteral('127.0.0.1')).not.toThrow();
  });

  it('checks IP literals, which sockets never pass to lookup', () => {
    const pinned = new PinnedLookup(false);
    expect(() => pinned.checkLiteral('169.254.169.254')).toThrow(BlockedAddressError);
    expect(() => pinned.checkLiteral('[::1]')).toThrow(BlockedAddressError);
    expect(() => pinned.checkLiteral('8.8.8.8')).not.toThrow();
    expect(() => pinned.checkLiteral('example.com')).not.toThrow();
  });
});
