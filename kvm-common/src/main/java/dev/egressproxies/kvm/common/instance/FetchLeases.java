package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch lease of a base volume: a lock across processes and machines, held in the host's pool,
 * on creating, filling and marking the base, and on deleting a base without marker.
 */
public final class FetchLeases {
    /** How long past the holder's deadline its lease lasts. */
    public static final Duration MARGIN = Duration.ofMinutes(2);
    /** How long a lease volume may stay without content before it counts as left by a crash. */
    public static final Duration UNWRITTEN_GRACE = Duration.ofSeconds(2);
    /** The lease's text and then some. */
    public static final int VOLUME_BYTES = FetchLease.READ_CAP;

    private static final Logger LOG = LoggerFactory.getLogger(FetchLeases.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int CONTESTED_ATTEMPTS = 3;

    private final BaseImageDiscard cleanup;
    private final LeaseHolder self;
    private final Clock clock;
    /** Leases this instance took and has not seen removed: found again, they are its own leftovers. */
    private final Set<String> taken = ConcurrentHashMap.newKeySet();
    /** One fetch per base and host in this process; the lease makes it one across processes. */
    private final KeyedLocks fetches = new KeyedLocks();

    /** Leases of this process, released through {@code cleanup}'s best-effort host calls. */
    public FetchLeases(BaseImageDiscard cleanup) {
        this(cleanup, LeaseHolder.current(), Clock.systemUTC());
    }

    /** For tests that simulate several processes. */
    public FetchLeases(BaseImageDiscard cleanup, LeaseHolder self, Clock clock) {
        this.cleanup = Objects.requireNonNull(cleanup, "cleanup");
        this.self = Objects.requireNonNull(self, "self");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Runs {@code work} as this process's only fetch of {@code base} to {@code host}; releases its lease. */
    public <T> T exclusively(HostSettings host, String base, Call call, String what,
                             Function<AtomicReference<Held>, T> work) {
        return fetches.withLock(host.name() + "/" + base, call, what, () -> {
            AtomicReference<Held> lease = new AtomicReference<>();
            try {
                return work.apply(lease);
            } finally {
                if (lease.get() != null) {
                    lease.get().release(call);
                }
            }
        });
    }

    /** {@code BASE.lease}. */
    public static String volumeName(String base) {
        return base + ".lease";
    }

    /** Takes the lease of {@code base} within a host call, taking over a stale one; TRANSIENT when it is live. */
    public Held acquire(LibvirtHost libvirt, StoragePool pool, HostSettings host, String base, String what,
                        Call call) {
        String name = volumeName(base);
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        FetchLease lease = new FetchLease(HexFormat.of().formatHex(token), self,
                clock.instant().plus(call.deadline().remaining()).plus(MARGIN).truncatedTo(ChronoUnit.MILLIS));
        for (int attempt = 0; attempt < CONTESTED_ATTEMPTS; attempt++) {
            Optional<StorageVolume> created = Volumes.createUnlessExists(libvirt, pool,
                    VolumeXml.raw(name, VOLUME_BYTES), "creating fetch lease volume " + name);
            if (created.isPresent()) {
                Volumes.fill(libvirt, created.get(), lease.bytes(), "writing fetch lease volume " + name);
                taken.add(lease.token());
                return new Held(host, base, lease);
            }
            takeOverIfStale(libvirt, pool, host, name, what, call);
        }
        throw call.transientFailure("the fetch lease " + name + " on host '" + host.name() + "' changed hands "
                + CONTESTED_ATTEMPTS + " times while this create tried to take it, so other processes are " + what
                + "; retry in a while", null);
    }

    /**
     * Removes the stale lease of a base found complete: a holder killed between marker and release
     * leaves one that no fetch would take over, since no fetch comes.
     */
    public void removeStale(LibvirtHost libvirt, StoragePool pool, HostSettings host, String base) {
        String name = volumeName(base);
        Optional<Content> found = read(libvirt, pool, name);
        if (found.isEmpty()) {
            return;
        }
        Optional<String> stale = found.get().lease().flatMap(this::staleness);
        if (stale.isEmpty()) {
            // Unwritten or live: being taken, held, or its writer died; a fetch takes it over.
            return;
        }
        LOG.info("removing the stale fetch lease {} on host {} of {}, whose base is complete: {}", name, host.name(),
                found.get().lease().get().holder().describe(), stale.get());
        deleteIfUnchanged(libvirt, pool, name, found.get());
    }

    /** Why {@code lease} is stale, seen from this process, if it is. */
    Optional<String> staleness(FetchLease lease) {
        if (!clock.instant().isBefore(lease.expires())) {
            return Optional.of("it expired at " + lease.expires());
        }
        if (taken.contains(lease.token())) {
            return Optional.of("this process could not remove it earlier");
        }
        if (self.knowsGone(lease.holder())) {
            return Optional.of("that process is gone");
        }
        return Optional.empty();
    }

    static Optional<FetchLease> readLease(LibvirtHost libvirt, StoragePool pool, String name) {
        return read(libvirt, pool, name).flatMap(Content::lease);
    }

    /** Deletes the existing lease when it is stale; throws TRANSIENT when it is live. */
    private void takeOverIfStale(LibvirtHost libvirt, StoragePool pool, HostSettings host, String name, String what,
                                 Call call) {
        Optional<Content> found = read(libvirt, pool, name);
        if (found.isEmpty()) {
            return;
        }
        Content content = found.get();
        if (content.lease().isEmpty()) {
            Duration wait = UNWRITTEN_GRACE.compareTo(call.deadline().remaining()) < 0
                    ? UNWRITTEN_GRACE : call.deadline().remaining();
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException interrupted) {
                throw call.interrupted(interrupted);
            }
            Optional<Content> again = read(libvirt, pool, name);
            if (again.isEmpty() || again.get().lease().isPresent()) {
                return;
            }
            if (wait.compareTo(UNWRITTEN_GRACE) < 0) {
                throw call.transientFailure("the fetch lease " + name + " on host '" + host.name() + "' is being"
                        + " written by another process " + what + "; retry in a while", null);
            }
        } else {
            FetchLease lease = content.lease().get();
            // The caller holds this process's lock of the base, so a lease of its own is one an
            // earlier fetch could not release (the link was lost), not a fetch under way.
            Optional<String> stale = staleness(lease);
            if (stale.isEmpty()) {
                throw call.transientFailure("another process (" + lease.holder().describe() + ") is " + what
                        + "; its fetch lease " + name + " expires at " + lease.expires() + ". Retry in a while: once"
                        + " that fetch is done the image is cached, and should it have died, the lease is stale at"
                        + " its expiry", null);
            }
            LOG.info("taking over the stale fetch lease {} on host {} of {}: {}", name, host.name(),
                    lease.holder().describe(), stale.get());
        }
        deleteIfUnchanged(libvirt, pool, name, content);
    }

    /** Reads again just before the delete, so a lease someone took over meanwhile stays. */
    private void deleteIfUnchanged(LibvirtHost libvirt, StoragePool pool, String name, Content found) {
        Optional<Content> current = read(libvirt, pool, name);
        if (current.isPresent() && Arrays.equals(current.get().bytes(), found.bytes())) {
            Volumes.delete(libvirt, current.get().volume());
            found.lease().ifPresent(removed -> taken.remove(removed.token()));
        }
    }

    private static Optional<Content> read(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<StorageVolume> volume = LibvirtSteps.step("looking up fetch lease volume " + name,
                () -> libvirt.lookupVolume(pool, name));
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        try {
            byte[] bytes = LibvirtSteps.step("reading fetch lease volume " + name,
                    () -> libvirt.downloadVolume(volume.get(), FetchLease.READ_CAP));
            return Optional.of(new Content(volume.get(), bytes, FetchLease.parse(bytes)));
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                return Optional.empty();
            }
            throw vanished;
        }
    }

    /** A lease volume as read: the volume, its bytes and the lease they hold, if whole. */
    private record Content(StorageVolume volume, byte[] bytes, Optional<FetchLease> lease) {
    }

    /** A lease this process took: checked before the marker, released when the fetch ends. */
    public final class Held {
        private final HostSettings host;
        private final String base;
        private final FetchLease lease;
        private volatile boolean lost;

        private Held(HostSettings host, String base, FetchLease lease) {
            this.host = host;
            this.base = base;
            this.lease = lease;
        }

        /** The lease as written. */
        public FetchLease lease() {
            return lease;
        }

        /**
         * Checks, within a host call just before the marker, that the pool still holds this lease;
         * TRANSIENT when another took it over, and {@link #lost()} from then on: delete nothing.
         */
        public void requireHeld(LibvirtHost libvirt, StoragePool pool, Call call) {
            Optional<FetchLease> current = read(libvirt, pool, volumeName(base)).flatMap(Content::lease);
            if (current.map(found -> found.token().equals(lease.token())).orElse(false)) {
                return;
            }
            lost = true;
            throw call.transientFailure("this create lost the fetch lease " + volumeName(base) + " on host '"
                    + host.name() + "' while it fetched base image volume " + base + " ("
                    + current.map(other -> "now held by " + other.holder().describe()).orElse("it is gone")
                    + "), so it wrote no marker and left the base to the lease's holder; retry", null);
        }

        /** Whether {@link #requireHeld} found the lease taken over: the base is not this create's to delete. */
        public boolean lost() {
            return lost;
        }

        /** Removes the lease if the pool still holds this one, best effort, in a host call of its own. */
        public void release(Call call) {
            try {
                cleanup.cleanUp(host, call, libvirt -> {
                    String name = volumeName(base);
                    Optional<Content> current = read(libvirt, Pools.require(libvirt, host, call), name);
                    if (current.flatMap(Content::lease).map(found -> found.token().equals(lease.token()))
                            .orElse(false)) {
                        Volumes.delete(libvirt, current.get().volume());
                    }
                    taken.remove(lease.token());
                    return null;
                });
            } catch (RuntimeException failure) {
                LOG.info("could not remove the fetch lease {} on host {}; it is stale once it expires at {}: {}",
                        volumeName(base), host.name(), lease.expires(), failure.toString());
            }
        }
    }
}
