package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A dialer that makes {@link FakeHostLink}s, records every dial, and can be told per host to hold
 * its dials until released or to fail them.
 */
final class FakeDialer implements HostDialer {
    private final Map<String, List<FakeHostLink>> links = new ConcurrentHashMap<>();
    private final Map<String, List<Deadline>> deadlines = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> dialsStarted = new ConcurrentHashMap<>();
    private final Map<String, Supplier<RuntimeException>> failures = new ConcurrentHashMap<>();

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        Deadline deadline = dial.deadline();
        String name = host.name();
        deadlines.computeIfAbsent(name, key -> new CopyOnWriteArrayList<>()).add(deadline);
        dialsStarted.computeIfAbsent(name, key -> new CountDownLatch(1)).countDown();
        CountDownLatch gate = gates.get(name);
        if (gate != null) {
            awaitUninterruptibly(gate);
        }
        Supplier<RuntimeException> failure = failures.get(name);
        if (failure != null) {
            throw failure.get();
        }
        List<FakeHostLink> made = links.computeIfAbsent(name, key -> new CopyOnWriteArrayList<>());
        FakeHostLink link = new FakeHostLink(name, made.size() + 1);
        made.add(link);
        return link;
    }

    /** Holds dials to {@code hostName} until the returned latch is counted down. */
    CountDownLatch holdDials(String hostName) {
        CountDownLatch gate = new CountDownLatch(1);
        gates.put(hostName, gate);
        return gate;
    }

    /** Lets dials to {@code hostName} through again. */
    void releaseDials(String hostName) {
        CountDownLatch gate = gates.remove(hostName);
        if (gate != null) {
            gate.countDown();
        }
    }

    /** Makes dials to {@code hostName} throw what {@code failure} makes, until {@link #succeed}. */
    void fail(String hostName, Supplier<RuntimeException> failure) {
        failures.put(hostName, failure);
    }

    void succeed(String hostName) {
        failures.remove(hostName);
    }

    /** Waits until a dial to {@code hostName} has started. */
    void awaitDialStarted(String hostName) throws InterruptedException {
        if (!dialsStarted.computeIfAbsent(hostName, key -> new CountDownLatch(1)).await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("no dial to " + hostName + " started");
        }
    }

    int dialCount(String hostName) {
        return deadlines.getOrDefault(hostName, List.of()).size();
    }

    List<Deadline> deadlines(String hostName) {
        return deadlines.getOrDefault(hostName, List.of());
    }

    List<FakeHostLink> links(String hostName) {
        return links.getOrDefault(hostName, List.of());
    }

    FakeHostLink onlyLink(String hostName) {
        List<FakeHostLink> made = links(hostName);
        if (made.size() != 1) {
            throw new AssertionError("expected one link to " + hostName + ", got " + made);
        }
        return made.get(0);
    }

    private static void awaitUninterruptibly(CountDownLatch gate) {
        boolean interrupted = false;
        while (true) {
            try {
                gate.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
