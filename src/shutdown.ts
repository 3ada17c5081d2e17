/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000
