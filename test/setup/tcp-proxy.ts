import * as net from 'node:net';

/**
 * A TCP proxy the tests put between the service and its database, to take the
 * database "away" (existing connections cut, new ones refused) and bring it back.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private server?: net.Server;
  port = 0;

  constructor(private readonly target: net.NetConnectOpts) {}

  async start(port = 0): Promise<this> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  /** The database is gone: connections are cut and the port refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The database is back, on the same port. */
  async restore(): Promise<void> {
    if (!this.server) await this.start(this.port);
  }

  async stop(): Promise<void> {
    await this.cut();
  }
}
