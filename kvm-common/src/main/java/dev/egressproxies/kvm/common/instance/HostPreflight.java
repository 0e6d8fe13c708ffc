package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.PoolInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The checks behind {@code egressctl check} that every KVM entry shares, changing nothing: for
 * each host, that SSH (with the right host key) and libvirt answer and that the storage pool exists
 * and runs; then that the machine types are sane. A failed check is reported with what to fix,
 * never thrown; {@link #check} runs a backend's own checks the same way.
 */
public final class HostPreflight {
    private static final double GIB = 1L << 30;

    private HostPreflight() {
    }

    /** The host and machine type checks of the entry. */
    static List<PreflightCheck> run(EntrySettings settings, HostCaller hosts, Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        for (HostSettings host : settings.hosts()) {
            String name = "SSH and libvirt on host " + host.name() + " (" + host.destination() + ")";
            PreflightCheck connection = check(name, () -> describe(hosts.call(host, call, LibvirtHost::hostInfo)));
            checks.add(connection);
            if (connection.passed()) {
                checks.add(poolCheck(host, hosts, call));
            }
        }
        checks.add(PreflightCheck.passed("machine types", settings.machineTypes().entrySet().stream()
                .map(type -> type.getKey() + " (" + type.getValue() + ")").collect(Collectors.joining(", "))));
        return checks;
    }

    /**
     * Runs one check: what {@code probe} returns is the passed check's detail; its
     * {@link ProviderException} (deadline and interrupt included) becomes a failed check.
     */
    public static PreflightCheck check(String name, Supplier<String> probe) {
        try {
            return PreflightCheck.passed(name, probe.get());
        } catch (ProviderException failure) {
            return PreflightCheck.failed(name, failure.detail());
        }
    }

    private static PreflightCheck poolCheck(HostSettings host, HostCaller hosts, Call call) {
        String name = "storage pool " + host.pool() + " on host " + host.name();
        return check(name, () -> {
            Optional<PoolInfo> info = hosts.call(host, call, libvirt -> LibvirtSteps.step(
                    "looking up storage pool " + host.pool(), () -> libvirt.lookupPool(host.pool()))
                    .map(pool -> LibvirtSteps.step("reading storage pool " + host.pool(),
                            () -> libvirt.poolInfo(pool))));
            if (info.isEmpty()) {
                throw call.permanent(Pools.missing(host, call.entry()));
            }
            if (!info.get().running()) {
                throw call.permanent(Pools.notRunning(host));
            }
            return String.format("running, %.1f GiB of %.1f GiB available", info.get().availableBytes() / GIB,
                    info.get().capacityBytes() / GIB);
        });
    }

    private static String describe(HostInfo info) {
        return "libvirt " + info.libvirtVersion() + " (" + info.hypervisor() + ") on " + info.hostname();
    }
}
