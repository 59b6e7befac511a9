import { type DragEvent, type FormEvent, useEffect, useState } from 'react';
import { ErrorMessage, Loading, PageHeader, Section, TableHead, Switch } from '../components/ui';
import { api, errorText, listQuery, uploadWithProgress } from '../lib/api';
import { formatBytes, formatDate } from '../lib/format';
import type { ListBody } from '../lib/types';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Doc {
  id: number;
  title: string;
  mimeType?: string;
  mime_type?: string;
  fileSize?: number;
  file_size?: number;
  tags?: string[];
  ragEnabled: boolean;
  ragStatus: string;
  rag_processing_status?: string | null;
  rag_chunk_count?: number;
  createdAt?: string;
}

interface Upload {
  name: string;
  progress: number;
  error?: string;
  done?: boolean;
}

interface RagAnswer {
  answer: string;
  sources: { document_id: number; chunk_text: string; score: number }[];
}

const mimeOf = (d: Doc) => d.mimeType ?? d.mime_type ?? '';

/** Documents: upload several files with progress (drag and drop or picker), list with filters, preview, download, RAG on/off, and questions over them. */
export default function Documents() {
  const [title, setTitle] = useState('');
  const [type, setType] = useState('');
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const [preview, setPreview] = useState<{ doc: Doc; url: string; text?: string }>();
  const [error, setError] = useState<string>();
  const anyIndexing = (d: Doc[]) => d.some((x) => ['queued', 'processing'].includes(x.rag_processing_status ?? '') || x.ragStatus === 'processing');
  const docs = useData(
    (signal) =>
      api.get<ListBody<Doc>>(`/documents${listQuery({ 'pagination[pageSize]': 100, sort: 'createdAt:desc', 'filters[title][$contains]': title, 'filters[mimeType][$contains]': type })}`, { signal }),
    [title, type],
    3000,
    (b) => anyIndexing(b.data),
  );

  const upload = async (files: FileList | File[]) => {
    const list = [...files];
    setUploads(list.map((f) => ({ name: f.name, progress: 0 })));
    await Promise.all(
      list.map(async (file, i) => {
        const form = new FormData();
        form.append('file', file);
        form.append('title', file.name.replace(/\.[^.]+$/, ''));
        const set = (patch: Partial<Upload>) => setUploads((u) => u.map((x, j) => (j === i ? { ...x, ...patch } : x)));
        try {
          await uploadWithProgress('/documents/upload', form, (p) => set({ progress: p }));
          set({ done: true, progress: 1 });
        } catch (err) {
          set({ error: errorText(err) });
        }
      }),
    );
    docs.reload();
  };

  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (e.dataTransfer.files.length) void upload(e.dataTransfer.files);
  };

  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setError(undefined);
      docs.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };

  const toggleRag = (d: Doc) => act(() => (d.ragEnabled ? api.patch(`/documents/${d.id}/rag-status`, { ragEnabled: false, ragStatus: 'disabled' }) : api.post(`/documents/${d.id}/rag-enable`)));

  const blobOf = (d: Doc) => api.get<Blob>(`/documents/${d.id}/download`, { blob: true });

  const download = (d: Doc) =>
    act(async () => {
      const url = URL.createObjectURL(await blobOf(d));
      const a = document.createElement('a');
      a.href = url;
      a.download = d.title;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });

  const showPreview = (d: Doc) =>
    act(async () => {
      const blob = await blobOf(d);
      const text = mimeOf(d).startsWith('text/') || mimeOf(d) === 'application/json' ? await blob.text() : undefined;
      setPreview((old) => {
        if (old) URL.revokeObjectURL(old.url);
        return { doc: d, url: URL.createObjectURL(blob), text };
      });
    });

  useEffect(() => () => preview && URL.revokeObjectURL(preview.url), [preview]);

  return (
    <>
      <PageHeader title="Documents" />
      <Section title="Upload">
        <div
          className={`dropzone${over ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={drop}
        >
          <p>Drop files here, or</p>
          <label htmlFor="files" className="button">
            Choose files
          </label>
          <input id="files" className="visually-hidden" type="file" multiple onChange={(e) => e.target.files && void upload(e.target.files)} />
        </div>
        <ul aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.name}>
              <label htmlFor={`up-${u.name}`}>{u.name}</label> <progress id={`up-${u.name}`} max={1} value={u.progress} />{' '}
              <span role="status">{u.error ? <span className="error">{u.error}</span> : u.done ? 'Uploaded' : `${Math.round(u.progress * 100)} %`}</span>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Your documents">
        <div className="filters" role="search" aria-label="Filter documents">
          <div>
            <label htmlFor="doc-title">Title contains</label>
            <input id="doc-title" type="search" value={title} onChange={(e) => setTitle(e.target.value)} />
          </div>
          <div>
            <label htmlFor="doc-type">Type contains</label>
            <input id="doc-type" type="search" value={type} onChange={(e) => setType(e.target.value)} placeholder="pdf, image, text…" />
          </div>
        </div>
        <ErrorMessage error={error ?? docs.error} />
        {docs.data ? (
          <table>
            <TableHead columns={['Title', 'Type', 'Size', 'Uploaded', 'RAG', 'Actions']} />
            <tbody>
              {docs.data.data.map((d) => (
                <tr key={d.id}>
                  <td>{d.title}</td>
                  <td>{mimeOf(d)}</td>
                  <td>{formatBytes(d.fileSize ?? d.file_size)}</td>
                  <td>{formatDate(d.createdAt)}</td>
                  <td>
                    <Switch checked={d.ragEnabled} label={`RAG for ${d.title}`} onToggle={() => void toggleRag(d)} /> {d.ragEnabled ? <RagStatus id={d.id} /> : null}
                  </td>
                  <td className="row">
                    <button type="button" className="secondary" onClick={() => void showPreview(d)} aria-label={`Preview ${d.title}`}>
                      Preview
                    </button>
                    <button type="button" className="secondary" onClick={() => void download(d)} aria-label={`Download ${d.title}`}>
                      Download
                    </button>
                    <button type="button" className="secondary" onClick={() => void act(() => api.del(`/documents/${d.id}`))} aria-label={`Delete ${d.title}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Loading what="documents" />
        )}
      </Section>
      {preview ? (
        <Section title={`Preview: ${preview.doc.title}`}>
          <button type="button" className="secondary" onClick={() => setPreview(undefined)}>
            Close the preview
          </button>
          {preview.text !== undefined ? (
            <pre className="json" tabIndex={0}>
              {preview.text}
            </pre>
          ) : mimeOf(preview.doc).startsWith('image/') ? (
            <img src={preview.url} alt={preview.doc.title} style={{ maxWidth: '100%' }} />
          ) : (
            <iframe src={preview.url} title={`Preview of ${preview.doc.title}`} width="100%" height="500" />
          )}
        </Section>
      ) : null}
      <CollectionsPanel docs={docs.data?.data ?? []} />
      <AskPanel />
    </>
  );
}

interface RagStatusBody {
  rag_processing_status: string | null;
  rag_chunk_count: number;
}

/** A document's indexing (spec 3.5), read every 2 s until it is over. */
function RagStatus({ id }: { id: number }) {
  const status = useData(
    (signal) => api.get<RagStatusBody>(`/documents/${id}/rag-status`, { signal }),
    [id],
    2000,
    (b) => ['queued', 'processing'].includes(b.rag_processing_status ?? ''),
  );
  const s = status.data;
  return <span data-testid={`rag-status-${id}`}>{s ? `${s.rag_processing_status ?? 'not indexed'}${s.rag_processing_status === 'completed' ? ` (${s.rag_chunk_count} chunks)` : ''}` : ''}</span>;
}

interface Collection {
  id: number;
  name: string;
  description?: string | null;
  documents?: { id: number; title: string }[];
}

/** Collections: create one, put a document in it, take it out. */
function CollectionsPanel({ docs }: { docs: Doc[] }) {
  const list = useData((signal) => api.get<{ data: Collection[] }>('/collections?populate=documents', { signal }), []);
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [doc, setDoc] = useState('');
  const action = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/collections/create-collection', { data: { name } }))) {
      setName('');
      list.reload();
    }
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post(`/collections/${target}/add-document`, { documentId: Number(doc) }))) list.reload();
  };
  return (
    <Section title="Collections">
      <ul aria-label="Your collections">
        {(list.data?.data ?? []).map((c) => (
          <li key={c.id}>
            <strong>{c.name}</strong>: {(c.documents ?? []).map((d) => d.title).join(', ') || 'empty'}{' '}
            {(c.documents ?? []).map((d) => (
              <button
                key={d.id}
                type="button"
                className="secondary"
                aria-label={`Remove ${d.title} from ${c.name}`}
                onClick={() => void action.run(() => api.post(`/collections/${c.id}/remove-document`, { documentId: d.id })).then(list.reload)}
              >
                Remove {d.title}
              </button>
            ))}
          </li>
        ))}
      </ul>
      <form className="row" onSubmit={(e) => void create(e)}>
        <label htmlFor="col-name">New collection</label>
        <input id="col-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit">Create collection</button>
      </form>
      <form className="row" onSubmit={(e) => void add(e)}>
        <label htmlFor="col-target">Collection</label>
        <select id="col-target" value={target} onChange={(e) => setTarget(e.target.value)} required>
          <option value="">—</option>
          {(list.data?.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        <label htmlFor="col-doc">Document</label>
        <select id="col-doc" value={doc} onChange={(e) => setDoc(e.target.value)} required>
          <option value="">—</option>
          {docs.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title}
            </option>
          ))}
        </select>
        <button type="submit">Add to collection</button>
      </form>
      <ErrorMessage error={action.error ?? list.error} />
    </Section>
  );
}

function AskPanel() {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<RagAnswer>();
  const action = useAction();
  const ask = async (e: FormEvent) => {
    e.preventDefault();
    await action.run(async () => setAnswer(await api.post<RagAnswer>('/rag/query', { query, top_k: 5 })));
  };
  return (
    <Section title="Ask your documents">
      <form onSubmit={(e) => void ask(e)}>
        <label htmlFor="rag-q">Question</label>
        <input id="rag-q" value={query} onChange={(e) => setQuery(e.target.value)} required />
        <button type="submit" disabled={action.busy}>
          Ask
        </button>
      </form>
      <ErrorMessage error={action.error} />
      {answer ? (
        <div aria-live="polite">
          <h3>Answer</h3>
          <p data-testid="rag-answer">{answer.answer}</p>
          <h3>Sources</h3>
          <ol>
            {answer.sources.map((s, i) => (
              <li key={i}>
                Document {s.document_id} (score {s.score.toFixed(2)}): <q>{s.chunk_text.slice(0, 240)}</q>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </Section>
  );
}
