// A warning about a setting that refused something (a CORS origin, a passkey's origin): logged
// once per distinct value, so a misconfiguration is seen at once and a flood of refusals does
// not flood the log. At most `max` values are remembered; past them, nothing more is logged.
import type { Logger } from '../logger.js'

export class WarnOnce {
  private readonly seen = new Set<string>()

  constructor(
    private readonly logger: Logger,
    private readonly max = 1000,
  ) {}

  warn(key: string, details: Record<string, unknown>, message: string): void {
    if (this.seen.has(key) || this.seen.size >= this.max) return
    this.seen.add(key)
    this.logger.warn(details, message)
  }
}
