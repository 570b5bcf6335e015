import request from 'supertest';
import type { TestApp, TestUser } from '../setup/test-app';

export interface AgentBody {
  id: string;
  name: string;
  description: string;
  instructions: string;
  model: string;
  mcp_server_ids: number[];
  created_at: string;
  updated_at: string;
}

let counter = 0;

/** An agent of `user`, made through the API. */
export async function createAgent(t: TestApp, user: TestUser, body: Record<string, unknown> = {}): Promise<AgentBody> {
  const res = await request(t.http)
    .post('/api/agents')
    .set('Authorization', user.auth)
    .send({ name: `agent-${++counter}`, ...body });
  if (res.status !== 201) throw new Error(`createAgent: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as AgentBody;
}

/** A workforce of `user` with `canvas` as its draft (revision 1), made through the API. */
export async function createWorkforce(
  t: TestApp,
  user: TestUser,
  canvas?: { nodes: unknown[]; edges: unknown[] },
): Promise<{ id: string }> {
  const res = await request(t.http)
    .post('/api/workforces')
    .set('Authorization', user.auth)
    .send({ name: `workforce-${++counter}`, ...(canvas ? { canvas } : {}) });
  if (res.status !== 201) throw new Error(`createWorkforce: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string };
}

/** A valid canvas: a coordinator wired to one node per agent. */
export function teamCanvas(agentIds: string[]): { nodes: unknown[]; edges: unknown[] } {
  return {
    nodes: [
      { id: 'lead', type: 'coordinator', position: { x: 0, y: 0 } },
      ...agentIds.map((agentId, i) => ({ id: `a${i}`, type: 'agent', agent_id: agentId, position: { x: 200, y: i * 100 } })),
    ],
    edges: agentIds.map((_, i) => ({ id: `e${i}`, source: 'lead', target: `a${i}` })),
  };
}
