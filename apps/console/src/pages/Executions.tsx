import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ErrorMessage, PageHeader, StatusBadge } from '../components/ui';
import { api, errorText, listQuery } from '../lib/api';
import { formatCost, formatDate, formatSeconds } from '../lib/format';
import { Link } from '../lib/router';
import type { Activity, ExecutionSummary, ListBody } from '../lib/types';
import { useData } from '../lib/use-data';

const PAGE_SIZE = 100;
const ROW_HEIGHT = 44;
const REFRESH_MS = 3000;
const STATUSES = ['queued', 'running', 'awaiting_user_input', 'completed', 'failed', 'cancelled'];

/**
 * The caller's executions: a virtualised list over server pages of 100
 * (only the rows on screen exist in the DOM, only the pages they fall in are
 * fetched), refreshed every 3 s while visible, filterable by status and activity.
 */
export default function Executions() {
  const [status, setStatus] = useState('');
  const [activity, setActivity] = useState('');
  const [pages, setPages] = useState<Map<number, ExecutionSummary[]>>(new Map());
  const [total, setTotal] = useState<number>();
  const [error, setError] = useState<string>();
  const scroller = useRef<HTMLDivElement>(null);
  const activities = useData((signal) => api.get<ListBody<Activity>>('/activities?pagination[pageSize]=100', { signal }), []);

  const fetchPage = useCallback(
    async (page: number, signal?: AbortSignal) => {
      const body = await api.get<ListBody<ExecutionSummary>>(
        `/workflow-executions${listQuery({
          'pagination[page]': page,
          'pagination[pageSize]': PAGE_SIZE,
          'filters[status][$eq]': status,
          'filters[activity][$eq]': activity,
        })}`,
        { signal },
      );
      setPages((prev) => new Map(prev).set(page, body.data));
      setTotal(body.meta?.pagination?.total ?? body.data.length);
    },
    [status, activity],
  );

  const virtualizer = useVirtualizer({ count: total ?? 0, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const items = virtualizer.getVirtualItems();
  const firstPage = Math.floor((items[0]?.index ?? 0) / PAGE_SIZE) + 1;
  const lastPage = Math.floor((items[items.length - 1]?.index ?? 0) / PAGE_SIZE) + 1;

  // New filters: start again from the first page.
  useEffect(() => {
    setPages(new Map());
    setTotal(undefined);
    scroller.current?.scrollTo({ top: 0 });
  }, [status, activity]);

  // Fetch the pages on screen now, and again every few seconds (live updates).
  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const load = async () => {
      try {
        for (let p = firstPage; p <= lastPage; p++) await fetchPage(p, ctl.signal);
        setError(undefined);
      } catch (err) {
        if (!ctl.signal.aborted) setError(errorText(err));
      }
      if (!ctl.signal.aborted) timer = setTimeout(() => void load(), REFRESH_MS);
    };
    void load();
    return () => {
      ctl.abort();
      clearTimeout(timer);
    };
  }, [fetchPage, firstPage, lastPage]);

  const rowAt = (i: number) => pages.get(Math.floor(i / PAGE_SIZE) + 1)?.[i % PAGE_SIZE];

  return (
    <>
      <PageHeader title="Executions">
        <Link className="button" to="/activities">
          Run a workflow
        </Link>
      </PageHeader>
      <div className="filters" role="search" aria-label="Filter executions">
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-activity">Workflow</label>
          <select id="f-activity" value={activity} onChange={(e) => setActivity(e.target.value)}>
            <option value="">All workflows</option>
            {(activities.data?.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <p role="status" aria-live="polite" className="muted">
          {total === undefined ? 'Loading executions…' : `${total.toLocaleString()} execution${total === 1 ? '' : 's'}`}
        </p>
      </div>
      <ErrorMessage error={error} />
      <div className="exec-list" ref={scroller} tabIndex={0} aria-label="Executions, newest first">
        <div className="head" aria-hidden="true">
          <span>#</span>
          <span>Workflow</span>
          <span>Status</span>
          <span>Started</span>
          <span>Duration</span>
          <span>Cost</span>
        </div>
        <ul style={{ height: virtualizer.getTotalSize() }} aria-label="Executions">
          {items.map((v) => {
            const e = rowAt(v.index);
            return (
              <li key={v.key} style={{ transform: `translateY(${v.start}px)` }} aria-setsize={total} aria-posinset={v.index + 1} data-testid="execution-row">
                {e ? (
                  <>
                    <Link to={`/executions/${e.id}`} aria-label={`Execution ${e.id}, ${e.activity.name ?? 'workflow'}, ${e.status.replace(/_/g, ' ')}`}>
                      #{e.id}
                    </Link>
                    <span>{e.activity.name ?? `workflow ${e.activity.id}`}</span>
                    <span>
                      <StatusBadge status={e.status} />
                    </span>
                    <span>{formatDate(e.started_at ?? e.createdAt)}</span>
                    <span>{formatSeconds(e.duration_seconds)}</span>
                    <span>{formatCost(e.total_cost)}</span>
                  </>
                ) : (
                  <span className="muted">Loading…</span>
                )}
              </li>
            );
          })}
        </ul>
        {total === 0 ? <p className="muted">No executions yet: run a workflow from the Workflows page.</p> : null}
      </div>
    </>
  );
}
