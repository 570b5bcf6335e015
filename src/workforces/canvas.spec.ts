import { CanvasEdge, CanvasNode, referencedAgentIds, validateForPublish } from './canvas';

const A1 = '11111111-1111-4111-8111-111111111111';
const A2 = '22222222-2222-4222-8222-222222222222';
const pos = { x: 0, y: 0 };
const agent = (id: string, agentId?: string): CanvasNode => ({
  id,
  type: 'agent',
  ...(agentId ? { agent_id: agentId } : {}),
  position: pos,
});
const coordinator = (id: string): CanvasNode => ({ id, type: 'coordinator', position: pos });
const edge = (id: string, source: string, target: string): CanvasEdge => ({ id, source, target });
const known = (id: string) => id === A1 || id === A2;

describe('validateForPublish', () => {
  it('accepts a coordinator wired to agents', () => {
    const nodes = [coordinator('c'), agent('a', A1), agent('b', A2)];
    expect(validateForPublish({ nodes, edges: [edge('e1', 'c', 'a'), edge('e2', 'c', 'b'), edge('e3', 'a', 'b')] }, known)).toEqual([]);
  });

  it('accepts a single agent without coordinator or edges, and opposite edges between two nodes', () => {
    expect(validateForPublish({ nodes: [agent('a', A1)], edges: [] }, known)).toEqual([]);
    const nodes = [agent('a', A1), agent('b', A2)];
    expect(validateForPublish({ nodes, edges: [edge('e1', 'a', 'b'), edge('e2', 'b', 'a')] }, known)).toEqual([]);
  });

  it('needs at least one agent node', () => {
    expect(validateForPublish({ nodes: [], edges: [] }, known)).toEqual([
      { loc: ['canvas', 'nodes'], msg: 'A workforce needs at least one agent node', type: 'value_error' },
    ]);
    expect(validateForPublish({ nodes: [coordinator('c')], edges: [] }, known)).toHaveLength(1);
  });

  it('reports duplicate node and edge ids at the later index', () => {
    const nodes = [agent('a', A1), agent('a', A2)];
    expect(validateForPublish({ nodes, edges: [edge('e', 'a', 'a2'), edge('e', 'a', 'a3')] }, known)).toEqual([
      { loc: ['canvas', 'nodes', 1, 'id'], msg: 'Duplicate node id "a"', type: 'value_error' },
      { loc: ['canvas', 'edges', 0, 'target'], msg: 'Node "a2" does not exist', type: 'value_error' },
      { loc: ['canvas', 'edges', 1, 'id'], msg: 'Duplicate edge id "e"', type: 'value_error' },
      { loc: ['canvas', 'edges', 1, 'target'], msg: 'Node "a3" does not exist', type: 'value_error' },
    ]);
  });

  it('reports agent nodes without an agent id or with an unknown one', () => {
    const unknown = '33333333-3333-4333-8333-333333333333';
    expect(validateForPublish({ nodes: [agent('a'), agent('b', unknown), agent('c', A1)], edges: [] }, known)).toEqual([
      { loc: ['canvas', 'nodes', 0, 'agent_id'], msg: 'An agent node needs an agent_id', type: 'missing' },
      { loc: ['canvas', 'nodes', 1, 'agent_id'], msg: `Agent ${unknown} not found`, type: 'value_error' },
    ]);
  });

  it('reports self-loops, duplicate edges and a second coordinator', () => {
    const nodes = [coordinator('c1'), agent('a', A1), coordinator('c2')];
    const edges = [edge('e1', 'c1', 'a'), edge('e2', 'a', 'a'), edge('e3', 'c1', 'a')];
    expect(validateForPublish({ nodes, edges }, known)).toEqual([
      { loc: ['canvas', 'nodes', 2, 'type'], msg: 'At most one coordinator node is allowed', type: 'value_error' },
      { loc: ['canvas', 'edges', 1], msg: 'An edge cannot connect a node to itself', type: 'value_error' },
      { loc: ['canvas', 'edges', 2], msg: 'Duplicate edge from "c1" to "a"', type: 'value_error' },
    ]);
  });

  it('does not confuse node ids that contain separators when detecting duplicate edges', () => {
    const nodes = [agent('a', A1), agent('a:b', A2), agent('b', A1), agent('b:a', A2)];
    expect(validateForPublish({ nodes, edges: [edge('e1', 'a:b', 'a'), edge('e2', 'a', 'b:a')] }, known)).toEqual([]);
  });
});

describe('referencedAgentIds', () => {
  it('lists each agent id once, in order of first use, ignoring coordinators', () => {
    expect(referencedAgentIds([agent('x', A2), coordinator('c'), agent('y', A1), agent('z', A2), agent('w')])).toEqual([A2, A1]);
  });
});
