package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.runtime.apply.Drift;
import dev.egressproxies.runtime.apply.NamesSeenTwice;
import dev.egressproxies.runtime.apply.Plan;
import dev.egressproxies.runtime.apply.PlanStep;
import dev.egressproxies.runtime.apply.Planner;
import dev.egressproxies.runtime.apply.ResolvedProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reconciles one provider entry on its part of the desired set. A pass lists each zone on its own,
 * plans with {@code apply}'s {@link Planner}, and hands each proxy's step to the shared
 * {@link OperationQueue}; the steps run with {@code apply}'s executor. Passes of one entry never
 * overlap; they run when asked for (start, edit, resync, API) and when a failed proxy's backoff ends.
 *
 * <p>Safety rules, each held per pass:
 * <ul>
 *   <li>While a zone does not answer, a name not seen elsewhere may exist there: nothing is created
 *       or replaced in the entry, and those proxies show as UNKNOWN. Starts and deletes of instances
 *       seen in zones that answered go ahead.</li>
 *   <li>Deletes that would remove more than half of the managed instances are held
 *       ({@link DeletionGuard}).</li>
 *   <li>A proxy in backoff is not tried before its next attempt; one with an operation in flight is
 *       left to it.</li>
 * </ul>
 */
final class EntryReconciler {
    /** After a successful operation, a pass this soon shows its result (a booted instance's address). */
    private static final Duration FOLLOW_UP = Duration.ofSeconds(5);
    /** The zone label of a backend that lists its entry only whole. */
    static final String WHOLE_ENTRY = "*";

    private final String entry;
    private final String type;
    private final Provider provider;
    private final ServeContext context;
    private final DeletionGuard guard;
    private final Planner planner = new Planner();
    private final Map<String, HostView> hosts = new LinkedHashMap<>();
    /** The cordoned hosts as last read; guarded by {@link #hosts}. */
    private Set<String> cordoned = Set.of();
    private final Object passLock = new Object();
    /** When each proxy's last operation ended, by name: a pass that listed before then plans from stale facts. */
    private final Map<String, Long> operationEnded = new ConcurrentHashMap<>();
    private volatile List<ResolvedProxy> desired = List.of();
    private volatile int managed;
    private volatile Instant lastPass;
    private volatile boolean stopped;
    private Set<String> lastHeld = Set.of();
    private int downPasses;
    private ScheduledFuture<?> scheduled;
    private Instant scheduledAt;

    EntryReconciler(String entry, String type, Provider provider, ServeContext context, boolean confirmFirstHold) {
        this.entry = entry;
        this.type = type;
        this.provider = provider;
        this.context = context;
        this.guard = new DeletionGuard(confirmFirstHold);
    }

    /** Puts the entry's part of a new desired set in force; the next pass acts on it. */
    void desire(List<ResolvedProxy> proxies) {
        desired = List.copyOf(proxies);
    }

    /** Asks for a pass after {@code delay}; an earlier pass already asked for covers it. */
    synchronized void requestPass(Duration delay) {
        if (stopped) {
            return;
        }
        Instant at = context.clock().instant().plus(delay);
        if (scheduled != null && !scheduled.isDone() && !scheduledAt.isAfter(at)) {
            return;
        }
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        scheduledAt = at;
        scheduled = context.timer().schedule(this::runPass, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    }

    /** Stops asking for passes; operations in flight are the queue's. */
    synchronized void stop() {
        stopped = true;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /** Confirms the deletes held back now and has them carried out; returns their qualified IDs. */
    List<String> confirmDeletes() {
        List<String> confirmed = guard.confirm().stream().map(id -> entry + "/" + id).toList();
        if (!confirmed.isEmpty()) {
            context.log().event("warn", "deletes confirmed by an operator", Map.of("entry", entry,
                    "ids", String.join(",", confirmed)));
            requestPass(Duration.ZERO);
        }
        return confirmed;
    }

    /** The entry as the API shows it. */
    EntryView view() {
        List<HostView> links;
        synchronized (hosts) {
            links = List.copyOf(hosts.values());
        }
        return new EntryView(entry, type, managed, desired.size(), lastPass,
                guard.pending().stream().map(id -> entry + "/" + id).toList(), links);
    }

    private void runPass() {
        synchronized (this) {
            // This pass has begun: a pass it asks for (a backoff ending, a follow-up) must be scheduled anew.
            scheduled = null;
        }
        try {
            if (!stopped && context.authority().mayAct(entry)) {
                pass();
            }
        } catch (RuntimeException unexpected) {
            context.log().event("warn", "reconcile pass failed", Map.of("entry", entry, "error",
                    String.valueOf(unexpected)));
            requestPass(context.backoff().base());
        }
    }

    /** One pass: observe every zone, plan, and queue each proxy's step. */
    void pass() {
        synchronized (passLock) {
            Instant start = context.clock().instant();
            long observedAt = System.nanoTime();
            List<ResolvedProxy> wanted = desired;
            Map<String, List<Instance>> seen = new LinkedHashMap<>();
            List<String> down = observe(seen);
            List<Instance> known = NamesSeenTwice.recheck(provider,
                    seen.values().stream().flatMap(List::stream).toList(), deadline());
            Map<String, String> zoneOfId = new HashMap<>();
            seen.forEach((zone, instances) -> instances.forEach(instance -> zoneOfId.put(instance.id(), zone)));
            Plan plan = planner.plan(wanted, Map.of(entry, known));
            Instant now = context.clock().instant();
            Set<String> shown = describe(wanted, known, down, now);

            List<PlanStep> deletes = new ArrayList<>();
            Set<String> stepped = new HashSet<>();
            for (PlanStep step : plan.steps()) {
                stepped.add(step.name());
                switch (step.action()) {
                    case CREATE, REPLACE -> {
                        if (down.isEmpty()) {
                            dispatch(step, zoneOf(step, zoneOfId), now, observedAt);
                        } else {
                            context.status().update(entry, step.name(), view -> context.operations().busy(view.key())
                                    ? view : view.waiting(step.action(), Outcome.WAITING, waitingFor(down)));
                        }
                    }
                    case START -> dispatch(step, zoneOf(step, zoneOfId), now, observedAt);
                    case DELETE -> deletes.add(step);
                }
            }
            List<PlanStep> allowed = guard.allowed(deletes, known.size());
            Set<String> held = new HashSet<>(guard.pending());
            for (PlanStep delete : deletes) {
                if (held.contains(delete.id())) {
                    context.status().update(entry, delete.name(), view -> view.waiting(PlanStep.Action.DELETE,
                            Outcome.HELD, heldReason(deletes.size(), known.size())));
                }
            }
            if (!held.isEmpty() && !held.equals(lastHeld)) {
                context.log().event("warn", "deletes held back until an operator confirms them", Map.of("entry", entry,
                        "deletes", Integer.toString(deletes.size()), "managed", Integer.toString(known.size())));
            }
            lastHeld = held;
            allowed.forEach(delete -> dispatch(delete, zoneOf(delete, zoneOfId), now, observedAt));
            for (ResolvedProxy proxy : wanted) {
                String name = proxy.request().name();
                if (!stepped.contains(name)) {
                    context.status().update(entry, name, view -> context.operations().busy(view.key())
                            ? view : view.settled(Outcome.OK));
                }
            }
            forgetGone(shown);
            // A zone that does not answer is tried again sooner than the resync, backing off.
            downPasses = down.isEmpty() ? 0 : downPasses + 1;
            if (downPasses > 0) {
                requestPass(context.backoff().after(downPasses));
            }
            managed = known.size();
            lastPass = context.clock().instant();
            context.metrics().pass(entry, down.isEmpty(), Duration.between(start, lastPass));
            publishCounts(now);
        }
    }

    /** Lists every zone concurrently, records each one's health, and returns the zones that failed. */
    private List<String> observe(Map<String, List<Instance>> seen) {
        List<String> zones = provider.zones();
        Map<String, Future<List<Instance>>> listings = new LinkedHashMap<>();
        if (zones.isEmpty()) {
            listings.put(WHOLE_ENTRY, context.listing().submit(() -> provider.listManaged(deadline())));
        } else {
            for (String zone : zones) {
                listings.put(zone, context.listing().submit(() -> provider.listManaged(zone, deadline())));
            }
        }
        readCordons(zones);
        List<String> down = new ArrayList<>();
        for (Map.Entry<String, Future<List<Instance>>> listing : listings.entrySet()) {
            String zone = listing.getKey();
            try {
                seen.put(zone, listing.getValue().get());
                hostAnswered(zone, null);
            } catch (ExecutionException failed) {
                Throwable cause = failed.getCause();
                hostAnswered(zone, cause instanceof ProviderException provided ? provided.getMessage()
                        : String.valueOf(cause));
                down.add(zone);
            } catch (InterruptedException interrupted) {
                listing.getValue().cancel(true);
                Thread.currentThread().interrupt();
                down.add(zone);
            }
        }
        return down;
    }

    private Deadline deadline() {
        return Deadline.after(context.listBudget());
    }

    /** The cordoned hosts of an entry with several, for status; the last known ones when they cannot be read. */
    private void readCordons(List<String> zones) {
        if (zones.size() < 2) {
            return;
        }
        try {
            Set<String> now = provider.cordonedZones(deadline());
            synchronized (hosts) {
                cordoned = Set.copyOf(now);
            }
        } catch (ProviderException unreadable) {
            // The listing of the claims host reports the link; the cordons stay as last read.
        }
    }

    private void hostAnswered(String zone, String error) {
        Instant now = context.clock().instant();
        HostView before;
        HostView after;
        synchronized (hosts) {
            before = hosts.get(zone);
            boolean marked = cordoned.contains(zone);
            after = error == null ? new HostView(zone, true, now, null, null, marked)
                    : new HostView(zone, false, now, before != null && !before.up() ? before.downSince() : now, error,
                            marked);
            hosts.put(zone, after);
        }
        context.metrics().hostLink(entry, zone, after.up());
        if (before != null && before.up() != after.up() || before == null && !after.up()) {
            context.log().event(after.up() ? "info" : "warn", after.up() ? "host answers again" : "host does not answer",
                    error == null ? Map.of("entry", entry, "host", zone) : Map.of("entry", entry, "host", zone,
                            "error", error));
        }
    }

    /**
     * Updates the view of every desired or seen proxy, and returns their names. A proxy not seen
     * while a zone is down keeps what was last seen of it, as UNKNOWN.
     */
    private Set<String> describe(List<ResolvedProxy> wanted, List<Instance> known, List<String> down, Instant now) {
        Map<String, CreateRequest> requests = new LinkedHashMap<>();
        wanted.forEach(proxy -> requests.put(proxy.request().name(), proxy.request()));
        Map<String, Instance> instances = new LinkedHashMap<>();
        for (Instance instance : known) {
            CreateRequest request = requests.get(instance.name());
            Instance chosen = instances.get(instance.name());
            // Of two instances of one name, show the one the planner keeps: the one that matches.
            if (chosen == null || request != null && Drift.between(request, instance).isEmpty()) {
                instances.put(instance.name(), instance);
            }
        }
        Set<String> names = new HashSet<>(requests.keySet());
        names.addAll(instances.keySet());
        for (String name : names) {
            Instance instance = instances.get(name);
            CreateRequest request = requests.get(name);
            context.status().update(entry, name, view -> instance != null
                    ? view.seen(request, instance, ProxyState.of(instance.state()), now)
                    : view.seen(request, down.isEmpty() ? null : view.observed(),
                            down.isEmpty() ? ProxyState.ABSENT : ProxyState.UNKNOWN, now));
        }
        if (!down.isEmpty()) {
            // Instances last seen in a zone that does not answer now are still shown, as unknown.
            for (ProxyView view : context.status().ofEntry(entry)) {
                if (!names.contains(view.name()) && view.observed() != null) {
                    context.status().update(entry, view.name(), old -> old.seen(null, old.observed(), ProxyState.UNKNOWN,
                            now));
                    names.add(view.name());
                }
            }
        }
        return names;
    }

    private void forgetGone(Set<String> shown) {
        for (ProxyView view : context.status().ofEntry(entry)) {
            if (!shown.contains(view.name()) && !context.operations().busy(view.key())) {
                context.status().remove(entry, view.name());
            }
        }
    }

    private void dispatch(PlanStep step, String zone, Instant now, long observedAt) {
        ProxyView view = context.status().get(entry, step.name()).orElse(ProxyView.fresh(entry, step.name()));
        if (context.operations().busy(view.key())) {
            return;
        }
        Long ended = operationEnded.get(step.name());
        if (ended != null && ended - observedAt > 0) {
            // An operation on it ended after this pass listed: the plan may repeat it (a second create of
            // what the first made). The pass that operation asked for plans from what it left.
            return;
        }
        if (view.backingOff(now)) {
            requestPass(Duration.between(now, view.nextAttempt()));
            return;
        }
        context.operations().submit(view.key(), entry + "/" + zone, () -> execute(step));
    }

    /** Runs one step on an operation thread, and records how it went. */
    private void execute(PlanStep step) {
        String action = step.action().name().toLowerCase(Locale.ROOT);
        if (stopped || !context.authority().confirms(entry)) {
            return;
        }
        Instant begun = context.clock().instant();
        context.status().update(entry, step.name(), view -> view.started(step.action(), begun));
        try {
            runStep(step, action, begun);
        } finally {
            operationEnded.put(step.name(), System.nanoTime());
        }
    }

    private void runStep(PlanStep step, String action, Instant begun) {
        try {
            String id = context.executor().run(step);
            Instant done = context.clock().instant();
            context.status().update(entry, step.name(), view -> view.succeeded(done));
            context.log().action(entry, step.name(), id, action, Outcome.OK, Duration.between(begun, done), null);
            context.metrics().operation(entry, action, Outcome.OK, Duration.between(begun, done));
            requestPass(FOLLOW_UP);
        } catch (RuntimeException failure) {
            Instant done = context.clock().instant();
            String message = failure instanceof ProviderException provided ? provided.getMessage() : String.valueOf(failure);
            if (stopped || Thread.currentThread().isInterrupted()) {
                context.status().update(entry, step.name(), view -> view.interrupted(done));
                context.log().action(entry, step.name(), step.id(), action, Outcome.INTERRUPTED,
                        Duration.between(begun, done), message);
                context.metrics().operation(entry, action, Outcome.INTERRUPTED, Duration.between(begun, done));
                return;
            }
            ProxyView failed = context.status().update(entry, step.name(), view -> view.failed(message,
                    failure instanceof ProviderException provided ? provided.kind() : null, done,
                    done.plus(context.backoff().after(view.attempts() + 1))));
            context.log().action(entry, step.name(), step.id(), action, Outcome.FAILED, Duration.between(begun, done),
                    message);
            context.metrics().operation(entry, action, Outcome.FAILED, Duration.between(begun, done));
            requestPass(Duration.between(done, failed.nextAttempt()));
        }
    }

    private static String zoneOf(PlanStep step, Map<String, String> zoneOfId) {
        String zone = step.id().isEmpty() ? null : zoneOfId.get(step.id());
        if (zone == null && step.request() != null) {
            zone = step.request().placement().zone();
        }
        return zone == null ? "" : zone;
    }

    private static String waitingFor(List<String> down) {
        return (down.size() == 1 ? "zone " + down.get(0) + " does not answer" : "zones " + down + " do not answer")
                + ", and the name may exist there; nothing is created or replaced in this entry until every zone"
                + " answers";
    }

    private String heldReason(int deletes, int known) {
        return "held: this pass would delete " + deletes + " of the entry's " + known + " managed instances (more than"
                + " half); if that is intended, confirm with POST /v1/deletions/confirm?entry=" + entry
                + " or restart serve with --confirm-deletes " + entry + "; otherwise fix the desired set";
    }

    private void publishCounts(Instant now) {
        Map<ProxyState, Integer> counts = new EnumMap<>(ProxyState.class);
        int backingOff = 0;
        for (ProxyView view : context.status().ofEntry(entry)) {
            if (view.desired() != null) {
                counts.merge(view.state(), 1, Integer::sum);
            }
            if (view.backingOff(now)) {
                backingOff++;
            }
        }
        context.metrics().proxies(entry, counts, backingOff, guard.pending().size());
    }
}
