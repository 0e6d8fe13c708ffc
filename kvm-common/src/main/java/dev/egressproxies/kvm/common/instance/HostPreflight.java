package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DomainCapabilities;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** The checks behind {@code egressctl check} that every KVM entry shares, changing nothing, and their advice. */
public final class HostPreflight {
    private static final double GIB = 1L << 30;
    /** ENOENT and ENODEV: the OS said the thing does not exist. */
    private static final List<Integer> DOES_NOT_EXIST = List.of(2, 19);

    private HostPreflight() {
    }

    static List<PreflightCheck> run(EntrySettings settings, HostPool hosts, Call call) {
        List<PreflightCheck> checks = new ArrayList<>();
        for (int index = 0; index < settings.hosts().size(); index++) {
            HostSettings host = settings.hosts().get(index);
            String name = "SSH and libvirt on host " + host.name() + " (" + host.destination() + ")";
            PreflightCheck connection = check(name, () -> {
                HostInfo info = hosts.call(host, call, LibvirtHost::hostInfo);
                String route = hosts.route(host, call);
                return "libvirt " + info.libvirtVersion() + " (" + info.hypervisor() + ") on " + info.hostname()
                        + (route.isEmpty() ? "" : ", through " + route);
            });
            checks.add(connection);
            if (connection.passed()) {
                checks.add(poolCheck(host, hosts, call));
                checks.add(bridgeCheck(host, index, hosts, call));
                checks.addAll(platformChecks(host, index, hosts, call));
            }
        }
        checks.add(PreflightCheck.passed("machine types", settings.machineTypes().entrySet().stream()
                .map(type -> type.getKey() + " (" + type.getValue() + ")").collect(Collectors.joining(", "))));
        return checks;
    }

    /** One check: {@code probe}'s result is the detail; its {@link ProviderException} fails the check. */
    public static PreflightCheck check(String name, Supplier<String> probe) {
        try {
            return PreflightCheck.passed(name, probe.get());
        } catch (ProviderException failure) {
            return PreflightCheck.failed(name, failure.detail());
        }
    }

    private static PreflightCheck poolCheck(HostSettings host, HostPool hosts, Call call) {
        String name = "storage pool " + host.pool() + " on host " + host.name();
        return check(name, () -> {
            PoolInfo info = hosts.call(host, call,
                    libvirt -> Pools.requireRunning(libvirt, Pools.require(libvirt, host, call), host, call));
            if (info.availableBytes() <= 0) {
                throw call.failure(ErrorKind.QUOTA_EXCEEDED, "storage pool '" + host.pool() + "' on host '"
                        + host.name() + "' has no space left: free some, or set hosts[].pool to another pool", null);
            }
            return String.format("running, %.1f GiB of %.1f GiB available", info.availableBytes() / GIB,
                    info.capacityBytes() / GIB);
        });
    }

    private static PreflightCheck bridgeCheck(HostSettings host, int index, HostPool hosts, Call call) {
        String name = setting(index, "bridge") + " on host " + host.name();
        return check(name, () -> {
            Optional<Boolean> exists = hosts.call(host, call, libvirt -> unlessUnsupported(
                    () -> libvirt.hasInterface(host.bridge())));
            if (exists.isEmpty()) {
                return "not verified: libvirt on host " + host.name() + " cannot look up interfaces (no interface"
                        + " driver); a missing bridge fails the create, naming this setting";
            }
            if (!exists.get()) {
                throw call.permanent(missingBridge(host, index));
            }
            return "bridge " + host.bridge() + " exists";
        });
    }

    private static List<PreflightCheck> platformChecks(HostSettings host, int index, HostPool hosts, Call call) {
        String typeName = setting(index, "domainType") + " on host " + host.name();
        Optional<DomainCapabilities> capabilities;
        try {
            capabilities = hosts.call(host, call, libvirt -> domainCapabilities(libvirt, host, index, call));
        } catch (ProviderException failure) {
            return List.of(PreflightCheck.failed(typeName, failure.detail()));
        }
        if (capabilities.isEmpty()) {
            return List.of(PreflightCheck.passed(typeName, "not verified: libvirt on host " + host.name()
                    + " cannot report domain capabilities"));
        }
        DomainCapabilities offered = capabilities.get();
        return List.of(
                PreflightCheck.passed(typeName, host.domainType() + " offered, default machine " + offered.machine()),
                check(setting(index, "cpuMode") + " on host " + host.name(),
                        () -> cpuMode(host, index, offered, call)),
                check(setting(index, "uefiLoader") + " on host " + host.name(),
                        () -> uefiLoader(host, index, offered, call)));
    }

    private static Optional<DomainCapabilities> domainCapabilities(LibvirtHost libvirt, HostSettings host, int index,
                                                                   Call call) {
        try {
            return unlessUnsupported(() -> libvirt.domainCapabilities(host.domainType()))
                    .map(DomainCapabilities::parse);
        } catch (LibvirtException refused) {
            if (refused.is(LibvirtErrorCode.CONFIG_UNSUPPORTED) || refused.is(LibvirtErrorCode.INVALID_ARGUMENT)) {
                throw call.permanent(unsupportedDomainType(host, index) + " (libvirt: "
                        + refused.getMessage() + ")");
            }
            throw refused;
        }
    }

    private static String cpuMode(HostSettings host, int index, DomainCapabilities offered, Call call) {
        CpuMode mode = host.platform().cpuMode();
        if (mode instanceof CpuMode.Named named) {
            Boolean usable = offered.cpuModels().get(named.model());
            if (usable == null) {
                throw call.permanent(setting(index, "cpuMode") + " '" + named.model() + "' is not a"
                        + " CPU model QEMU knows on host '" + host.name() + "': use host-model, default, or one of the"
                        + " models 'virsh domcapabilities --virttype " + host.domainType() + "' lists there");
            }
            return named.model() + (usable ? " is usable" : " is known but not usable on this host's CPU as it is;"
                    + " libvirt falls back to a similar model");
        }
        String modeName = mode instanceof CpuMode.HostModel ? "host-model"
                : mode instanceof CpuMode.HostPassthrough ? "host-passthrough" : null;
        if (modeName == null) {
            return "QEMU's default CPU model";
        }
        if (!offered.cpuModes().contains(modeName)) {
            throw call.permanent(setting(index, "cpuMode") + " '" + modeName + "' is not supported"
                    + " by host '" + host.name() + "' under domainType " + host.domainType() + ": use one of "
                    + offered.cpuModes() + " or default");
        }
        return modeName + " supported";
    }

    private static String uefiLoader(HostSettings host, int index, DomainCapabilities offered, Call call) {
        if (!offered.loaders().contains(host.uefiLoader())) {
            throw call.permanent(firmware(host, index, "uefiLoader", host.uefiLoader(), false)
                    + "; libvirt offers " + (offered.loaders().isEmpty() ? "none" : offered.loaders())
                    + " (a loader outside this list fails this check even if the file exists; the images that"
                    + " boot with BIOS do not need it)");
        }
        return host.uefiLoader() + " offered; the variables template " + host.uefiVarsTemplate() + " is not listed"
                + " by libvirt, a missing one fails the create of a UEFI image naming hosts[" + index
                + "].uefiVarsTemplate";
    }

    /** Empty when the host's libvirt does not support {@code work}. */
    private static <T> Optional<T> unlessUnsupported(Supplier<T> work) {
        try {
            return Optional.of(work.get());
        } catch (LibvirtException unsupported) {
            if (unsupported.is(LibvirtErrorCode.NO_SUPPORT)) {
                return Optional.empty();
            }
            throw unsupported;
        }
    }

    /** What to fix for a PERMANENT libvirt error of defining or starting a domain on the {@code index}-th host. */
    static String refusal(LibvirtException refusal, HostSettings host, int index, List<String> volumePaths) {
        String message = refusal.getMessage();
        boolean missing = DOES_NOT_EXIST.contains(refusal.systemErrorNumber());
        String libvirtSaid = " (libvirt: " + message + "; error " + refusal.code() + ", " + refusal.rawCode() + ")";
        if (message.contains("'" + host.bridge() + "'")) {
            return (missing ? missingBridge(host, index) : setting(index, "bridge") + " '" + host.bridge()
                    + "' cannot be used on host '" + host.name() + "': make it a Linux bridge that libvirt may attach"
                    + " to, or name another bridge") + libvirtSaid;
        }
        if (message.contains(host.uefiLoader())) {
            return firmware(host, index, "uefiLoader", host.uefiLoader(), missing) + libvirtSaid;
        }
        if (message.contains(host.uefiVarsTemplate())) {
            return firmware(host, index, "uefiVarsTemplate", host.uefiVarsTemplate(), missing) + libvirtSaid;
        }
        if (refusal.source() == LibvirtErrorSource.CPU) {
            String cpuMode = host.cpuMode() == null ? "(unset: the default of domainType " + host.domainType() + ")"
                    : "'" + host.cpuMode() + "'";
            return setting(index, "cpuMode") + " " + cpuMode + " cannot be used on host '" + host.name() + "'"
                    + libvirtSaid + ": use host-model, default, or a CPU model 'virsh"
                    + " domcapabilities' lists there as usable";
        }
        if (refusal.is(LibvirtErrorCode.CONFIG_UNSUPPORTED) && message.contains("'" + host.domainType() + "'")) {
            return unsupportedDomainType(host, index) + libvirtSaid;
        }
        for (String path : volumePaths) {
            if (message.contains(path)) {
                return "QEMU on host '" + host.name() + "' cannot use " + path + " in storage pool '" + host.pool()
                        + "'" + libvirtSaid + ": make the pool's folder accessible to QEMU there, or set "
                        + setting(index, "pool") + " to another pool";
            }
        }
        return "libvirt on host '" + host.name() + "' refused the domain" + libvirtSaid + "; retrying cannot help:"
                + " fix the settings of hosts[" + index + "] (bridge, domainType, cpuMode, uefiLoader,"
                + " uefiVarsTemplate) or the machine type";
    }

    private static String missingBridge(HostSettings host, int index) {
        return setting(index, "bridge") + " '" + host.bridge() + "' does not exist on host '" + host.name()
                + "': create it or name an existing bridge ('ip link show type bridge' there lists them)";
    }

    private static String unsupportedDomainType(HostSettings host, int index) {
        return setting(index, "domainType") + " '" + host.domainType() + "' is not offered by host '" + host.name()
                + "': use qemu (emulation, slower) where KVM is not available, or enable KVM there";
    }

    private static String firmware(HostSettings host, int index, String name, String path, boolean missing) {
        return setting(index, name) + " '" + path + "' " + (missing ? "does not exist" : "cannot be used")
                + " on host '" + host.name() + "': install the UEFI firmware there (Debian, Ubuntu: 'apt-get install"
                + " ovmf') or set " + name + " to a file that exists there ('egressctl check' lists the loaders"
                + " libvirt offers)";
    }

    private static String setting(int index, String name) {
        return "hosts[" + index + "]." + name;
    }
}
