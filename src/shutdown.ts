/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000

/** How long shutdown waits for request handlers whose clients went away, before closing what they use. */
export const HANDLER_DRAIN_MS = SHUTDOWN_GRACE_MS / 2
