import type { WorkflowDefinition } from '@docflow/workflow';
import { ActivityDefinitionCache, type CheckedActivityDefinition } from './activity-definitions';

function entry(activityId: number, version = '100'): CheckedActivityDefinition {
  const definition = { nodes: [], edges: [], input_schema: { type: 'object' } } as unknown as WorkflowDefinition;
  return { activityId, version, level: 'user', ownerId: 7, definition, definitionJson: JSON.stringify(definition) };
}

describe('ActivityDefinitionCache', () => {
  it('answers an entry until it is dropped, replaced or a minute old', () => {
    let now = 1_000;
    const cache = new ActivityDefinitionCache(() => now);
    cache.set(entry(1));
    expect(cache.get(1)?.version).toBe('100');
    cache.set(entry(1, '200'));
    expect(cache.get(1)?.version).toBe('200');
    cache.drop(1);
    expect(cache.get(1)).toBeUndefined();
    cache.set(entry(2));
    now += 59_999;
    expect(cache.get(2)?.version).toBe('100');
    now += 1;
    expect(cache.get(2)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most 1000 entries, dropping the oldest first', () => {
    const cache = new ActivityDefinitionCache(() => 0);
    for (let id = 1; id <= 1001; id += 1) cache.set(entry(id));
    expect(cache.size).toBe(1000);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(2)?.activityId).toBe(2);
    expect(cache.get(1001)?.activityId).toBe(1001);
  });
});
