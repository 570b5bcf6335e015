import type { ValidationItem, ValidationLocation } from './errors';

/** Deeper input overflows class-transformer's recursion (a 500); no request of this API needs more. */
export const MAX_INPUT_DEPTH = 64;

/**
 * Problems class-validator cannot see, found in one iterative, linear pass (a
 * location is built only for a hit; a body may nest hundreds of thousands deep):
 * - nesting deeper than MAX_INPUT_DEPTH;
 * - U+0000 in a string or member name: PostgreSQL cannot store it in text or
 *   jsonb (the insert fails with an encoding error, a 500);
 * - in a body, members named like Object.prototype's (`constructor`,
 *   `__proto__`, `toString`, `valueOf`, ...): JSON.parse keeps them as own
 *   properties, class-transformer drops them silently (so at the top level
 *   they are reported as unknown, and nested ones would vanish from free-form
 *   objects) and a nested `constructor` makes it throw (a 500).
 * `unsafe`: the input must not reach class-transformer at all.
 */
const RESERVED_MEMBERS = Object.getOwnPropertyNames(Object.prototype);

export function inputProblems(value: unknown, location: ValidationLocation): { items: ValidationItem[]; unsafe: boolean } {
  const prefix = [location];
  type Node = { key: string | number; parent?: Node; depth: number };
  const locOf = (node: Node | undefined): (string | number)[] => {
    const keys: (string | number)[] = [];
    for (let n = node; n; n = n.parent) keys.push(n.key);
    return [...prefix, ...keys.reverse()];
  };
  const items: ValidationItem[] = [];
  let unsafe = false;
  const stack: [unknown, Node | undefined][] = [[value, undefined]];
  while (stack.length > 0) {
    const [current, node] = stack.pop()!;
    const depth = node?.depth ?? 0;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) items.push({ loc: locOf(node), msg: 'String should not contain NUL characters', type: 'value_error' });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      unsafe = true;
      items.push({ loc: locOf(node), msg: `Input should not be nested more than ${MAX_INPUT_DEPTH} levels deep`, type: 'value_error' });
      continue;
    }
    if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push([item, { key: i, parent: node, depth: depth + 1 }]));
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      const child = { key, parent: node, depth: depth + 1 };
      if (location === 'body' && RESERVED_MEMBERS.includes(key)) {
        if (node) unsafe = true;
        items.push(
          node
            ? { loc: locOf(child), msg: `Member name "${key}" is not allowed`, type: 'value_error' }
            : { loc: locOf(child), msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        );
      } else if (key.includes('\u0000')) items.push({ loc: locOf(child), msg: 'Member names should not contain NUL characters', type: 'value_error' });
      stack.push([item, child]);
    }
  }
  return { items: items.reverse(), unsafe };
}
