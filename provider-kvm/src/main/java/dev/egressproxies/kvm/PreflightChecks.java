package dev.egressproxies.kvm;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.libvirt.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.PoolInfo;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.kvm.config.KvmImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The checks behind {@code egressctl check} for a {@code kvm} entry, changing nothing: for each host,
 * that SSH (with the right host key) and libvirt answer and that the storage pool exists and runs;
 * then that the machine types are sane and every image can be downloaded. A failed check is
 * reported with what to fix, never thrown.
 */
final class PreflightChecks {
    private static final double GIB = 1L << 30;

    private final String entry;
    private final KvmConfig config;
    private final HostCaller hosts;
    private final ImageDownloader downloader;

    PreflightChecks(String entry, KvmConfig config, HostCaller hosts, ImageDownloader downloader) {
        this.entry = entry;
        this.config = config;
        this.hosts = hosts;
        this.downloader = downloader;
    }

    /** See {@link dev.egressproxies.api.Provider#preflight}. */
    List<PreflightCheck> run(Deadline deadline) {
        Call call = new Call(entry, Operation.PREFLIGHT, "", deadline);
        List<PreflightCheck> checks = new ArrayList<>();
        for (KvmHost host : config.hosts()) {
            String name = "SSH and libvirt on host " + host.name() + " (" + host.destination() + ")";
            PreflightCheck connection = check(name, () -> describe(hosts.call(host, call, LibvirtHost::hostInfo)));
            checks.add(connection);
            if (connection.passed()) {
                checks.add(poolCheck(host, call));
            }
        }
        checks.add(PreflightCheck.passed("machine types", config.machineTypes().entrySet().stream()
                .map(type -> type.getKey() + " (" + type.getValue() + ")").collect(Collectors.joining(", "))));
        for (Map.Entry<String, KvmImage> image : config.images().entrySet()) {
            checks.add(check("image " + image.getKey() + " at " + UrlText.redacted(image.getValue().uri()),
                    () -> "downloadable, " + downloader.probe(image.getKey(), image.getValue(), call) + " bytes ("
                            + image.getValue().format() + ")"));
        }
        return List.copyOf(checks);
    }

    private PreflightCheck poolCheck(KvmHost host, Call call) {
        String name = "storage pool " + host.pool() + " on host " + host.name();
        return check(name, () -> {
            Optional<PoolInfo> info = hosts.call(host, call, libvirt -> LibvirtSteps.step(
                    "looking up storage pool " + host.pool(), () -> libvirt.lookupPool(host.pool()))
                    .map(pool -> LibvirtSteps.step("reading storage pool " + host.pool(),
                            () -> libvirt.poolInfo(pool))));
            if (info.isEmpty()) {
                throw call.permanent(Pools.missing(host, entry));
            }
            if (!info.get().running()) {
                throw call.permanent("storage pool '" + host.pool() + "' exists on host '" + host.name()
                        + "' but is not running: start it with 'virsh pool-start " + host.pool()
                        + "' and keep it running with 'virsh pool-autostart " + host.pool() + "'");
            }
            return String.format("running, %.1f GiB of %.1f GiB available", info.get().availableBytes() / GIB,
                    info.get().capacityBytes() / GIB);
        });
    }

    private static String describe(HostInfo info) {
        return "libvirt " + info.libvirtVersion() + " (" + info.hypervisor() + ") on " + info.hostname();
    }

    /** Runs one check; its ProviderException (deadline and interrupt included) becomes a failed check. */
    private static PreflightCheck check(String name, Supplier<String> probe) {
        try {
            return PreflightCheck.passed(name, probe.get());
        } catch (ProviderException failure) {
            return PreflightCheck.failed(name, failure.detail());
        }
    }
}
