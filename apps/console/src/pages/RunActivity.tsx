import { type FormEvent, useState } from 'react';
import { SchemaForm, schemaDefaults } from '../components/SchemaForm';
import { ErrorMessage, Loading, PageHeader } from '../components/ui';
import { api, errorText } from '../lib/api';
import { navigate } from '../lib/router';
import type { Activity } from '../lib/types';
import { useData } from '../lib/use-data';

/** Runs a workflow with inputs from a form generated from its input_schema, then follows the execution. */
export default function RunActivity({ params }: { params: string[] }) {
  const id = Number(params[0]);
  const activity = useData((signal) => api.get<{ data: Activity }>(`/activities/${id}`, { signal }).then((b) => b.data), [id]);
  if (activity.error) return <ErrorMessage error={activity.error} />;
  if (!activity.data) return <Loading what="the workflow" />;
  return <RunForm activity={activity.data} />;
}

export function RunForm({ activity }: { activity: Activity }) {
  const schema = activity.workflow_definition.input_schema;
  const [inputs, setInputs] = useState<Record<string, unknown>>(() => schemaDefaults(schema));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const created = await api.post<{ data: { id: number } }>('/workflow-executions', { data: { activity: activity.id, inputs } });
      await api.post(`/workflow-executions/${created.data.id}/execute`, { inputs });
      navigate(`/executions/${created.data.id}`);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <>
      <PageHeader title={`Run ${activity.name}`} />
      <form className="card" onSubmit={(e) => void run(e)}>
        {schema ? (
          <SchemaForm schema={schema} value={inputs} onChange={setInputs} idPrefix="input" legend="Inputs" />
        ) : (
          <p>This workflow has no input schema: add one in the editor before running it.</p>
        )}
        <button type="submit" disabled={busy || !schema}>
          Start execution
        </button>
        <ErrorMessage error={error} />
      </form>
    </>
  );
}
