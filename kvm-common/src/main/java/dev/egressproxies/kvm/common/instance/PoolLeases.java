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
 * Leases held as small volumes in a host's pool: locks across processes and machines, of one
 * {@link Kind}. A fetch lease guards creating, filling and marking a base volume, and deleting a
 * base without marker; a name claim guards creating and deleting an entry's instance of one name.
 */
public final class PoolLeases {
    /** How long past the holder's deadline a fetch lease lasts. */
    public static final Duration MARGIN = Duration.ofMinutes(2);
    /** The fetch lease of a base: {@code BASE.lease}; a live one fails the fetch at once (TRANSIENT). */
    public static final Kind FETCH = new Kind(".lease", "fetch lease", MARGIN,
            "once that fetch is done the image is cached");
    /** The claim of an instance name: {@code ENTRY+NAME.claim}, lasting as long as its holder's deadline. */
    public static final Kind CLAIM = new Kind(".claim", "name claim", Duration.ZERO,
            "once that create or delete is done, its instance is there or gone");
    /** How long a lease volume may stay without content before it counts as left by a crash. */
    public static final Duration UNWRITTEN_GRACE = Duration.ofSeconds(2);
    /** The lease's text and then some. */
    public static final int VOLUME_BYTES = PoolLease.READ_CAP;

    private static final Logger LOG = LoggerFactory.getLogger(PoolLeases.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int CONTESTED_ATTEMPTS = 3;

    private final Kind kind;
    /** What the leases this instance takes are for: {@link PoolLease#PRUNE} or {@code ""}. */
    private final String purpose;
    private final BaseImageDiscard cleanup;
    private final LeaseHolder self;
    private final Clock clock;
    /** Leases this instance took and has not seen removed: found again, they are its own leftovers. */
    private final Set<String> taken = ConcurrentHashMap.newKeySet();
    /** One fetch per base and host in this process; the lease makes it one across processes. */
    private final KeyedLocks fetches = new KeyedLocks();

    /** Fetch leases of this process, released through {@code cleanup}'s best-effort host calls. */
    public PoolLeases(BaseImageDiscard cleanup) {
        this(FETCH, cleanup, LeaseHolder.current(), Clock.systemUTC());
    }

    /** Fetch leases, for tests that simulate several processes. */
    public PoolLeases(BaseImageDiscard cleanup, LeaseHolder self, Clock clock) {
        this(FETCH, cleanup, self, clock);
    }

    /** Leases of {@code kind}, held by {@code self}; {@code clock} dates their expiry. */
    public PoolLeases(Kind kind, BaseImageDiscard cleanup, LeaseHolder self, Clock clock) {
        this(kind, "", cleanup, self, clock);
    }

    private PoolLeases(Kind kind, String purpose, BaseImageDiscard cleanup, LeaseHolder self, Clock clock) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.purpose = Objects.requireNonNull(purpose, "purpose");
        this.cleanup = Objects.requireNonNull(cleanup, "cleanup");
        this.self = Objects.requireNonNull(self, "self");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Fetch leases of this process that say a prune holds them ({@link PoolLease#PRUNE}): a create
     * that found the base complete waits for such a lease to go before it trusts the base.
     */
    static PoolLeases pruning(BaseImageDiscard cleanup, Clock clock) {
        return new PoolLeases(FETCH, PoolLease.PRUNE, cleanup, LeaseHolder.current(), clock);
    }

    /**
     * What a lease guards, and how it is named and described.
     *
     * @param suffix   ends the volume's name, after the key
     * @param noun     names the lease in messages
     * @param margin   how long past its holder's deadline a lease lasts
     * @param whenDone tells a process that found the lease live what it will find once the lease goes
     */
    public record Kind(String suffix, String noun, Duration margin, String whenDone) {
    }

    /** Runs {@code work} as this process's only holder of the lease of {@code base} on {@code host}; releases it. */
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

    /** {@code BASE.lease}: the volume of a base's fetch lease. */
    public static String volumeName(String base) {
        return base + FETCH.suffix();
    }

    /** The volume of the lease of {@code key}. */
    public String volumeOf(String key) {
        return key + kind.suffix();
    }

    /** The kind of these leases. */
    public Kind kind() {
        return kind;
    }

    /** Takes the lease of {@code key} within a host call, taking over a stale one; TRANSIENT when it is live. */
    public Held acquire(LibvirtHost libvirt, StoragePool pool, HostSettings host, String key, String what,
                        Call call) {
        Attempt attempt = attempt(libvirt, pool, host, key, what, call);
        if (attempt.took()) {
            return attempt.held();
        }
        throw call.transientFailure("another process (" + attempt.holder().holder().describe() + ") is " + what
                + "; its " + kind.noun() + " " + volumeOf(key) + " on host '" + host.name() + "' expires at "
                + attempt.holder().expires() + ". Retry in a while: " + kind.whenDone() + ", and should it have died,"
                + " the " + kind.noun() + " is stale at its expiry", null);
    }

    /**
     * One try at the lease of {@code key} within a host call, taking over a stale one: the lease
     * taken, or the live lease that holds it. TRANSIENT when it changed hands too often.
     */
    public Attempt attempt(LibvirtHost libvirt, StoragePool pool, HostSettings host, String key, String what,
                           Call call) {
        String name = volumeOf(key);
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        PoolLease lease = new PoolLease(HexFormat.of().formatHex(token), self,
                clock.instant().plus(call.deadline().remaining()).plus(kind.margin()).truncatedTo(ChronoUnit.MILLIS),
                purpose);
        for (int attempt = 0; attempt < CONTESTED_ATTEMPTS; attempt++) {
            Optional<StorageVolume> created = Volumes.createUnlessExists(libvirt, pool,
                    VolumeXml.raw(name, VOLUME_BYTES), "creating " + kind.noun() + " volume " + name);
            if (created.isPresent()) {
                Volumes.fill(libvirt, created.get(), lease.bytes(), "writing " + kind.noun() + " volume " + name);
                taken.add(lease.token());
                return new Attempt(new Held(host, key, lease), null);
            }
            Optional<PoolLease> live = takeOverIfStale(libvirt, pool, host, name, what, call);
            if (live.isPresent()) {
                return new Attempt(null, live.get());
            }
        }
        throw call.transientFailure("the " + kind.noun() + " " + name + " on host '" + host.name() + "' changed hands "
                + CONTESTED_ATTEMPTS + " times while this process tried to take it, so other processes are " + what
                + "; retry in a while", null);
    }

    /** What one try at a lease came to: {@code held} when taken, else the live lease of its {@code holder}. */
    public record Attempt(Held held, PoolLease holder) {
        /** Whether the lease was taken. */
        public boolean took() {
            return held != null;
        }
    }

    /**
     * Removes the stale lease of a base found complete: a holder killed between marker and release
     * leaves one that no fetch would take over, since no fetch comes.
     */
    public void removeStale(LibvirtHost libvirt, StoragePool pool, HostSettings host, String base) {
        String name = volumeOf(base);
        Optional<Content> found = read(libvirt, pool, name);
        if (found.isEmpty()) {
            return;
        }
        Optional<String> stale = found.get().lease().flatMap(this::staleness);
        if (stale.isEmpty()) {
            // Unwritten or live: being taken, held, or its writer died; a fetch takes it over.
            return;
        }
        LOG.info("removing the stale {} {} on host {} of {}, whose base is complete: {}", kind.noun(), name, host.name(),
                found.get().lease().get().holder().describe(), stale.get());
        deleteIfUnchanged(libvirt, pool, name, found.get());
    }

    /** Why {@code lease} is stale, seen from this process, if it is. */
    Optional<String> staleness(PoolLease lease) {
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

    static Optional<PoolLease> readLease(LibvirtHost libvirt, StoragePool pool, String name) {
        return read(libvirt, pool, name).flatMap(Content::lease);
    }

    /** Deletes the existing lease when it is stale; returns it when it is live. */
    private Optional<PoolLease> takeOverIfStale(LibvirtHost libvirt, StoragePool pool, HostSettings host, String name, String what,
                                 Call call) {
        Optional<Content> found = read(libvirt, pool, name);
        if (found.isEmpty()) {
            return Optional.empty();
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
                return Optional.empty();
            }
            if (wait.compareTo(UNWRITTEN_GRACE) < 0) {
                throw call.transientFailure("the " + kind.noun() + " " + name + " on host '" + host.name() + "' is being"
                        + " written by another process " + what + "; retry in a while", null);
            }
        } else {
            PoolLease lease = content.lease().get();
            // The caller holds this process's lock of the key, so a lease of its own is one an
            // earlier holder could not release (the link was lost), not work under way.
            Optional<String> stale = staleness(lease);
            if (stale.isEmpty()) {
                return Optional.of(lease);
            }
            LOG.info("taking over the stale {} {} on host {} of {}: {}", kind.noun(), name, host.name(),
                    lease.holder().describe(), stale.get());
        }
        deleteIfUnchanged(libvirt, pool, name, content);
        return Optional.empty();
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
        Optional<StorageVolume> volume = LibvirtSteps.step("looking up lease volume " + name,
                () -> libvirt.lookupVolume(pool, name));
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        try {
            byte[] bytes = LibvirtSteps.step("reading lease volume " + name,
                    () -> libvirt.downloadVolume(volume.get(), PoolLease.READ_CAP));
            return Optional.of(new Content(volume.get(), bytes, PoolLease.parse(bytes)));
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                return Optional.empty();
            }
            throw vanished;
        }
    }

    /** A lease volume as read: the volume, its bytes and the lease they hold, if whole. */
    private record Content(StorageVolume volume, byte[] bytes, Optional<PoolLease> lease) {
    }

    /** A lease this process took: checked before the marker, released when the fetch ends. */
    public final class Held {
        private final HostSettings host;
        private final String base;
        private final PoolLease lease;
        private volatile boolean lost;

        private Held(HostSettings host, String base, PoolLease lease) {
            this.host = host;
            this.base = base;
            this.lease = lease;
        }

        /** The lease as written. */
        public PoolLease lease() {
            return lease;
        }

        /**
         * Checks, within a host call just before the marker, that the pool still holds this lease;
         * TRANSIENT when another took it over, and {@link #lost()} from then on: delete nothing.
         */
        public void requireHeld(LibvirtHost libvirt, StoragePool pool, Call call) {
            Optional<PoolLease> current = read(libvirt, pool, volumeOf(base)).flatMap(Content::lease);
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
                    String name = volumeOf(base);
                    Optional<Content> current = read(libvirt, Pools.require(libvirt, host, call), name);
                    if (current.flatMap(Content::lease).map(found -> found.token().equals(lease.token()))
                            .orElse(false)) {
                        Volumes.delete(libvirt, current.get().volume());
                    }
                    taken.remove(lease.token());
                    return null;
                });
            } catch (RuntimeException failure) {
                LOG.info("could not remove the {} {} on host {}; it is stale once it expires at {}: {}", kind.noun(),
                        volumeOf(base), host.name(), lease.expires(), failure.toString());
            }
        }
    }
}
