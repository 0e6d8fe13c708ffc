package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.HostPlatform;

/**
 * One hypervisor of a {@code kvm} provider entry: how to reach it (SSH, then libvirt's unix socket),
 * which storage pool and bridge its VMs use, and how its VMs are defined. Everything but
 * {@code firmware} is kvm-common's {@link HostSettings}, which checks it; a {@code kvm} host also
 * says whether all its VMs boot with BIOS or UEFI.
 *
 * <p>Only {@code name}, {@code address} and {@code bridge} are required:
 * <pre>{@code
 * hosts:
 *   - name: host-1                     # the zone; the first part of provider IDs
 *     address: 10.0.0.5                # SSH host name or address
 *     port: 22                         # default 22
 *     user: root                       # default root; must be allowed to use the libvirt socket
 *     socket: /var/run/libvirt/libvirt-sock   # the default
 *     pool: default                    # default "default"; a running storage pool
 *     bridge: br0                      # the Linux bridge the VMs' network interface joins
 *     domainType: kvm                  # kvm (default) or qemu (emulation, for nested or UEFI tests)
 *     cpuMode: host-model              # host-model, host-passthrough, default (QEMU's own model) or a
 *                                      # QEMU CPU model name; unset: host-model with kvm, default with qemu
 *     firmware: bios                   # bios (default) or uefi
 *     uefiLoader: /usr/share/OVMF/OVMF_CODE_4M.fd       # uefi only; this is the default
 *     uefiVarsTemplate: /usr/share/OVMF/OVMF_VARS_4M.fd # uefi only; this is the default
 * }</pre>
 *
 * @param name             the host's name: the zone placements name it by, and the first part of
 *                         the provider IDs of its instances (so it never contains '/')
 * @param address          the SSH host name or address, as known_hosts lists it
 * @param port             the SSH port
 * @param user             the SSH user
 * @param socket           the libvirt unix socket's path on the host
 * @param pool             the storage pool that holds base images, overlays and seeds
 * @param bridge           the Linux bridge on the host that VMs attach to
 * @param domainType       the libvirt domain type, {@code kvm} or {@code qemu}
 * @param cpuMode          the CPU the guests see: {@code host-model}, {@code host-passthrough},
 *                         {@code default} (QEMU's default model) or the name of a QEMU CPU model
 *                         such as {@code Skylake-Client}; {@code null} when not configured, which
 *                         means the domain type's default ({@link CpuMode#defaultFor}):
 *                         {@code host-model} under kvm, because {@code host-passthrough} fails on
 *                         nested hosts, and QEMU's default model under emulation
 * @param firmware         {@code bios} or {@code uefi}
 * @param uefiLoader       the UEFI firmware code on the host; {@code null} unless firmware is uefi
 * @param uefiVarsTemplate the UEFI variables template on the host, copied per VM; {@code null}
 *                         unless firmware is uefi
 */
public record KvmHost(String name, String address, Integer port, String user, String socket, String pool,
                      String bridge, String domainType, String cpuMode, String firmware, String uefiLoader,
                      String uefiVarsTemplate) {

    /** The SSH port unless configured. */
    public static final int DEFAULT_PORT = HostSettings.DEFAULT_PORT;
    /** The SSH user unless configured. */
    public static final String DEFAULT_USER = HostSettings.DEFAULT_USER;
    /** Where libvirtd listens on most distributions. */
    public static final String DEFAULT_SOCKET = HostSettings.DEFAULT_SOCKET;
    /** The storage pool libvirt installs by default. */
    public static final String DEFAULT_POOL = HostSettings.DEFAULT_POOL;
    /** Hardware virtualisation. */
    public static final String DOMAIN_TYPE_KVM = HostSettings.DOMAIN_TYPE_KVM;
    /** Emulation: slower, but works where KVM is missing or limited (nested hosts, UEFI tests). */
    public static final String DOMAIN_TYPE_QEMU = HostSettings.DOMAIN_TYPE_QEMU;
    /** libvirt's {@code host-model}: a named model close to the host's CPU. */
    public static final String CPU_HOST_MODEL = "host-model";
    /** libvirt's {@code host-passthrough}: the host's CPU as it is. */
    public static final String CPU_HOST_PASSTHROUGH = "host-passthrough";
    /** No {@code cpu} element: QEMU's default model. */
    public static final String CPU_DEFAULT = "default";
    /** Legacy BIOS boot, the default. */
    public static final String FIRMWARE_BIOS = "bios";
    /** UEFI boot with a loader and a per-VM copy of a variables template. */
    public static final String FIRMWARE_UEFI = "uefi";
    /** The non-secure-boot OVMF build of Debian and Ubuntu; secure-boot builds need SMM. */
    public static final String DEFAULT_UEFI_LOADER = HostSettings.DEFAULT_UEFI_LOADER;
    /** The variables template that goes with {@link #DEFAULT_UEFI_LOADER}. */
    public static final String DEFAULT_UEFI_VARS_TEMPLATE = HostSettings.DEFAULT_UEFI_VARS_TEMPLATE;

    /** Applies defaults and rejects values that cannot work, naming the setting to fix. */
    public KvmHost {
        HostSettings common = new HostSettings(name, address, port, user, socket, pool, bridge, domainType, cpuMode,
                uefiLoader, uefiVarsTemplate);
        firmware = firmware == null
                ? FIRMWARE_BIOS
                : ConfigChecks.requireOneOf("firmware", firmware, FIRMWARE_BIOS, FIRMWARE_UEFI);
        boolean uefi = FIRMWARE_UEFI.equals(firmware);
        requireUefiOnly("uefiLoader", uefiLoader, uefi);
        requireUefiOnly("uefiVarsTemplate", uefiVarsTemplate, uefi);
        name = common.name();
        address = common.address();
        port = common.port();
        user = common.user();
        socket = common.socket();
        pool = common.pool();
        bridge = common.bridge();
        domainType = common.domainType();
        uefiLoader = uefi ? common.uefiLoader() : null;
        uefiVarsTemplate = uefi ? common.uefiVarsTemplate() : null;
    }

    /**
     * A host with every default and the three required settings, for tests and programmatic
     * configuration.
     */
    public static KvmHost of(String name, String address, String bridge) {
        return new KvmHost(name, address, null, null, null, null, bridge, null, null, null, null, null);
    }

    /** Whether VMs on this host boot with UEFI firmware. */
    public boolean uefi() {
        return FIRMWARE_UEFI.equals(firmware);
    }

    /**
     * The settings every KVM backend's hosts have, as kvm-common's instance engine takes them. A
     * BIOS host has no firmware paths; the defaults stand in and go into no domain, because only
     * domains defined with UEFI get a loader.
     */
    public HostSettings settings() {
        return new HostSettings(name, address, port, user, socket, pool, bridge, domainType, cpuMode, uefiLoader,
                uefiVarsTemplate);
    }

    /**
     * How this host runs guests, as kvm-common's domain XML takes it: the domain type, the
     * configured CPU mode or the type's default, and the UEFI firmware paths.
     */
    public HostPlatform platform() {
        return settings().platform();
    }

    /** How kvm-common reaches this host. */
    public HostEndpoint endpoint() {
        return settings().endpoint();
    }

    /** {@code user@address:port}, the way messages name the SSH destination. */
    public String destination() {
        return settings().destination();
    }

    private static void requireUefiOnly(String component, String path, boolean uefi) {
        if (!uefi && path != null) {
            throw new IllegalArgumentException(component + ": only used with firmware: uefi; set firmware: uefi"
                    + " or remove " + component);
        }
    }
}
