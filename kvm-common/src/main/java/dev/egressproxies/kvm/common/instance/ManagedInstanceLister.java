package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Instance;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The managed instances of one host: two listings (active, inactive), then the domains read a few at once. */
final class ManagedInstanceLister {
    private static final Logger LOG = LoggerFactory.getLogger(ManagedInstanceLister.class);

    /** How many domains of one host are read at once, below libvirtd's default of 5 requests per client. */
    static final int READERS = 4;
    static final String THREAD_PREFIX = "egress-proxies-list-";

    private ManagedInstanceLister() {
    }

    static List<Instance> listHost(LibvirtHost libvirt, HostSettings host, Call call) {
        // Two listings tell which domains are shut off, so those need no state read of their own.
        List<Domain> active = LibvirtSteps.step("listing the domains", () -> libvirt.listAllDomains(true));
        call.checkDeadline();
        List<Domain> inactive = LibvirtSteps.step("listing the domains", () -> libvirt.listAllDomains(false));
        // A domain that started or stopped between the two is in both: its state is read then.
        Set<String> activeNames = active.stream().map(Domain::name).collect(Collectors.toSet());
        List<ListedDomain> listed = new ArrayList<>();
        active.forEach(domain -> listed.add(new ListedDomain(domain, true)));
        inactive.stream().filter(domain -> !activeNames.contains(domain.name()))
                .forEach(domain -> listed.add(new ListedDomain(domain, false)));
        return readAll(libvirt, host, call, listed);
    }

    private record ListedDomain(Domain domain, boolean active) {
    }

    /** The first failure that fails the host, a passed deadline or an interrupt stops the other readers. */
    private static List<Instance> readAll(LibvirtHost libvirt, HostSettings host, Call call,
                                          List<ListedDomain> listed) {
        if (listed.isEmpty()) {
            return List.of();
        }
        Instance[] found = new Instance[listed.size()];
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int readers = Math.min(READERS, listed.size());
        ExecutorService threads = Executors.newFixedThreadPool(readers,
                HostPool.daemonThreads(THREAD_PREFIX + host.name() + "-"));
        try {
            CompletionService<Void> done = new ExecutorCompletionService<>(threads);
            for (int reader = 0; reader < readers; reader++) {
                done.submit(() -> {
                    for (int index = next.getAndIncrement(); index < found.length && !stop.get();
                            index = next.getAndIncrement()) {
                        if (Thread.currentThread().isInterrupted()) {
                            throw new CancellationException("reading the domains of host " + host.name()
                                    + " was interrupted");
                        }
                        call.checkDeadline();
                        found[index] = managedInstance(libvirt, host, call.entry(), listed.get(index)).orElse(null);
                    }
                    return null;
                });
            }
            for (int finished = 0; finished < readers; ) {
                Future<Void> reader = done.poll(Math.max(0, call.deadline().remaining().toNanos()),
                        TimeUnit.NANOSECONDS);
                if (reader == null) {
                    call.checkDeadline();
                    continue;
                }
                finished++;
                try {
                    reader.get();
                } catch (ExecutionException failed) {
                    stop.set(true);
                    if (failed.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw (RuntimeException) failed.getCause(); // the readers throw nothing checked
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while reading the domains of host " + host.name());
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }
        return Arrays.stream(found).filter(Objects::nonNull).toList();
    }

    private static Optional<Instance> managedInstance(LibvirtHost libvirt, HostSettings host, String entry,
                                                      ListedDomain listed) {
        Domain domain = listed.domain();
        try {
            Optional<InstanceMetadata> metadata = InstanceInspector.metadataOf(libvirt, domain);
            if (metadata.isPresent() && metadata.get().entry().isEmpty()) {
                LOG.warn("skipping domain {} on host {}: egress-proxies created it before domains recorded their"
                        + " provider entry, so no entry lists or collects it; remove it by hand with virsh if nothing"
                        + " uses it", domain.name(), host.name());
            }
            if (metadata.isEmpty() || !metadata.get().createdThrough(entry)) {
                return Optional.empty();
            }
            if (!listed.active()) {
                return Optional.of(InstanceInspector.describeInactive(host.name(), domain, metadata.get()));
            }
            return Optional.of(InstanceInspector.describe(libvirt, host.name(), domain, metadata));
        } catch (LibvirtException failure) {
            if (failure.isTransportFailure()) {
                throw failure;
            }
            LOG.debug("skipping domain {} on host {}, which cannot be read: {}", domain.name(), host.name(),
                    failure.getMessage());
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("skipping domain {} on host {}: its egress-proxies metadata cannot be read ({}); it is left out"
                    + " of managed instances, so it is never collected", domain.name(), host.name(),
                    unreadable.getMessage());
        }
        return Optional.empty();
    }
}
