package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.util.List;
import java.util.Optional;

/**
 * What a KVM backend plugs into the {@link InstanceEngine}: which images placements may name, and
 * how an image's base volume comes to be present and complete in a host's storage pool, so that
 * overlays can be backed by it.
 *
 * @param <I> the backend's resolved image
 */
public interface BaseImageStrategy<I extends ImageChoice> {

    /**
     * The image {@code placement.image} names for a VM on {@code host}.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when the image is unknown, naming
     *     the valid values and the setting to change
     */
    I resolve(String image, HostSettings host, Call call);

    /**
     * The path of the image's base volume when the pool holds it complete and usable, looked up
     * within the create's first host call.
     */
    Optional<String> cachedPath(LibvirtHost libvirt, StoragePool pool, HostSettings host, I image, Call call);

    /**
     * Makes the image's base volume present and complete in the host's pool and returns its path:
     * clears what an interrupted earlier attempt left and downloads the image, unless a concurrent
     * create did so meanwhile.
     *
     * @throws dev.egressproxies.api.ProviderException classified by the contract; TRANSIENT within
     *     a second when the call's deadline passes
     */
    String ensure(HostSettings host, I image, Call call);

    /** The names of the configured images, in configuration order; placements may name them. */
    List<String> imageNames();

    /** The preflight checks of the configured images, after the engine's host checks. */
    List<PreflightCheck> preflight(Call call);

    /**
     * The completeness marker of {@code volume} when it is a base volume this entry may report (its
     * own, any entry's where entries share bases, or one named by an earlier version).
     */
    Optional<String> markerOfBase(String volume);
}
