export interface Bar {
  label: string;
  value: number;
}

/** A plain SVG bar chart with its numbers also in a table for screen readers and keyboard users. */
export function BarChart({ title, bars, format = (v) => String(v), max }: { title: string; bars: Bar[]; format?: (v: number) => string; max?: number }) {
  const width = 640;
  const height = 220;
  const top = Math.max(max ?? 0, ...bars.map((b) => b.value), 1);
  const slot = bars.length ? (width - 40) / bars.length : width;
  return (
    <figure>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${format(b.value)}`).join(', ') || 'no data'}`}>
        <line x1={30} y1={height - 30} x2={width} y2={height - 30} stroke="#6b7280" />
        {bars.map((b, i) => {
          const h = ((height - 50) * b.value) / top;
          const x = 35 + i * slot;
          return (
            <g key={b.label}>
              <rect x={x} y={height - 30 - h} width={Math.max(4, slot - 8)} height={h} fill="#1d4ed8">
                <title>{`${b.label}: ${format(b.value)}`}</title>
              </rect>
              <text x={x + slot / 2 - 4} y={height - 30 - h - 4} textAnchor="middle">
                {format(b.value)}
              </text>
              <text x={x + slot / 2 - 4} y={height - 12} textAnchor="middle">
                {b.label.length > 12 ? `${b.label.slice(0, 11)}…` : b.label}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <details>
          <summary>{title} as a table</summary>
          <table>
            <tbody>
              {bars.map((b) => (
                <tr key={b.label}>
                  <th scope="row">{b.label}</th>
                  <td>{format(b.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
