import type { McpApp } from './entities/mcp-app.entity';
import { decideStdio, StdioRequest } from './stdio-policy';

const app = { id: 'fs', transport: 'stdio', configTemplate: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${DIR}'] }, requiredConfig: ['DIR'] } as unknown as McpApp;
const base: Omit<StdioRequest, 'role' | 'sent'> = { allowedCommands: ['npx', 'node'], path: '/usr/bin:/bin' };

describe('decideStdio', () => {
  it('gives a member the app command with the required values filled in, and an env of PATH plus those values', () => {
    expect(decideStdio({ ...base, role: 'member', app, sent: { env: { DIR: '/srv/data' } } })).toEqual({
      allowed: true,
      params: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'], env: { PATH: '/usr/bin:/bin', DIR: '/srv/data' }, cwd: undefined },
    });
  });

  it.each([
    ['no app', { role: 'member', sent: { command: 'npx', args: ['-c', 'id'] } }],
    ['another command', { role: 'member', app, sent: { command: 'node', env: { DIR: '/x' } } }],
    ['other arguments', { role: 'member', app, sent: { args: ['-c', 'id'], env: { DIR: '/x' } } }],
    ['an undeclared variable', { role: 'member', app, sent: { env: { DIR: '/x', NODE_OPTIONS: '--inspect' } } }],
    ['an option smuggled into an argument', { role: 'member', app, sent: { env: { DIR: '--help' } } }],
    ['a command not on the allow-list', { role: 'admin', sent: { command: 'bash', args: ['-c', 'id'] } }],
    ['a command given by path', { role: 'admin', sent: { command: '/tmp/node' } }],
    ['LD_PRELOAD', { role: 'admin', sent: { command: 'node', env: { LD_PRELOAD: '/tmp/x.so' } } }],
    ['DYLD_INSERT_LIBRARIES', { role: 'admin', sent: { command: 'node', env: { DYLD_INSERT_LIBRARIES: '/tmp/x' } } }],
    ['npm_config_ variables', { role: 'admin', sent: { command: 'npx', env: { npm_config_script_shell: '/tmp/x' } } }],
  ] as [string, Pick<StdioRequest, 'role' | 'sent' | 'app'>][])('refuses %s', (_label, req) => {
    expect(decideStdio({ ...base, ...req }).allowed).toBe(false);
  });

  it('lets an admin run an allowed command with free arguments', () => {
    expect(decideStdio({ ...base, role: 'admin', sent: { command: 'node', args: ['server.js'], env: { API_TOKEN: 't' } } })).toEqual({
      allowed: true,
      params: { command: 'node', args: ['server.js'], env: { PATH: '/usr/bin:/bin', API_TOKEN: 't' }, cwd: undefined },
    });
  });
});
