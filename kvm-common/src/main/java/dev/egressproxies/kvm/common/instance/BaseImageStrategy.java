package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.List;
import java.util.Optional;

/** What a KVM backend plugs into the {@link InstanceEngine}: its images and how their base volumes get cached. */
public interface BaseImageStrategy<I extends ImageChoice> {

    /** The image {@code placement.image} names for {@code host}; PERMANENT, naming the valid ones, if unknown. */
    I resolve(String image, HostSettings host, Call call);

    /** The path of the base volume when the pool holds it complete, within the create's first host call. */
    Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, I image, Call call);

    /**
     * Makes the base volume complete in the host's pool (clearing an interrupted attempt's debris)
     * and returns its path; TRANSIENT within a second of the call's deadline.
     */
    String ensure(HostSettings host, I image, Call call);

    /** The names of the configured images, in configuration order; placements may name them. */
    List<String> imageNames();

    /** The preflight checks of the configured images, after the engine's host checks. */
    List<PreflightCheck> preflight(Call call);

    /** The completeness marker of {@code volume} when it is a base volume this entry may report. */
    Optional<String> markerOfBase(String volume);

    /** The name of {@code image}'s base volume in a host's pool. */
    String baseVolume(I image);

    /**
     * What base volume {@code volume} (one {@link #markerOfBase} accepts) is, from its name and,
     * where the backend writes one, its marker: read within a host call, changing nothing.
     */
    default BaseFacts facts(LibvirtHost libvirt, StoragePool pool, String volume, boolean marked) {
        return BaseFacts.fromName(volume);
    }
}
