package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.image.HostImageFetcher;
import dev.egressproxies.kvm.common.image.HostImageFetcher.HostTools;
import dev.egressproxies.kvm.common.image.ImageFetchException;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fetch of an image by the hypervisor itself ({@code fetch: host}) into a new base volume, in
 * the order of the client-side fetch: the base volume is created through libvirt (in a dir pool,
 * a file the host can write), the host downloads into that file and checks length and sha256
 * ({@link HostImageFetcher}); the caller then refreshes the pool and writes the marker, and removes
 * the base on any failure, exactly as after a client-side fetch.
 */
public final class HostSideFetch {
    private static final Pattern POOL_TYPE = Pattern.compile("<pool[^>]*\\stype\\s*=\\s*['\"]([^'\"]+)['\"]");
    private static final Pattern TARGET_PATH = Pattern.compile("<target>.*?<path>([^<]+)</path>", Pattern.DOTALL);
    private static final Duration TOOL_LOOKUP_LIMIT = Duration.ofSeconds(30);

    private final HostImageFetcher fetcher;

    public HostSideFetch(HostImageFetcher fetcher) {
        this.fetcher = fetcher;
    }

    /**
     * Creates the base volume {@code volume} in the host's dir pool and has the host fetch
     * {@code source} into it; {@code created} holds the volume once it exists. PERMANENT for a pool of
     * another type; {@link ImageFetchException} when the fetch fails; TRANSIENT when the volume
     * exists (another process fetches it).
     */
    public FetchResult fetch(HostPool hosts, HostSettings host, String volume, ImageSource source, Call call,
                             AtomicReference<StorageVolume> created) {
        StorageVolume base = hosts.call(host, call, libvirt -> {
            StoragePool pool = Pools.require(libvirt, host, call);
            requireDirPool(libvirt, pool, host, call);
            // The host's write sets the file's length; libvirt learns it at the refresh before the marker.
            StorageVolume made = BaseVolumeFetch.create(libvirt, pool, host, volume, 1, call);
            created.set(made);
            return made;
        });
        HostShell shell = hosts.shell(host, call);
        return fetcher.fetch(shell, host.name(), source, base.path(), call.deadline());
    }

    /** The published file's size as the host sees it (a HEAD from the host); {@link ImageFetchException} on failure. */
    public long publishedBytes(HostPool hosts, HostSettings host, ImageSource source, Call call) {
        return fetcher.publishedBytes(hosts.shell(host, call), host.name(), source, call.deadline());
    }

    /**
     * The checks of a host whose images are fetched there, for {@code check}: its pool is a dir pool
     * the login may write to, it has the tools (curl or wget, sha256sum, the decompressors), and it
     * reaches each image's server (a HEAD from the host). {@code images}: each image's name and source.
     */
    public List<PreflightCheck> preflight(HostPool hosts, HostSettings host, Map<String, ImageSource> images,
                                          Call call, Function<ImageFetchException, RuntimeException> translate) {
        List<PreflightCheck> checks = new ArrayList<>();
        Set<String> tools = new LinkedHashSet<>();
        images.values().forEach(source -> tools.addAll(HostImageFetcher.requiredTools(source)));
        PreflightCheck toolCheck = HostPreflight.check("tools for fetch: host on host " + host.name(), () -> {
            String folder = hosts.call(host, call, libvirt -> requireDirPool(libvirt, Pools.require(libvirt, host,
                    call), host, call));
            HostShell shell = hosts.shell(host, call);
            HostTools found;
            try {
                found = HostImageFetcher.lookUpTools(shell, List.copyOf(tools), Optional.of(folder),
                        TOOL_LOOKUP_LIMIT);
            } catch (IOException failure) {
                throw call.transientFailure("cannot look up the tools on host '" + host.name() + "': "
                        + failure.getMessage() + "; retry", failure);
            }
            List<String> missing = new ArrayList<>(found.missing());
            if (found.downloader().isEmpty()) {
                missing.add(0, "curl (or wget)");
            }
            if (!missing.isEmpty()) {
                throw call.permanent("host '" + host.name() + "' (" + shell.destination() + ") lacks "
                        + String.join(", ", missing) + ", which fetch: host needs there: install "
                        + (missing.size() == 1 ? "it" : "them") + " (for example 'apt-get install curl xz-utils"
                        + " zstd'), or set fetch: client");
            }
            if (!found.folderWritable().orElse(false)) {
                throw call.permanent("the login on host '" + host.name() + "' (" + shell.destination()
                        + ") may not write to " + folder + ", the folder of storage pool '" + host.pool()
                        + "': log in as root or as a user that may write there, or set fetch: client");
            }
            return found.downloader().orElseThrow() + ", " + String.join(", ", tools) + " found; pool folder "
                    + folder + " writable";
        });
        checks.add(toolCheck);
        if (!toolCheck.passed()) {
            return checks;
        }
        for (Map.Entry<String, ImageSource> image : images.entrySet()) {
            ImageSource source = image.getValue();
            checks.add(HostPreflight.check("image " + image.getKey() + " at " + source.redactedUrl()
                    + " from host " + host.name(), () -> {
                        try {
                            return "reachable from the host, " + publishedBytes(hosts, host, source, call)
                                    + " bytes as published";
                        } catch (ImageFetchException failure) {
                            throw translate.apply(failure);
                        }
                    }));
        }
        return checks;
    }

    /** The folder of the host's pool; PERMANENT, naming the type, for a pool that is no dir pool. */
    static String requireDirPool(LibvirtHost libvirt, StoragePool pool, HostSettings host, Call call) {
        String xml = LibvirtSteps.step("reading the description of storage pool " + host.pool(),
                () -> libvirt.poolXml(pool));
        Matcher type = POOL_TYPE.matcher(xml);
        String poolType = type.find() ? type.group(1) : "unknown";
        Matcher path = TARGET_PATH.matcher(xml);
        if (!poolType.equals("dir") || !path.find()) {
            throw call.permanent("storage pool '" + host.pool() + "' on host '" + host.name() + "' is a " + poolType
                    + " pool; fetch: host writes images into a dir pool's folder only: set fetch: client for this"
                    + " entry or image, or use a dir pool on that host");
        }
        return path.group(1).strip().replace("&lt;", "<").replace("&gt;", ">").replace("&apos;", "'")
                .replace("&quot;", "\"").replace("&amp;", "&");
    }
}
