package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.ZoneChoice;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.config.MachineSize;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Where an instance whose placement names no zone goes, among the entry's hosts that are not
 * cordoned and that answer: one with room for the machine type (its memory, minus what its active
 * domains may take, and pool space for the disk), with the fewest of this entry's instances, then the
 * most free memory, then the first configured. The hosts are read together; instances this process
 * is creating count as placed until their create ends. Reasoning and figures: docs/fleet.md.
 */
final class HostPlacement {
    private static final long MIB = 1024L * 1024L;
    private static final long GIB = 1024L * MIB;
    /** Longer than any survey takes: a create that ended this long before one began is in it. */
    private static final long FORGET_AFTER_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final EntrySettings settings;
    private final HostPool hosts;
    private final HostCordons cordons;
    /** This process's creates placed lately, under way or ended, which a survey may not see yet. */
    private final List<Reservation> underWay = new ArrayList<>();

    HostPlacement(EntrySettings settings, HostPool hosts, HostCordons cordons) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.cordons = Objects.requireNonNull(cordons, "cordons");
    }

    /** Chooses zones for {@code placements} together, each choice counting the ones before; changes nothing. */
    List<ZoneChoice> place(List<Placement> placements, Call call) {
        Map<String, Room> rooms = survey(call);
        List<ZoneChoice> choices = new ArrayList<>();
        for (Placement placement : placements) {
            if (!placement.zone().isEmpty()) {
                choices.add(new ZoneChoice(placement.zone(), "named"));
                Room named = rooms.get(placement.zone());
                if (named != null && named.usable()) {
                    rooms.put(placement.zone(), named.plus(need(placement)));
                }
                continue;
            }
            ZoneChoice choice = choose(placement, rooms, call);
            choices.add(choice);
            rooms.put(choice.zone(), rooms.get(choice.zone()).plus(need(placement)));
        }
        return List.copyOf(choices);
    }

    /**
     * Chooses a host for one create and counts it there until a survey started after the create
     * ended can see it: so creates running together in this process spread too.
     */
    Reservation reserve(String name, Placement placement, Call call) {
        long surveyed = System.nanoTime();
        Map<String, Room> rooms = survey(call);
        synchronized (underWay) {
            underWay.removeIf(earlier -> earlier.endedBefore(surveyed - FORGET_AFTER_NANOS));
            // A create under way, or ended after the survey began, counts unless the survey saw its instance.
            underWay.stream().filter(earlier -> !earlier.endedBefore(surveyed))
                    .forEach(earlier -> rooms.computeIfPresent(earlier.choice.zone(), (host, room) ->
                            room.names().contains(earlier.name) ? room : room.plus(earlier.need)));
            ZoneChoice choice = choose(placement, rooms, call);
            Reservation reservation = new Reservation(name, choice, need(placement));
            underWay.add(reservation);
            return reservation;
        }
    }

    /** A host chosen for a create of this process; closing it records when the create ended. */
    final class Reservation implements AutoCloseable {
        private final String name;
        private final ZoneChoice choice;
        private final Room need;
        /** When the create ended ({@link System#nanoTime}); guarded by {@link #underWay}. */
        private Long ended;

        private Reservation(String name, ZoneChoice choice, Room need) {
            this.name = name;
            this.choice = choice;
            this.need = need;
        }

        ZoneChoice choice() {
            return choice;
        }

        private boolean endedBefore(long nanos) {
            return ended != null && ended - nanos < 0;
        }

        @Override
        public void close() {
            synchronized (underWay) {
                ended = System.nanoTime();
            }
        }
    }

    /** What one instance of {@code placement} takes: one proxy, its memory and its disk. */
    private Room need(Placement placement) {
        MachineSize type = settings.machineTypes().get(placement.machineType());
        long memory = type == null ? 0 : type.memoryMiB() * MIB;
        return new Room("", 1, -memory, -settings.diskSizeGb() * GIB, Set.of());
    }

    private ZoneChoice choose(Placement placement, Map<String, Room> rooms, Call call) {
        Room need = need(placement);
        List<String> skipped = new ArrayList<>();
        List<Map.Entry<String, Room>> fitting = new ArrayList<>();
        boolean unanswered = false;
        boolean cordonedOnly = true;
        for (Map.Entry<String, Room> entry : rooms.entrySet()) {
            Room room = entry.getValue();
            if (!room.usable()) {
                skipped.add(entry.getKey() + " " + room.unusable());
                unanswered |= room.unusable().startsWith("does not answer");
                continue;
            }
            Optional<String> lack = room.lack(need);
            if (lack.isPresent()) {
                skipped.add(entry.getKey() + " " + lack.get());
                cordonedOnly = false;
                continue;
            }
            fitting.add(entry);
        }
        List<String> order = settings.hostNames();
        Optional<Map.Entry<String, Room>> best = fitting.stream().min(Comparator
                .comparingInt((Map.Entry<String, Room> entry) -> entry.getValue().proxies())
                .thenComparing(entry -> -entry.getValue().memory())
                .thenComparingInt(entry -> order.indexOf(entry.getKey())));
        if (best.isEmpty()) {
            String why = "no host of provider entry '" + settings.entry() + "' can take a '" + placement.machineType()
                    + "' instance (" + gib(-need.memory()) + " memory, " + gib(-need.pool()) + " disk): "
                    + String.join("; ", skipped);
            if (unanswered) {
                throw call.transientFailure(why + ". Retry when the hosts answer, or name a zone", null);
            }
            if (cordonedOnly) {
                throw call.transientFailure(why + ". Uncordon a host with 'egressctl uncordon " + settings.entry()
                        + "/HOST'", null);
            }
            throw call.failure(ErrorKind.QUOTA_EXCEEDED, why + ". Free memory or pool space, use a smaller machine"
                    + " type, or add a host", null);
        }
        String host = best.get().getKey();
        Room chosen = best.get().getValue();
        String counts = rooms.entrySet().stream().filter(entry -> entry.getValue().usable() && !entry.getKey()
                        .equals(host)).map(entry -> entry.getKey() + " has " + entry.getValue().proxies())
                .collect(Collectors.joining(", "));
        String reason = "fewest instances of entry '" + settings.entry() + "' (" + chosen.proxies()
                + (counts.isEmpty() ? "" : "; " + counts) + "), " + gib(chosen.memory()) + " memory and "
                + gib(chosen.pool()) + " pool space free" + (skipped.isEmpty() ? "" : "; skipped "
                + String.join(", ", skipped));
        return new ZoneChoice(host, reason);
    }

    /** Every host's room, read together; a host that does not answer or is cordoned is marked unusable. */
    private Map<String, Room> survey(Call call) {
        Map<String, String> cordoned = cordons.read(call);
        Map<String, CompletableFuture<Room>> pending = new LinkedHashMap<>();
        ExecutorService readers = Executors.newCachedThreadPool(HostPool.daemonThreads("egress-placement-"));
        try {
            for (HostSettings host : settings.hosts()) {
                if (cordoned.containsKey(host.name())) {
                    String by = cordoned.get(host.name());
                    pending.put(host.name(), CompletableFuture.completedFuture(
                            Room.unusable("cordoned" + (by.isEmpty() ? "" : " (" + by + ")"))));
                } else {
                    pending.put(host.name(), CompletableFuture.supplyAsync(() -> read(host, call), readers));
                }
            }
            Map<String, Room> rooms = new LinkedHashMap<>();
            pending.forEach((host, room) -> rooms.put(host, room.join()));
            return rooms;
        } finally {
            readers.shutdown();
        }
    }

    private Room read(HostSettings host, Call call) {
        try {
            return hosts.call(host, call, libvirt -> {
                long reserved = 0;
                for (Domain domain : libvirt.listAllDomains(true)) {
                    reserved += libvirt.domainMemoryBytes(domain);
                }
                long memory = libvirt.memoryBytes() - reserved;
                Set<String> names = InstanceInspector.listHost(libvirt, host, call).stream().map(Instance::name)
                        .collect(Collectors.toSet());
                PoolInfo pool = Pools.requireRunning(libvirt, Pools.require(libvirt, host, call), host, call);
                return new Room("", names.size(), memory, pool.availableBytes(), names);
            });
        } catch (ProviderException failure) {
            if (call.deadline().isExpired() || Thread.currentThread().isInterrupted()) {
                throw failure;
            }
            return Room.unusable((failure.kind() == ErrorKind.TRANSIENT ? "does not answer (" : "cannot take"
                    + " instances (") + failure.detail() + ")");
        }
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) GIB);
    }

    /**
     * A host's room, or what one instance takes (as negative memory and pool, and one proxy).
     *
     * @param unusable why the host takes nothing (cordoned, does not answer), or {@code ""}
     * @param proxies  this entry's instances there
     * @param memory   bytes of memory not taken by active domains
     * @param pool     bytes free in its pool
     * @param names    the names of this entry's instances the survey found there
     */
    private record Room(String unusable, int proxies, long memory, long pool, Set<String> names) {
        static Room unusable(String why) {
            return new Room(why, 0, 0, 0, Set.of());
        }

        boolean usable() {
            return unusable.isEmpty();
        }

        Room plus(Room other) {
            return new Room(unusable, proxies + other.proxies, memory + other.memory, pool + other.pool, names);
        }

        Room minus(Room other) {
            return new Room(unusable, proxies - other.proxies, memory - other.memory, pool - other.pool, names);
        }

        /** What keeps this host from taking {@code need}, if anything. */
        Optional<String> lack(Room need) {
            if (memory + need.memory < 0) {
                return Optional.of("lacks memory (" + gib(memory) + " free, " + gib(-need.memory) + " needed)");
            }
            if (pool + need.pool < 0) {
                return Optional.of("lacks pool space (" + gib(pool) + " free, " + gib(-need.pool) + " needed)");
            }
            return Optional.empty();
        }
    }
}
