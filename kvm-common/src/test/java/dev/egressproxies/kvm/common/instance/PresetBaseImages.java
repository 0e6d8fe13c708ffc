package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import dev.egressproxies.kvm.common.xml.VolumeXml;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The base-image strategy of the engine's tests: a fixed set of images whose base volume
 * {@code KEY.base.FORMAT} counts as cached whenever it exists, and which {@link #ensure} makes (as
 * a download that finished at once would), counting how often it was asked to.
 */
final class PresetBaseImages implements BaseImageStrategy<PresetBaseImages.Image> {

    /** An image of the strategy. */
    record Image(String key, DiskFormat format, boolean uefi, byte[] content) implements ImageChoice {
        /** Its base volume's name. */
        String volume() {
            return key + ".base." + format.xmlName();
        }
    }

    private final Map<String, Image> images;
    private final HostPool hosts;
    private final AtomicInteger ensures = new AtomicInteger();

    PresetBaseImages(Map<String, Image> images, HostPool hosts) {
        this.images = images;
        this.hosts = hosts;
    }

    @Override
    public Image resolve(String image, HostSettings host, Call call) {
        Image known = images.get(image);
        if (known == null) {
            throw call.permanent("placement.image '" + image + "' is not configured: use one of " + images.keySet());
        }
        return known;
    }

    @Override
    public Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, Image image,
                                       Call call) {
        return libvirt.lookupVolume(pool, image.volume()).map(StorageVolume::path);
    }

    @Override
    public String ensure(HostSettings host, Image image, Call call) {
        ensures.incrementAndGet();
        return hosts.call(host, call, libvirt -> {
            StoragePool pool = Pools.require(libvirt, host, call);
            StorageVolume base = libvirt.createVolume(pool, VolumeXml.raw(image.volume(), image.content().length));
            libvirt.uploadVolume(base, new ByteArrayInputStream(image.content()), image.content().length);
            return base.path();
        });
    }

    @Override
    public List<PreflightCheck> preflight(Call call) {
        return List.of(PreflightCheck.passed("images", String.join(", ", images.keySet())));
    }

    @Override
    public List<String> imageNames() {
        return List.copyOf(images.keySet());
    }

    @Override
    public String baseVolume(Image image) {
        return image.volume();
    }

    @Override
    public Optional<String> markerOfBase(String volume) {
        return volume.matches("[^+]+\\.base\\.(qcow2|raw)") ? Optional.of(volume + ".complete") : Optional.empty();
    }

    /** How often a base volume was made. */
    int ensures() {
        return ensures.get();
    }
}
