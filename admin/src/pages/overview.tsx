// Counts, the last week's sign-ups and logins as a bar chart (with the numbers in a table for
// screen readers and for reading off), and whether the database and Redis answer.
import type { Overview as OverviewData } from '../api.js'
import { call, client } from '../api.js'
import { Loading, TableFrame, useLoad } from '../components.js'

const STATUS_TEXT = { ok: 'Reachable', unavailable: 'Not answering', not_configured: 'Not configured' } as const

type Day = OverviewData['days'][number]

/** One row a day (UTC), one column per count: the chart's numbers, and the abuse refused. */
function PerDayTable({ label, days, columns }: { label: string; days: Day[]; columns: [string, Exclude<keyof Day, 'day'>][] }) {
  return (
    <TableFrame label={label}>
      <thead>
        <tr>
          <th scope="col">Day (UTC)</th>
          {columns.map(([heading]) => (
            <th key={heading} scope="col">
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {days.map((day) => (
          <tr key={day.day}>
            <td>{day.day}</td>
            {columns.map(([heading, count]) => (
              <td key={heading}>{day[count]}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </TableFrame>
  )
}

function ActivityChart({ days }: { days: OverviewData['days'] }) {
  const width = 560
  const height = 200
  const top = 16
  const bottom = 28
  const left = 36
  const most = Math.max(1, ...days.flatMap((day) => [day.sign_ups, day.logins]))
  const slot = (width - left) / days.length
  const bar = Math.min(24, slot / 3)
  const y = (count: number) => height - bottom - (count / most) * (height - top - bottom)
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title">
      <title id="chart-title">Sign-ups and logins per day over the last 7 days</title>
      <line x1={left} y1={height - bottom} x2={width} y2={height - bottom} class="axis" />
      <text x={left - 6} y={y(most) + 4} class="tick" text-anchor="end">
        {most}
      </text>
      <text x={left - 6} y={height - bottom + 4} class="tick" text-anchor="end">
        0
      </text>
      {days.map((day, index) => {
        const x = left + index * slot + slot / 2
        return (
          <g key={day.day}>
            <rect x={x - bar - 1} y={y(day.sign_ups)} width={bar} height={height - bottom - y(day.sign_ups)} class="bar-sign-ups" />
            <rect x={x + 1} y={y(day.logins)} width={bar} height={height - bottom - y(day.logins)} class="bar-logins" />
            <text x={x} y={height - 8} class="tick" text-anchor="middle">
              {day.day.slice(5)}
            </text>
          </g>
        )
      })}
    </svg>
  )
}

export function Overview() {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/admin/overview')), 'overview')
  return (
    <>
      <h1>Overview</h1>
      <Loading loaded={loaded}>
        {(overview) => (
          <>
            <ul class="cards">
              <li>
                <span class="card-label">Users</span>
                <strong>{overview.users.toLocaleString()}</strong>
              </li>
              <li>
                <span class="card-label">Posts</span>
                <strong>{overview.posts.toLocaleString()}</strong>
              </li>
              <li>
                <span class="card-label">Database ({overview.database.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'})</span>
                <strong class={`status-${overview.database.status}`}>{STATUS_TEXT[overview.database.status]}</strong>
              </li>
              <li>
                <span class="card-label">Redis</span>
                <strong class={`status-${overview.redis}`}>{STATUS_TEXT[overview.redis]}</strong>
              </li>
            </ul>
            <section>
              <h2>Last 7 days</h2>
              <p class="legend">
                <span class="swatch bar-sign-ups" aria-hidden="true" /> Sign-ups <span class="swatch bar-logins" aria-hidden="true" /> Logins
              </p>
              <ActivityChart days={overview.days} />
              <PerDayTable label="Sign-ups and logins per day" days={overview.days} columns={[['Sign-ups', 'sign_ups'], ['Logins', 'logins']]} />
            </section>
            <section>
              <h2>Abuse refused, last 7 days</h2>
              <PerDayTable
                label="Abuse refused per day"
                days={overview.days}
                columns={[['CAPTCHA failures', 'captcha_failures'], ['Breached passwords', 'breached_passwords'], ['Blocked address domains', 'blocked_domains']]}
              />
            </section>
          </>
        )}
      </Loading>
    </>
  )
}
