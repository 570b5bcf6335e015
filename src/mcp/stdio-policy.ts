import { isDeepStrictEqual } from 'node:util';
import type { UserRole } from '../auth/entities/user.entity';
import type { McpApp } from './entities/mcp-app.entity';
import type { StdioConfig } from './mcp-config';
import type { ProcessParams } from './process-transport';

/**
 * Who may start which process for a stdio connection test (CONTRACT §7).
 *
 * An allow-listed launcher with free arguments is arbitrary code (`npx -c`,
 * `node -e`, `uvx --from <anything>`), so:
 * - an admin may run any command whose NAME is in MCP_STDIO_ALLOWED_COMMANDS
 *   (a bare name looked up on the service's PATH, never a path);
 * - a member may run only a library app: command and arguments come from the
 *   app's template, the member supplies only values of the app's
 *   `required_config` (in `config.env`), and the app's command must be on the
 *   allow-list too, so enabling stdio never silently allows a launcher the
 *   operator did not list.
 * Nobody may set variables that change how programs are found or loaded
 * (PATH, NODE_OPTIONS, LD_PRELOAD, ...): with them any allowed command
 * becomes arbitrary code.
 */

const LOADER_VARIABLE =
  /^(PATH|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|LD_\w*|DYLD_\w*|GCONV_PATH|GLIBC_TUNABLES|MALLOC_\w*|PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|PYTHONINSPECT|PYTHONUSERBASE|PERL5LIB|PERL5OPT|PERLLIB|RUBYLIB|RUBYOPT|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|IFS|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|NPM_CONFIG_\w*|UV_\w*|PIP_\w*|GIT_\w*|DOCKER_\w*)$/i;

export const isLoaderVariable = (name: string): boolean => LOADER_VARIABLE.test(name);

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type StdioDecision = { allowed: true; params: ProcessParams } | { allowed: false; message: string };

export interface StdioRequest {
  role: UserRole;
  /** The config as the caller sent it (not merged with the app's template). */
  sent: Partial<StdioConfig>;
  /** The library app named by `app_id`, if any. */
  app?: McpApp;
  allowedCommands: string[];
  /** The service's PATH, the only variable of its own the child gets. */
  path: string;
}

const deny = (message: string): StdioDecision => ({ allowed: false, message });

/** Replaces `${NAME}` in template arguments by the values of the app's required configuration. */
export function fillArgs(args: string[], app: McpApp | undefined, env: Record<string, string>): string[] {
  if (!app) return args;
  return args.map((arg) => arg.replace(PLACEHOLDER, (whole, name: string) => (app.requiredConfig.includes(name) && env[name] !== undefined ? env[name] : whole)));
}

export function decideStdio(req: StdioRequest): StdioDecision {
  const { sent, app } = req;
  let command: string;
  let args: string[];
  const env: Record<string, string> = { ...(sent.env ?? {}) };
  let cwd: string | undefined;

  if (req.role === 'admin') {
    const template = app?.transport === 'stdio' ? (app.configTemplate as Partial<StdioConfig>) : {};
    command = sent.command ?? template.command ?? '';
    args = sent.args ?? template.args ?? [];
    cwd = sent.cwd;
  } else {
    if (!app) return deny('Members may run only a library app over stdio: send its app_id');
    if (app.transport !== 'stdio') return deny(`The library app ${app.id} does not run over stdio`);
    const template = app.configTemplate as Partial<StdioConfig>;
    if (sent.command !== undefined && sent.command !== template.command) return deny(`Only the command of the library app ${app.id} may run`);
    if (sent.args !== undefined && !isDeepStrictEqual(sent.args, template.args ?? [])) return deny(`Only the arguments of the library app ${app.id} may be used`);
    if (sent.cwd !== undefined) return deny('Members may not choose the working directory');
    const foreign = Object.keys(env).filter((name) => !app.requiredConfig.includes(name));
    if (foreign.length > 0) return deny(`${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not configuration of the library app ${app.id}`);
    command = template.command ?? '';
    args = template.args ?? [];
  }

  if (command.includes('/') || command.includes('\\')) return deny('Commands run by name from the PATH, not by path');
  if (!req.allowedCommands.includes(command)) return deny(`The command ${command} is not allowed (MCP_STDIO_ALLOWED_COMMANDS)`);
  const loaders = Object.keys(env).filter(isLoaderVariable);
  if (loaders.length > 0) return deny(`Setting ${loaders.join(', ')} is not allowed: it changes which programs run or how they load`);
  if (req.role === 'member') {
    const dashed = Object.entries(env).find(([name, value]) => args.some((a) => a.includes(`\${${name}}`)) && value.startsWith('-'));
    if (dashed) return deny(`The value of ${dashed[0]} may not start with "-"`);
  }
  return { allowed: true, params: { command, args: fillArgs(args, app, env), env: { PATH: req.path, ...env }, cwd } };
}
