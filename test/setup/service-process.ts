import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'main.js');
export const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Environment for a child process: PATH and HOME only, plus what the test gives. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env };
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Services started by this test file and still running. */
const running = new Set<ChildProcess>();

/** Kills what a failed test left running (registered for every spec file in test/setup/after-each-file.ts). */
export function killLeftoverServices(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/**
 * Starts the compiled service (`node dist/main.js`) and waits until
 * /api/health answers. When it logs at info level it picks its own port
 * (PORT=0, read back from its "Listening on" line, so no other process can
 * take the port in between); with quieter logs the port is picked here.
 */
export async function startService(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const logsListening = ['info', 'debug', 'trace', undefined].includes(env.LOG_LEVEL);
  const chosen = env.PORT ?? (logsListening ? '0' : String(await freePort()));
  const child = spawn(process.execPath, [MAIN], { env: childEnv({ HOST: '127.0.0.1', ...env, PORT: chosen }), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const port = chosen === '0' ? Number(/Listening on http:\/\/[^\s"]+:(\d+)/.exec(out)?.[1]) : Number(chosen);
    if (port) {
      const url = `http://127.0.0.1:${port}`;
      try {
        const res = await fetch(`${url}/api/health`);
        if (res.ok) return { child, port, url, output: () => out, exited };
      } catch {
        /* not answering yet */
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not become healthy:\n${out}`);
}

export function runCli(args: string[], env: Record<string, string>) {
  const res = spawnSync(process.execPath, [CLI, ...args], { env: childEnv(env), encoding: 'utf8', timeout: 120_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
