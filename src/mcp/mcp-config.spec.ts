import { maskConfig, mergeTemplate, restoreMasked, SECRET_MASK } from './mcp-config';

describe('secret masking', () => {
  it('masks header and env values whose names look secret, case-insensitively', () => {
    expect(
      maskConfig({
        url: 'https://x',
        headers: { authorization: 'Bearer a', 'X-API-KEY': 'k', 'X-Request-Id': 'r' },
        env: { SLACK_BOT_TOKEN: 't', Db_Password: 'p', AWS_SECRET_ACCESS_KEY: 's', REGION: 'eu', EMPTY_TOKEN: '' },
      }),
    ).toEqual({
      url: 'https://x',
      headers: { authorization: SECRET_MASK, 'X-API-KEY': SECRET_MASK, 'X-Request-Id': 'r' },
      env: { SLACK_BOT_TOKEN: SECRET_MASK, Db_Password: SECRET_MASK, AWS_SECRET_ACCESS_KEY: SECRET_MASK, REGION: 'eu', EMPTY_TOKEN: '' },
    });
  });

  it('restores masked values from the stored config (header names case-insensitively)', () => {
    const stored = { headers: { Authorization: 'Bearer a' }, env: { TOKEN: 't' } };
    expect(restoreMasked({ headers: { authorization: SECRET_MASK }, env: { TOKEN: SECRET_MASK } }, stored)).toEqual({
      config: { headers: { authorization: 'Bearer a' }, env: { TOKEN: 't' } },
      items: [],
    });
    expect(restoreMasked({ env: { token: SECRET_MASK } }, stored).items).toEqual([
      { loc: ['body', 'config', 'env', 'token'], msg: expect.any(String), type: 'value_error' },
    ]);
  });

  it('merges a template with a config, maps by name', () => {
    expect(mergeTemplate({ command: 'npx', args: ['a'], env: { A: '1' } }, { env: { B: '2' } })).toEqual({ command: 'npx', args: ['a'], env: { A: '1', B: '2' } });
  });
});
