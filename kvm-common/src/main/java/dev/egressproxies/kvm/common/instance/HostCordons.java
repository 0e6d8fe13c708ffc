package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The entry's cordoned hosts, on which no new instance lands: a volume {@code ENTRY+HOST.cordon}
 * per cordoned host in the claims host's pool, beside the name claims, so every process sees them.
 * Its content says who cordoned the host and when.
 */
final class HostCordons {
    static final String SUFFIX = ".cordon";
    private static final int VOLUME_BYTES = 512;

    private final EntrySettings settings;
    private final HostPool hosts;
    private final LeaseHolder self;
    private final Clock clock;

    HostCordons(EntrySettings settings, HostPool hosts, LeaseHolder self, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.self = Objects.requireNonNull(self, "self");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** {@code ENTRY+HOST.cordon}. */
    static String volumeName(String entry, String host) {
        return entry + "+" + host + SUFFIX;
    }

    /** Cordons {@code host}, or lifts its cordon; idempotent. */
    void set(HostSettings host, boolean cordoned, Call call) {
        HostSettings claimsHost = settings.claimsHostSettings();
        String name = volumeName(settings.entry(), host.name());
        onClaimsHost(call, "cordon host '" + host.name() + "'", libvirt -> {
            StoragePool pool = Pools.require(libvirt, claimsHost, call);
            if (!cordoned) {
                Volumes.deleteIfPresent(libvirt, pool, name);
                return null;
            }
            Optional<StorageVolume> created = Volumes.createUnlessExists(libvirt, pool,
                    VolumeXml.raw(name, VOLUME_BYTES), "creating cordon volume " + name);
            if (created.isPresent()) {
                byte[] note = ("by=" + self.describe() + "\nat=" + clock.instant().truncatedTo(ChronoUnit.SECONDS)
                        + "\n").getBytes(StandardCharsets.US_ASCII);
                Volumes.fill(libvirt, created.get(), note, "writing cordon volume " + name);
            }
            return null;
        });
    }

    /** The cordoned hosts, each with who cordoned it and when (empty when unknown), in configuration order. */
    Map<String, String> read(Call call) {
        return onClaimsHost(call, "read the cordons", libvirt -> {
            StoragePool pool = Pools.require(libvirt, settings.claimsHostSettings(), call);
            Map<String, String> cordoned = new LinkedHashMap<>();
            for (HostSettings host : settings.hosts()) {
                note(libvirt, pool, volumeName(settings.entry(), host.name()))
                        .ifPresent(note -> cordoned.put(host.name(), note));
            }
            return cordoned;
        });
    }

    /** Within a host call on the claims host: whether {@code host} is cordoned, and by whom. */
    Optional<String> cordon(LibvirtHost libvirt, StoragePool claimsPool, HostSettings host) {
        return note(libvirt, claimsPool, volumeName(settings.entry(), host.name()));
    }

    /** TRANSIENT when {@code host} is cordoned: no new instance lands there. */
    void requireOpen(HostSettings host, String name, Call call) {
        Optional<String> cordon = onClaimsHost(call, "read the cordon of host '" + host.name() + "'",
                libvirt -> cordon(libvirt, Pools.require(libvirt, settings.claimsHostSettings(), call), host));
        if (cordon.isPresent()) {
            throw call.transientFailure("host '" + host.name() + "' of provider entry '" + settings.entry()
                    + "' is cordoned" + (cordon.get().isEmpty() ? "" : " (" + cordon.get() + ")") + ", so no new"
                    + " instance lands there and '" + name + "' was not created: uncordon it with 'egressctl uncordon "
                    + settings.entry() + "/" + host.name() + "', or leave the zone out so another host is chosen",
                    null);
        }
    }

    private <T> T onClaimsHost(Call call, String what, HostCall<T> work) {
        return NameClaims.onClaimsHost(settings, hosts, call, what, "nothing was changed", work);
    }

    /** The note of a cordon volume, {@code ""} when unreadable; empty when there is none. */
    private static Optional<String> note(LibvirtHost libvirt, StoragePool pool, String name) {
        Optional<StorageVolume> volume = Volumes.lookup(libvirt, pool, name);
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        try {
            String text = new String(libvirt.downloadVolume(volume.get(), VOLUME_BYTES), StandardCharsets.US_ASCII);
            StringBuilder note = new StringBuilder();
            for (String line : text.split("\n")) {
                if (line.startsWith("by=")) {
                    note.insert(0, "by " + line.substring(3).strip());
                } else if (line.startsWith("at=")) {
                    note.append(" at ").append(line.substring(3).strip());
                }
            }
            return Optional.of(note.toString().strip());
        } catch (LibvirtException vanished) {
            if (vanished.is(LibvirtErrorCode.NO_STORAGE_VOLUME)) {
                return Optional.empty();
            }
            throw vanished;
        }
    }
}
