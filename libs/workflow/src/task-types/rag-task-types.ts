import type { TaskTypeDefinition } from './task-type';
import { flag, idValue, objectSchema, templatable } from './schema-fragments';

const userId = idValue('Owner of the documents; defaults to the execution user');

export const ragEnableTask: TaskTypeDefinition = {
  id: 'rag_enable_task',
  name: 'Enable RAG on document',
  category: 'AI Operations',
  description: 'Indexes a document for retrieval-augmented question answering.',
  icon: 'database',
  processor: 'rest_api',
  config_schema: objectSchema(
    {
      body: objectSchema(
        {
          document_id: idValue('Document to index'),
          user_id: userId,
          force_reprocess: flag('Re-index even when the document is already indexed', false),
        },
        ['document_id'],
      ),
    },
    ['body'],
  ),
  input_schema: objectSchema({}),
  output_schema: objectSchema({
    rag_status: { type: 'string' },
    rag_job_id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  }),
};

export const ragQueryTask: TaskTypeDefinition = {
  id: 'rag_query_task',
  name: 'Ask indexed documents',
  category: 'AI Operations',
  description: 'Answers a question from the RAG-indexed documents of a user, with sources.',
  icon: 'message-square-text',
  processor: 'rest_api',
  config_schema: objectSchema(
    {
      body: objectSchema(
        {
          query: { type: 'string', minLength: 1, description: 'The question; may hold {{templates}}' },
          user_id: userId,
          top_k: templatable({ type: 'integer', minimum: 1 }, { default: 5, description: 'Number of passages to retrieve' }),
        },
        ['query'],
      ),
    },
    ['body'],
  ),
  input_schema: objectSchema({}),
  output_schema: objectSchema({
    answer: { type: 'string' },
    sources: {
      type: 'array',
      items: objectSchema({
        document_id: { type: 'integer' },
        document_name: { type: 'string' },
        snippet: { type: 'string' },
        score: { type: 'number' },
      }),
    },
    session_id: { type: 'string' },
  }),
};
