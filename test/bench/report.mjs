// Turns the rounds into figures: medians over rounds, ratios, the issue's targets (from the
// server CPU µs per request), a console table and an SVG bar chart.

const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function summarize(rounds, servers, workloadIds) {
  const summary = {}
  for (const server of servers) {
    const mine = rounds.filter((r) => r.server === server.id)
    const entry = {
      label: server.label,
      roundsRun: mine.length,
      rssReady: median(mine.map((r) => r.rssReady)),
      rssPeak: Math.max(0, ...mine.map((r) => r.rssPeak ?? 0)) || undefined,
      info: mine[0]?.info ?? {},
      profiled: mine.some((r) => r.profile),
      workloads: {},
    }
    for (const id of workloadIds) {
      const runs = mine.flatMap((r) => r.runs.filter((run) => run.workload === id))
      if (runs.length === 0) continue
      const rps = runs.map((r) => r.rps)
      entry.workloads[id] = {
        rps: median(rps),
        rpsMin: Math.min(...rps),
        rpsMax: Math.max(...rps),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        // Per operation: per request for every workload but a batch (see data.mjs).
        cpu: median(runs.map((r) => r.cpuPerRequest / (r.operations ?? 1))),
        cpuUser: median(runs.map((r) => r.cpuUserPerRequest / (r.operations ?? 1))),
        cpuSystem: median(runs.map((r) => r.cpuSystemPerRequest / (r.operations ?? 1))),
        answered: runs.reduce((n, r) => n + r.answered, 0),
        mismatched: runs.reduce((n, r) => n + r.mismatched, 0),
        expectedStatus: runs[0].expected.status,
        absent: runs[0].expected.absent === true,
        note:
          new Set(runs.map((r) => r.expected.status)).size > 1
            ? `expected status changed between rounds (${runs.map((r) => r.expected.status).join(', ')}): the umbrella was edited during the run`
            : runs[0].expected.note,
        bytesPerResponse: runs[0].bytesPerResponse,
        rounds: runs.length,
      }
    }
    summary[server.id] = entry
  }
  for (const entry of Object.values(summary)) {
    for (const [id, w] of Object.entries(entry.workloads)) {
      const base = (serverId) => summary[serverId]?.workloads[id]?.rps
      w.vsFastify = base('fastify') ? w.rps / base('fastify') : undefined
      w.vsNode = base('node') ? w.rps / base('node') : undefined
      const baseCpu = summary.fastify?.workloads[id]?.cpu
      w.cpuOverFastify = baseCpu !== undefined && w.cpu !== undefined ? w.cpu - baseCpu : undefined
    }
  }
  return summary
}

/** Floating-point slack for a verdict: a figure exactly on the line passes. */
const EPSILON = 1e-9

/** A side's figure can be judged: it ran, answered only the expected status, and has a CPU figure. */
const valid = (w) => w !== undefined && w.mismatched === 0 && Number.isFinite(w.cpu) && w.cpu > 0

/** The workloads on which restwell and the official plugins do the same work (target 2). */
export const LIKE_FOR_LIKE_OFFICIAL = [
  'get1k',
  'get1k-hashed',
  'get1k-hashed-304',
  'page-gzip',
  'page-304',
  'patch',
]

/** The workload a route opted out of everything is compared with bare Fastify on (target 3). */
export const OPT_OUT_WORKLOAD = 'get1k'

/**
 * restwell (all on) against another stack, from the median server CPU µs per request: on each
 * workload both ran (of `only`, when given), the other stack's CPU divided by restwell's (1.2x:
 * the other spends 1.2 times what restwell spends on a request). The value is the lowest
 * ratio, `workload` where it is; the target passes only when every workload does.
 */
function cpuRatioTarget({ id, text, threshold, summary, other, only }) {
  const wanted = `>= ${threshold}x`
  const base = { id, text, threshold, wanted, unit: 'x' }
  const mine = summary.restwell?.workloads ?? {}
  const theirs = summary[other]?.workloads ?? {}
  // A workload the other stack has no endpoint for (a batch: 404) is not a comparison.
  const ids = Object.keys(mine).filter(
    (w) =>
      theirs[w] !== undefined &&
      (only === undefined || only.includes(w)) &&
      !(theirs[w].absent && !mine[w].absent),
  )
  if (ids.length === 0) {
    const which = only === undefined ? '' : ` on ${only.join(', ')}`
    return { ...base, status: 'n/a', detail: `needs restwell and ${other}${which}` }
  }
  const wrong = ids.filter((w) => !valid(mine[w]) || !valid(theirs[w]))
  if (wrong.length > 0) {
    return {
      ...base,
      status: 'invalid',
      detail: `wrong statuses answered or no CPU figure: ${wrong.join(', ')}`,
    }
  }
  const per = Object.fromEntries(ids.map((w) => [w, theirs[w].cpu / mine[w].cpu]))
  const workload = ids.reduce((low, w) => (per[w] < per[low] ? w : low))
  const value = per[workload]
  const detail = ids.map((w) => `${w} ${per[w].toFixed(2)}x`).join(', ')
  const status = ids.every((w) => per[w] >= threshold - EPSILON) ? 'pass' : 'fail'
  return { ...base, value, workload, per, status, detail }
}

/** A server's CPU µs per request over bare Fastify's on one workload, at most `threshold`. */
function cpuOverheadTarget({ id, text, threshold, summary, server, workload }) {
  const wanted = `<= +${threshold} µs`
  const base = { id, text, threshold, wanted, unit: 'µs', workload }
  const mine = summary[server]?.workloads[workload]
  const bare = summary.fastify?.workloads[workload]
  if (mine === undefined || bare === undefined) {
    return { ...base, status: 'n/a', detail: `needs ${server} and fastify on ${workload}` }
  }
  if (!valid(mine) || !valid(bare)) {
    return { ...base, status: 'invalid', detail: 'wrong statuses answered or no CPU figure' }
  }
  const value = mine.cpu - bare.cpu
  const detail = `${mine.cpu.toFixed(1)} against ${bare.cpu.toFixed(1)} µs`
  return { ...base, value, status: value <= threshold + EPSILON ? 'pass' : 'fail', detail }
}

/**
 * The issue's targets, each from the median server CPU µs per request of this one run:
 * pass / fail / n/a (a server or workload was not run; the reason given) / invalid (a side
 * answered wrong statuses).
 */
export function evaluateTargets(summary) {
  return [
    cpuRatioTarget({
      id: 'vs-node',
      text: 'restwell (all on) vs raw node:http writing the conventions by hand, every workload',
      threshold: 1,
      summary,
      other: 'node',
    }),
    cpuRatioTarget({
      id: 'vs-official',
      text: `restwell (all on) vs the official plugins by hand, like for like (${LIKE_FOR_LIKE_OFFICIAL.join(', ')})`,
      threshold: 1,
      summary,
      other: 'official',
      only: LIKE_FOR_LIKE_OFFICIAL,
    }),
    cpuRatioTarget({
      id: 'vs-special',
      text: 'restwell (all on) vs Fastify hand-specialized, every workload',
      threshold: 0.9,
      summary,
      other: 'fastify-special',
    }),
    cpuOverheadTarget({
      id: 'optout',
      text: `a route opted out of everything, over bare Fastify (${OPT_OUT_WORKLOAD})`,
      threshold: 1,
      summary,
      server: 'restwell-optout',
      workload: OPT_OUT_WORKLOAD,
    }),
    cpuRatioTarget({
      id: 'vs-express',
      text: 'restwell (all on) vs the Express 5 stack, every workload',
      threshold: 3,
      summary,
      other: 'express',
    }),
  ]
}

/** A target's figure: three decimals, so 0.998x is never shown as 1.00x next to FAIL. */
export function formatTargetValue(t) {
  if (t.value === undefined) return '-'
  if (t.unit === 'µs') return `${t.value >= 0 ? '+' : ''}${t.value.toFixed(3)} µs`
  return `${t.value.toFixed(3)}x${t.workload ? ` (${t.workload})` : ''}`
}

const fmt = {
  int: (n) => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US')),
  ratio: (n) => (n === undefined ? '-' : `${n.toFixed(2)}x`),
  ms: (n) => (n === undefined ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1)),
  us: (n) => (n === undefined ? '-' : n.toFixed(1)),
  plusUs: (n) => (n === undefined ? '-' : `${n >= 0 ? '+' : ''}${n.toFixed(1)}`),
  mb: (n) => (n === undefined ? '-' : `${(n / 1048576).toFixed(0)} MB`),
  spread: (w) =>
    w.rounds > 1 && w.rps > 0 ? `±${(((w.rpsMax - w.rpsMin) / 2 / w.rps) * 100).toFixed(0)}%` : '-',
}

const pad = (s, n) => String(s).padEnd(n)
const lpad = (s, n) => String(s).padStart(n)

/** Server CPU µs per request, user (JavaScript, Node) / system (kernel), per stack compared. */
function printCpuSplit({ summary, workloads }, log) {
  const ids = [
    'node',
    'fastify',
    'fastify-special',
    'restwell',
    'restwell-optout',
    'official',
  ].filter((id) => summary[id])
  if (ids.length === 0) return
  log(
    `\n${pad('server CPU µs per request, user / system', 38)}${ids.map((id) => lpad(id, 16)).join('')}`,
  )
  for (const workload of workloads) {
    const cells = ids.map((id) => {
      const w = summary[id].workloads[workload.id]
      return lpad(
        w?.cpuUser === undefined ? '-' : `${fmt.us(w.cpuUser)} / ${fmt.us(w.cpuSystem)}`,
        16,
      )
    })
    log(`  ${pad(workload.id, 36)}${cells.join('')}`)
  }
}

/**
 * `--ablation`: where restwell's CPU µs per request go, as a Markdown table, one row per
 * workload: bare Fastify; what an opted-out route adds to it (what no route can switch off);
 * what each convention kept alone adds to the opted-out route; what all of them on add to it;
 * all on.
 */
export function printAblation({ summary, workloads }, log) {
  const cpu = (id, workload) => summary[id]?.workloads[workload]?.cpu
  const over = (id, base, workload) => {
    const a = cpu(id, workload)
    const b = cpu(base, workload)
    return a === undefined || b === undefined ? undefined : a - b
  }
  const signed = (value) => (value === undefined ? '-' : `${value >= 0 ? '+' : ''}${fmt.us(value)}`)
  const only = Object.keys(summary).filter((id) => id.startsWith('restwell-only-'))
  const names = only.map((id) => id.slice('restwell-only-'.length))
  const head = ['bare Fastify', 'opted out', ...names, 'all on, over opted out', 'all on']
  log("\nwhere restwell's CPU µs per request go (medians of this run):\n")
  log(`| workload | ${head.join(' | ')} |`)
  log(`|---|${head.map(() => '---:').join('|')}|`)
  for (const { id: w } of workloads) {
    const cells = [
      fmt.us(cpu('fastify', w)),
      signed(over('restwell-optout', 'fastify', w)),
      ...only.map((id) => signed(over(id, 'restwell-optout', w))),
      signed(over('restwell', 'restwell-optout', w)),
      fmt.us(cpu('restwell', w)),
    ]
    log(`| ${w} | ${cells.join(' | ')} |`)
  }
}

export function printReport(report, log) {
  const { summary, workloads, servers, targets } = report
  log('')
  log(
    `${pad('workload / server', 38)}${lpad('req/s', 9)}${lpad('spread', 8)}${lpad('p50 ms', 8)}` +
      `${lpad('p99 ms', 8)}${lpad('cpu µs', 8)}${lpad('+µs', 7)}${lpad('xFastify', 10)}${lpad('xNode', 8)}` +
      `${lpad('status', 8)}${lpad('bad', 6)}  note`,
  )
  for (const workload of workloads) {
    log(`${workload.title} (${workload.id}: ${workload.method} ${workload.path})`)
    for (const server of servers) {
      const w = summary[server.id]?.workloads[workload.id]
      if (!w) {
        log(`  ${pad(server.label, 36)}  not measured`)
        continue
      }
      const note = [w.note, summary[server.id].profiled ? 'profiled: skewed' : undefined]
        .filter(Boolean)
        .join('; ')
      log(
        `  ${pad(server.label, 36)}${lpad(fmt.int(w.rps), 9)}${lpad(fmt.spread(w), 8)}` +
          `${lpad(fmt.ms(w.p50), 8)}${lpad(fmt.ms(w.p99), 8)}${lpad(fmt.us(w.cpu), 8)}` +
          `${lpad(fmt.plusUs(w.cpuOverFastify), 7)}${lpad(fmt.ratio(w.vsFastify), 10)}` +
          `${lpad(fmt.ratio(w.vsNode), 8)}${lpad(w.expectedStatus, 8)}${lpad(w.mismatched, 6)}` +
          `${note ? `  ${note}` : ''}`,
      )
    }
  }
  log('')
  log(`${pad('server memory', 38)}${lpad('RSS ready', 11)}${lpad('peak RSS', 11)}`)
  for (const server of servers) {
    const s = summary[server.id]
    if (!s) continue
    log(`  ${pad(server.label, 36)}${lpad(fmt.mb(s.rssReady), 11)}${lpad(fmt.mb(s.rssPeak), 11)}`)
  }
  const rateLimit = summary.restwell?.info?.rateLimit
  if (rateLimit) log(`\nrestwell rate limit: ${rateLimit}`)
  const features = summary.restwell?.info?.features
  if (features) {
    const missing = Object.entries(features)
      .filter(([, on]) => !on)
      .map(([f]) => f)
    if (missing.length > 0) log(`feature not yet in restwell: ${missing.join(', ')}`)
  }
  printCpuSplit(report, log)
  log('\ntargets (from the median server CPU µs per request, this run):')
  for (const t of targets) {
    const mark = t.status.toUpperCase()
    log(`  [${pad(mark, 7)}] ${t.text}`)
    log(
      `            wanted ${t.wanted}, measured ${formatTargetValue(t)}${t.detail ? `; ${t.detail}` : ''}`,
    )
  }
  log(
    `\n${report.seconds} s; load average before ${report.machine.loadAverageBefore.join(' ')}, after ${report.machine.loadAverageAfter.join(' ')}`,
  )
}

const COLORS = {
  node: '#7f8c8d',
  fastify: '#2c3e50',
  'fastify-headers': '#95a5a6',
  'fastify-special': '#8e44ad',
  restwell: '#27ae60',
  'restwell-optout': '#82e0aa',
  official: '#2980b9',
  express: '#e67e22',
}

const xmlText = (s) =>
  String(s).replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
  )

/** Horizontal bars of median req/s, one group per workload. */
export function renderSvg(report) {
  const { summary, workloads, servers } = report
  const width = 860
  const labelWidth = 250
  const barArea = width - labelWidth - 150
  const bar = 14
  const gap = 4
  const groupGap = 26
  let y = 40
  const parts = []
  for (const workload of workloads) {
    const rows = servers
      .map((s) => ({ server: s, w: summary[s.id]?.workloads[workload.id] }))
      .filter((r) => r.w)
    const max = Math.max(1, ...rows.map((r) => r.w.rps))
    parts.push(
      `<text x="10" y="${y}" font-weight="bold">${xmlText(`${workload.title} (${workload.id})`)}</text>`,
    )
    y += 8
    for (const { server, w } of rows) {
      const length = Math.max(1, (w.rps / max) * barArea)
      const flag = w.mismatched > 0 ? ' WRONG STATUS' : w.note ? ' *' : ''
      parts.push(
        `<text x="${labelWidth - 6}" y="${y + bar - 3}" text-anchor="end">${xmlText(server.label)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${bar}" fill="${COLORS[server.id] ?? '#999'}"><title>${xmlText(w.note ?? '')}</title></rect>`,
        `<text x="${(labelWidth + length + 6).toFixed(1)}" y="${y + bar - 3}">${xmlText(
          `${fmt.int(w.rps)} req/s${w.vsFastify ? ` (${fmt.ratio(w.vsFastify)})` : ''}${flag}`,
        )}</text>`,
      )
      y += bar + gap
    }
    y += groupGap
  }
  const footer = `${report.date.slice(0, 10)}, ${report.machine.cpus} CPUs, ${report.options.rounds} rounds x ${report.options.duration} s, load ${report.machine.loadAverageBefore.join(' ')}; (x) = ratio to bare Fastify; * = see note in latest.json`
  parts.push(`<text x="10" y="${y}" font-size="10">${xmlText(footer)}</text>`)
  const height = y + 16
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="14" font-weight="bold">restwell bench: median requests/s (higher is better)</text>
${parts.join('\n')}
</svg>
`
}

/** The figures as Markdown tables, for the README (written to results/latest.md). */
export function renderMarkdown(report) {
  const { summary, workloads, servers, targets } = report
  const lines = [
    `Run of ${report.date.slice(0, 16).replace('T', ' ')} UTC: ${report.options.rounds} rounds x ${report.options.duration} s (+${report.options.warmup} s warm-up), ${report.options.connections} connections, ${report.machine.cpus} CPUs (${report.machine.cpuModel}), Node ${report.machine.node}, load average ${report.machine.loadAverageBefore.join(' ')} before and ${report.machine.loadAverageAfter.join(' ')} after; ${report.seconds} s.`,
    '',
    '| workload | server | req/s (median) | spread | p50 ms | p99 ms | server CPU µs/req (user + system) | µs over bare Fastify | x bare Fastify | x raw node | status | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ]
  for (const workload of workloads) {
    for (const server of servers) {
      const w = summary[server.id]?.workloads[workload.id]
      if (!w) continue
      const bad = w.mismatched > 0 ? ` (${w.mismatched} wrong)` : ''
      lines.push(
        `| ${workload.id} | ${server.label} | ${fmt.int(w.rps)} | ${fmt.spread(w)} | ${fmt.ms(w.p50)} | ${fmt.ms(w.p99)} | ${fmt.us(w.cpu)} (${fmt.us(w.cpuUser)} + ${fmt.us(w.cpuSystem)}) | ${fmt.plusUs(w.cpuOverFastify)} | ${fmt.ratio(w.vsFastify)} | ${fmt.ratio(w.vsNode)} | ${w.expectedStatus}${bad} | ${w.note ?? ''} |`,
      )
    }
  }
  lines.push('', '| server | RSS ready | peak RSS |', '|---|---:|---:|')
  for (const server of servers) {
    const s = summary[server.id]
    if (s) lines.push(`| ${server.label} | ${fmt.mb(s.rssReady)} | ${fmt.mb(s.rssPeak)} |`)
  }
  lines.push('', '| target | wanted | measured | result |', '|---|---:|---:|---|')
  for (const t of targets) {
    lines.push(
      `| ${t.text} | ${t.wanted} | ${formatTargetValue(t)} | ${t.status.toUpperCase()}${t.detail ? ` (${t.detail})` : ''} |`,
    )
  }
  return `${lines.join('\n')}\n`
}
