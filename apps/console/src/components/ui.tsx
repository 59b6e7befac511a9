import { type ReactNode, useEffect, useRef } from 'react';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // A route change moves focus to the new page's heading, so screen readers announce it.
  useEffect(() => {
    document.title = `${title} · Docflow`;
    ref.current?.focus();
  }, [title]);
  return (
    <div className="page-header">
      <h1 tabIndex={-1} ref={ref}>
        {title}
      </h1>
      {children ? <div className="actions">{children}</div> : null}
    </div>
  );
}

export function ErrorMessage({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

const STATUS_TEXT: Record<string, string> = { awaiting_user_input: 'awaiting input' };

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{STATUS_TEXT[status] ?? status}</span>;
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {value === undefined || value === null ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** Copies text and says so in a live region. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const status = useRef<HTMLSpanElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      if (status.current) status.current.textContent = 'Copied';
    } catch {
      if (status.current) status.current.textContent = 'Copy failed: select the text and copy it';
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" ref={status} className="muted" />
    </>
  );
}

/** A table's column headers. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** An on/off button announced as a switch with its state. */
export function Switch({ checked, label, onToggle, on = 'On', off = 'Off' }: { checked: boolean; label: string; onToggle: () => void; on?: string; off?: string }) {
  return (
    <button type="button" role="switch" className="switch" aria-checked={checked} aria-label={label} onClick={onToggle}>
      {checked ? on : off}
    </button>
  );
}
