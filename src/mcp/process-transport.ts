import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface ProcessParams {
  command: string;
  args: string[];
  /** The WHOLE environment of the child: nothing of the service's own is added. */
  env: Record<string, string>;
  cwd?: string;
}

/**
 * The stdio transport of the connection test. The SDK's StdioClientTransport
 * always adds HOME, LOGNAME, SHELL, TERM and USER of the service to the
 * child's environment and kills only the direct child; this one gives the
 * child exactly the environment it is handed, starts it without a shell in
 * a process group of its own, and on close kills the whole group (a launcher
 * such as npx or uvx leaves the real server as a grandchild) and waits until
 * the child is reaped. Framing reuses the SDK's ReadBuffer/serializeMessage.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private exited?: Promise<unknown>;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly params: ProcessParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        shell: false,
        detached: true,
        windowsHide: true,
        // stderr may echo the child's configuration (tokens): it is dropped, never logged.
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      this.child = child;
      this.exited = once(child, 'exit').catch(() => undefined);
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => this.onclose?.());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          this.onerror?.(error as Error);
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('Not connected'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Kills the process group (SIGTERM, then SIGKILL after `graceMs`) and waits until the child is reaped. */
  async close(graceMs = 300): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const exited = this.exited!;
    const alive = () => child.exitCode === null && child.signalCode === null;
    child.stdin?.destroy();
    child.stdout?.destroy();
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // The group is gone already.
      }
    };
    if (alive()) {
      signalGroup('SIGTERM');
      await Promise.race([exited, delay(graceMs)]);
    }
    // Also after the leader exited: its children may still be in the group.
    signalGroup('SIGKILL');
    if (alive()) await Promise.race([exited, delay(2000)]);
    // A signal is delivered asynchronously: wait (bounded) until no process of the group
    // is left, so "nothing is left running" holds when the test's answer goes out.
    await groupGone(child.pid, 2000);
    this.buffer.clear();
  }
}

/** Resolves once process group `pgid` has no members (or after `timeoutMs`). */
async function groupGone(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await delay(10);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
