/**
 * Strongly connected components (Tarjan, iterative so deep graphs cannot
 * overflow the stack). Returns the components that form cycles: more than
 * one node, or one node with an edge to itself. Node order follows `nodes`.
 */
export function findCycles(nodes: readonly string[], edges: ReadonlyArray<{ source: string; target: string }>): string[][] {
  const successors = new Map<string, string[]>(nodes.map((id) => [id, []]));
  const selfLoops = new Set<string>();
  for (const { source, target } of edges) {
    successors.get(source)?.push(target);
    if (source === target) selfLoops.add(source);
  }

  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter);
    counter += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const targets = successors.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next] as string;
        frame.next += 1;
        if (!index.has(target)) {
          index.set(target, counter);
          lowLink.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node) as number, lowLink.get(frame.node) as number));
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || selfLoops.has(frame.node)) components.push(component);
      }
    }
  }
  const position = new Map(nodes.map((id, i) => [id, i]));
  return components
    .map((component) => component.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)))
    .sort((a, b) => (position.get(a[0] as string) ?? 0) - (position.get(b[0] as string) ?? 0));
}
