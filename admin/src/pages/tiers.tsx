// Tiers and the rate-limit rules of each (and of `none`: logged-in users without a tier).
import { useState } from 'preact/hooks'

import type { RateLimitRule, Tier } from '../api.js'
import { call, client } from '../api.js'
import { ActionButton, ActionForm, Confirmed, Loading, TableFrame, useLoad } from '../components.js'

type TierKey = number | 'none'

function RuleRow({ tierId, rule, onChanged }: { tierId: TierKey; rule: RateLimitRule; onChanged: () => void }) {
  const [limit, setLimit] = useState(String(rule.limit))
  const [period, setPeriod] = useState(String(rule.period_seconds))
  const path = { params: { path: { tier_id: tierId, rate_limit_id: rule.id } } }
  const changed = Number(limit) !== rule.limit || Number(period) !== rule.period_seconds
  return (
    <tr>
      <td>
        <code>{rule.route}</code>
      </td>
      <td>
        <label class="visually-hidden" for={`limit-${rule.id}`}>
          Limit of {rule.route}
        </label>
        <input id={`limit-${rule.id}`} class="narrow" type="number" min={1} value={limit} onInput={(event) => setLimit(event.currentTarget.value)} />
      </td>
      <td>
        <label class="visually-hidden" for={`period-${rule.id}`}>
          Period in seconds of {rule.route}
        </label>
        <input id={`period-${rule.id}`} class="narrow" type="number" min={1} value={period} onInput={(event) => setPeriod(event.currentTarget.value)} />
      </td>
      <td class="row-actions">
        <ActionButton
          label="Save"
          disabled={!changed}
          run={() => call(() => client.PATCH('/api/v2/tiers/{tier_id}/rate-limits/{rate_limit_id}', { ...path, body: { limit: Number(limit), period_seconds: Number(period) } }))}
          onDone={onChanged}
        />
        <ActionButton label="Remove" kind="danger" run={() => call(() => client.DELETE('/api/v2/tiers/{tier_id}/rate-limits/{rate_limit_id}', path))} onDone={onChanged} />
      </td>
    </tr>
  )
}

function Rules({ tierId, name }: { tierId: TierKey; name: string }) {
  const path = { params: { path: { tier_id: tierId } } }
  const loaded = useLoad(() => call(() => client.GET('/api/v2/tiers/{tier_id}/rate-limits', path)), `rules-${tierId}`)
  const [rule, setRule] = useState({ route: '', limit: '', period: '60' })
  return (
    <>
      <Loading loaded={loaded}>
        {(rules) =>
          rules.length === 0 ? (
            <p class="muted">No rules: DEFAULT_RATE_LIMIT applies.</p>
          ) : (
            <TableFrame label={`Rate limits of ${name}`}>
              <thead>
                <tr>
                  <th scope="col">Route</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Per seconds</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rules.map((existing) => (
                  <RuleRow key={`${existing.id}-${existing.updated_at}`} tierId={tierId} rule={existing} onChanged={loaded.reload} />
                ))}
              </tbody>
            </TableFrame>
          )
        }
      </Loading>
      <ActionForm
        label="Add rule"
        run={() =>
          call(() => client.POST('/api/v2/tiers/{tier_id}/rate-limits', { ...path, body: { route: rule.route.trim(), limit: Number(rule.limit), period_seconds: Number(rule.period) } }))
        }
        onDone={() => {
          setRule({ route: '', limit: '', period: '60' })
          loaded.reload()
        }}
      >
        <div class="grid-fields">
          <p>
            <label for={`rule-route-${tierId}`}>Route</label>
            <input id={`rule-route-${tierId}`} required placeholder="GET /api/v2/users/{user_id}, * /api/v2/posts/* or *" value={rule.route} onInput={(event) => setRule({ ...rule, route: event.currentTarget.value })} />
          </p>
          <p>
            <label for={`rule-limit-${tierId}`}>Requests</label>
            <input id={`rule-limit-${tierId}`} required type="number" min={1} value={rule.limit} onInput={(event) => setRule({ ...rule, limit: event.currentTarget.value })} />
          </p>
          <p>
            <label for={`rule-period-${tierId}`}>Per seconds</label>
            <input id={`rule-period-${tierId}`} required type="number" min={1} value={rule.period} onInput={(event) => setRule({ ...rule, period: event.currentTarget.value })} />
          </p>
        </div>
      </ActionForm>
    </>
  )
}

function TierSection({ tier, onDeleted }: { tier: Tier; onDeleted: () => void }) {
  return (
    <section class="tier">
      <h2>{tier.name}</h2>
      <Rules tierId={tier.id} name={tier.name} />
      <Confirmed
        label={`Delete tier ${tier.name}`}
        question={`Delete the tier ${tier.name}? Its users fall back to no tier, and its rules go with it.`}
        run={() => call(() => client.DELETE('/api/v2/tiers/{tier_id}', { params: { path: { tier_id: tier.id } } }))}
        onDone={onDeleted}
      />
    </section>
  )
}

export function Tiers() {
  const loaded = useLoad(() => call(() => client.GET('/api/v2/tiers')), 'tiers')
  const [name, setName] = useState('')
  return (
    <>
      <h1>Tiers and rate limits</h1>
      <p class="muted">
        A rule's route is a route template with its method, a prefix ending in <code>*</code>, or <code>*</code>; the most specific rule wins. Changes apply in every process within two seconds.
      </p>
      <ActionForm
        label="Create tier"
        run={() => call(() => client.POST('/api/v2/tiers', { body: { name: name.trim() } }))}
        onDone={() => {
          setName('')
          loaded.reload()
        }}
      >
        <p>
          <label for="tier-name">New tier name</label>
          <input id="tier-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </p>
      </ActionForm>
      <section class="tier">
        <h2>No tier</h2>
        <p class="muted">Logged-in users without a tier.</p>
        <Rules tierId="none" name="users without a tier" />
      </section>
      <Loading loaded={loaded}>{(tiers) => tiers.map((tier) => <TierSection key={tier.id} tier={tier} onDeleted={loaded.reload} />)}</Loading>
    </>
  )
}
