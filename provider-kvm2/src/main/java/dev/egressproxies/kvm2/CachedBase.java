package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.instance.LibvirtSteps;
import dev.egressproxies.kvm.common.instance.Volumes;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a host's pool holds of one image's base: the base volume, and the marker volume next to it
 * that holds the sha256 of the published file and the source it came from and is written last, so
 * its presence with a digest says the base is complete.
 *
 * <ul>
 *   <li>marker with a digest, and base: {@link State#COMPLETE}, when the digest is the configured
 *       one (or none is configured);
 *   <li>base without marker: {@link State#CUT_OFF}, an upload that was cut off;
 *   <li>marker without base, or marker without a digest: {@link State#DEBRIS};
 *   <li>neither: {@link State#ABSENT};
 *   <li>marker whose digest is not the configured one: refused as PERMANENT, never replaced, because
 *       every overlay on the host names the base as its backing file and libvirt would delete it
 *       under running VMs without a word;
 *   <li>marker recording another source than the image's, without a pinned digest: refused as
 *       PERMANENT for the same reason. The base's name carries its source's tag, so a changed source
 *       is a new base (fetched anew) and this needs two sources whose tags collide.
 * </ul>
 * The marker is read with a small cap, so a wrong file of that name cannot grow memory.
 */
final class CachedBase {
    /** How a marker's second line starts: the source it was fetched from. */
    static final String SOURCE_PREFIX = "source=";
    /** The most read back from a marker. */
    static final int MARKER_READ_CAP = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(CachedBase.class);
    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    /** What the pool holds of a base. */
    enum State {
        /** The base and a marker with the configured digest: usable. */
        COMPLETE,
        /** Nothing: the image was never fetched to this host, or was evicted. */
        ABSENT,
        /** A base without its marker: an upload that was cut off. */
        CUT_OFF,
        /** A marker without its base, or one that holds no digest. */
        DEBRIS
    }

    private final State state;
    private final Optional<StorageVolume> base;
    private final Optional<StorageVolume> marker;

    private CachedBase(State state, Optional<StorageVolume> base, Optional<StorageVolume> marker) {
        this.state = state;
        this.base = base;
        this.marker = marker;
    }

    /**
     * Looks at what the pool holds of the image's base, changing nothing.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when the marker holds another digest
     *                                                 than the configured one
     */
    static CachedBase inspect(LibvirtHost libvirt, StoragePool pool, HostSettings host, Kvm2Image image, Call call) {
        Optional<StorageVolume> marker = lookup(libvirt, pool, image.marker());
        if (marker.isEmpty()) {
            Optional<StorageVolume> base = lookup(libvirt, pool, image.volume());
            return new CachedBase(base.isPresent() ? State.CUT_OFF : State.ABSENT, base, marker);
        }
        MarkerContent content = readMarker(libvirt, marker.get());
        if (!DIGEST.matcher(content.digest()).matches()) {
            return new CachedBase(State.DEBRIS, lookup(libvirt, pool, image.volume()), marker);
        }
        requireConfiguredDigest(image, content.digest(), host, call);
        requireSameSource(image, content, host, call);
        Optional<StorageVolume> base = lookup(libvirt, pool, image.volume());
        return new CachedBase(base.isPresent() ? State.COMPLETE : State.DEBRIS, base, marker);
    }

    /** What the pool holds. */
    State state() {
        return state;
    }

    /** The base's path, when it is complete. */
    Optional<String> completePath() {
        return state == State.COMPLETE ? base.map(StorageVolume::path) : Optional.empty();
    }

    /**
     * Removes what is not a complete base, marker first, so no moment shows a marker next to a
     * partial base; returns the complete base's path, or empty once cleared.
     */
    Optional<String> completeOrCleared(LibvirtHost libvirt, HostSettings host) {
        if (state == State.COMPLETE) {
            return completePath();
        }
        marker.ifPresent(debris -> {
            LOG.info("removing marker volume {} on host {}: its base image volume is missing or it holds no digest",
                    debris.name(), host.name());
            Volumes.delete(libvirt, debris);
        });
        base.ifPresent(incomplete -> {
            LOG.info("removing base image volume {} on host {}: it has no complete marker, so an earlier fetch was"
                    + " cut off", incomplete.name(), host.name());
            Volumes.delete(libvirt, incomplete);
        });
        return Optional.empty();
    }

    /**
     * Writes the marker that makes the base count as complete: a raw volume holding the digest. A
     * marker that could not be filled is removed again, since an empty one next to a complete base
     * would read as debris and cost a refetch.
     */
    static void writeMarker(LibvirtHost libvirt, StoragePool pool, Kvm2Image image, String digest) {
        byte[] content = markerContent(image, digest).getBytes(StandardCharsets.US_ASCII);
        StorageVolume marker = LibvirtSteps.step("creating marker volume " + image.marker(),
                () -> libvirt.createVolume(pool, VolumeXml.raw(image.marker(), content.length)));
        Volumes.fill(libvirt, marker, content, "writing marker volume " + image.marker());
    }

    private static void requireConfiguredDigest(Kvm2Image image, String cached, HostSettings host, Call call) {
        Optional<String> configured = image.source().sha256();
        if (configured.isEmpty() || configured.get().equals(cached)) {
            return;
        }
        throw call.permanent("base image volume " + image.volume() + " on host '" + host.name() + "' holds image '"
                + image.label() + "' with sha256 " + cached + ", but sha256 " + configured.get() + " is configured;"
                + " it is not replaced, because the overlays of existing VMs on the host name it as their backing"
                + " file. To move on, either pin the cached digest again, or add the new image under a new key and"
                + " move the VMs to it; or delete the VMs that use it, then the volumes " + image.volume() + " and "
                + image.marker() + " ('virsh vol-delete --pool " + host.pool() + " " + image.volume() + "' and"
                + " 'virsh vol-delete --pool " + host.pool() + " " + image.marker() + "'), and create again");
    }

    /**
     * What a marker holds: the digest on its first line, then {@code source=} the sha256 of the
     * image source's identity ({@link dev.egressproxies.kvm.common.image.ImageSource#identitySha256})
     * and its redacted description, for whoever reads the volume; never the URL itself.
     */
    static String markerContent(Kvm2Image image, String digest) {
        return digest + "\n" + SOURCE_PREFIX + image.source().identitySha256() + " " + image.source() + "\n";
    }

    private static void requireSameSource(Kvm2Image image, MarkerContent content, HostSettings host, Call call) {
        // A pinned digest that matched says the bytes are the configured ones, whatever the source.
        if (image.pinned() || content.sourceSha256().isEmpty()
                || content.sourceSha256().get().equals(image.source().identitySha256())) {
            return;
        }
        // The name carries the source's tag, so only two sources whose tags collide get here.
        throw call.permanent("base image volume " + image.volume() + " on host '" + host.name() + "' was fetched"
                + " from another source than image '" + image.label() + "' names now (its marker records "
                + content.sourceSha256().get() + "), and no sha256 is pinned to show its bytes are the same. Pin the"
                + " image's sha256, or delete the VMs that use the volume, then the volumes ('virsh vol-delete --pool "
                + host.pool() + " " + image.volume() + "' and 'virsh vol-delete --pool " + host.pool() + " "
                + image.marker() + "'), and create again");
    }

    /**
     * What a marker records for a reader: its digest ({@code ""} when it holds none) and the redacted
     * source description ({@code ""} for a marker written before markers recorded their source).
     */
    static Recorded recorded(LibvirtHost libvirt, StorageVolume marker) {
        byte[] read = LibvirtSteps.step("reading marker volume " + marker.name(),
                () -> libvirt.downloadVolume(marker, MARKER_READ_CAP));
        String[] lines = new String(read, StandardCharsets.US_ASCII).replaceAll("[\\x00\\s]+$", "").split("\n");
        String digest = lines[0].strip().toLowerCase(Locale.ROOT);
        String source = "";
        for (int line = 1; line < lines.length; line++) {
            if (lines[line].startsWith(SOURCE_PREFIX)) {
                String[] parts = lines[line].substring(SOURCE_PREFIX.length()).split(" ", 2);
                source = parts.length > 1 ? parts[1] : "";
                // ImageSource[https://host:port, qcow2, ...]: the redacted URL is the source.
                if (source.startsWith("ImageSource[")) {
                    source = source.substring("ImageSource[".length()).split("[,\\]]", 2)[0];
                }
            }
        }
        return new Recorded(DIGEST.matcher(digest).matches() ? digest : "", source);
    }

    /** What a marker records: digest and redacted source, each {@code ""} when absent. */
    record Recorded(String digest, String source) {
    }

    private static MarkerContent readMarker(LibvirtHost libvirt, StorageVolume marker) {
        byte[] read = LibvirtSteps.step("reading marker volume " + marker.name(),
                () -> libvirt.downloadVolume(marker, MARKER_READ_CAP));
        String[] lines = new String(read, StandardCharsets.US_ASCII).replaceAll("[\\x00\\s]+$", "").split("\n");
        Optional<String> source = Optional.empty();
        for (int line = 1; line < lines.length; line++) {
            if (lines[line].startsWith(SOURCE_PREFIX)) {
                source = Optional.of(lines[line].substring(SOURCE_PREFIX.length()).split(" ", 2)[0]);
            }
        }
        return new MarkerContent(lines[0].strip().toLowerCase(Locale.ROOT), source);
    }

    /** A marker's digest, and the sha256 of the source it records, if any. */
    private record MarkerContent(String digest, Optional<String> sourceSha256) {
    }

    private static Optional<StorageVolume> lookup(LibvirtHost libvirt, StoragePool pool, String name) {
        return LibvirtSteps.step("looking up volume " + name, () -> libvirt.lookupVolume(pool, name));
    }
}
