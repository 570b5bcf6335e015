import type { ValidationItem } from '../common/errors/errors';

export interface Position {
  x: number;
  y: number;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export type NodeType = 'coordinator' | 'agent';

export interface CanvasNode {
  id: string;
  type: NodeType;
  agent_id?: string;
  position: Position;
  data?: Record<string, unknown>;
}

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  data?: Record<string, unknown>;
}

export interface Canvas {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  viewport: Viewport;
}

/** Caps on a canvas (docs/notes-agents.md): enough for any hand-drawn team, small enough to validate and store cheaply. */
export const CANVAS_LIMITS = { nodes: 500, edges: 2000, idLength: 100 } as const;

export const DEFAULT_VIEWPORT: Viewport = { x: 0, y: 0, zoom: 1 };

/**
 * The publish rules of CONTRACT §9, as one 422 item per problem, all at once,
 * with `loc` paths into the stored draft (`["canvas","nodes",2,"agent_id"]`).
 * Pure: `agentExists` says whether an id is one of the caller's agents.
 * Order: the canvas-wide rule, then nodes by index, then edges by index.
 */
export function validateForPublish(canvas: Pick<Canvas, 'nodes' | 'edges'>, agentExists: (id: string) => boolean): ValidationItem[] {
  const items: ValidationItem[] = [];
  if (!canvas.nodes.some((n) => n.type === 'agent')) {
    items.push({ loc: ['canvas', 'nodes'], msg: 'A workforce needs at least one agent node', type: 'value_error' });
  }

  const nodeIds = new Set<string>();
  let coordinatorSeen = false;
  canvas.nodes.forEach((node, i) => {
    if (nodeIds.has(node.id)) items.push({ loc: ['canvas', 'nodes', i, 'id'], msg: `Duplicate node id "${node.id}"`, type: 'value_error' });
    nodeIds.add(node.id);
    if (node.type === 'coordinator') {
      if (coordinatorSeen) {
        items.push({ loc: ['canvas', 'nodes', i, 'type'], msg: 'At most one coordinator node is allowed', type: 'value_error' });
      }
      coordinatorSeen = true;
    } else if (node.agent_id === undefined) {
      items.push({ loc: ['canvas', 'nodes', i, 'agent_id'], msg: 'An agent node needs an agent_id', type: 'missing' });
    } else if (!agentExists(node.agent_id)) {
      items.push({ loc: ['canvas', 'nodes', i, 'agent_id'], msg: `Agent ${node.agent_id} not found`, type: 'value_error' });
    }
  });

  const edgeIds = new Set<string>();
  const pairs = new Set<string>();
  canvas.edges.forEach((edge, i) => {
    if (edgeIds.has(edge.id)) items.push({ loc: ['canvas', 'edges', i, 'id'], msg: `Duplicate edge id "${edge.id}"`, type: 'value_error' });
    edgeIds.add(edge.id);
    for (const end of ['source', 'target'] as const) {
      if (!nodeIds.has(edge[end]))
        items.push({ loc: ['canvas', 'edges', i, end], msg: `Node "${edge[end]}" does not exist`, type: 'value_error' });
    }
    if (edge.source === edge.target) {
      items.push({ loc: ['canvas', 'edges', i], msg: 'An edge cannot connect a node to itself', type: 'value_error' });
    }
    const pair = JSON.stringify([edge.source, edge.target]);
    if (pairs.has(pair)) {
      items.push({ loc: ['canvas', 'edges', i], msg: `Duplicate edge from "${edge.source}" to "${edge.target}"`, type: 'value_error' });
    }
    pairs.add(pair);
  });
  return items;
}

/** Agent ids the nodes reference, each once, in order of first use. */
export function referencedAgentIds(nodes: CanvasNode[]): string[] {
  return [...new Set(nodes.filter((n) => n.type === 'agent' && n.agent_id !== undefined).map((n) => n.agent_id as string))];
}
