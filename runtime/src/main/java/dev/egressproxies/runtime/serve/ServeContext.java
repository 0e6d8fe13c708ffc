package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.apply.PlanExecutor;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every entry's reconciler shares.
 *
 * @param executor    carries out one plan step (apply's executor)
 * @param operations  runs the steps, one per proxy and a bounded number per host at a time
 * @param status      the proxies' views
 * @param metrics     the Prometheus metrics
 * @param log         the action log
 * @param clock       the time
 * @param backoff     the wait after failures
 * @param listBudget  how long listing one zone may take before it counts as down
 * @param authority   whether this process may act on an entry
 * @param timer       runs the passes, at their scheduled times
 * @param listing     lists the zones of a pass concurrently
 */
record ServeContext(PlanExecutor executor, OperationQueue operations, FleetStatus status, ServeMetrics metrics,
                    ActionLog log, Clock clock, Backoff backoff, Duration listBudget, EntryAuthority authority,
                    ScheduledExecutorService timer, ExecutorService listing) {
}
