package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import java.util.List;

/**
 * The host setting to fix when libvirt refuses to define or start a domain for good, and what to
 * do about it, worded the same for a failed create and for {@code egressctl check}.
 *
 * <p>Whether a refusal is permanent is decided by its codes ({@link
 * dev.egressproxies.kvm.common.libvirt.LibvirtErrors}). Which setting it is about libvirt has no
 * code for, so the setting is found by its configured value in libvirt's message (libvirt quotes
 * the bridge and paths it could not use), or by the part of libvirt that refused (its CPU code).
 */
final class HostSettingFaults {
    /** ENOENT and ENODEV: the OS said the thing does not exist. */
    private static final List<Integer> DOES_NOT_EXIST = List.of(2, 19);

    private HostSettingFaults() {
    }

    /**
     * What to fix for {@code refusal}, a PERMANENT libvirt error of defining or starting a domain on
     * {@code host}, the {@code index}-th host of the entry; {@code volumePaths} are the instance's
     * volumes in the host's pool.
     */
    static String describe(LibvirtException refusal, HostSettings host, int index, List<String> volumePaths) {
        String message = refusal.getMessage();
        boolean missing = DOES_NOT_EXIST.contains(refusal.systemErrorNumber());
        String libvirtSaid = " (libvirt: " + message + "; error " + refusal.code() + ", " + refusal.rawCode() + ")";
        if (message.contains("'" + host.bridge() + "'")) {
            return (missing ? missingBridge(host, index) : bridgeUnusable(host, index)) + libvirtSaid;
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

    /** A bridge the host does not have. */
    static String missingBridge(HostSettings host, int index) {
        return setting(index, "bridge") + " '" + host.bridge() + "' does not exist on host '" + host.name()
                + "': create it or name an existing bridge ('ip link show type bridge' there lists them)";
    }

    /** A domain type the host's hypervisor does not offer. */
    static String unsupportedDomainType(HostSettings host, int index) {
        return setting(index, "domainType") + " '" + host.domainType() + "' is not offered by host '" + host.name()
                + "': use qemu (emulation, slower) where KVM is not available, or enable KVM there";
    }

    /** A firmware file that the host lacks, or that libvirt does not offer. */
    static String firmware(HostSettings host, int index, String name, String path, boolean missing) {
        return setting(index, name) + " '" + path + "' " + (missing ? "does not exist" : "cannot be used")
                + " on host '" + host.name() + "': install the UEFI firmware there (Debian, Ubuntu: 'apt-get install"
                + " ovmf') or set " + name + " to a file that exists there ('egressctl check' lists the loaders"
                + " libvirt offers)";
    }

    private static String bridgeUnusable(HostSettings host, int index) {
        return setting(index, "bridge") + " '" + host.bridge() + "' cannot be used on host '" + host.name()
                + "': make it a Linux bridge that libvirt may attach to, or name another bridge";
    }

    /** The configuration path of a host setting, like {@code hosts[0].bridge}. */
    static String setting(int index, String name) {
        return "hosts[" + index + "]." + name;
    }
}
