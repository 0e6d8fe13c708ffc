package dev.egressproxies.kvm.common.config;

import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DomainType;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.UefiFirmware;

/**
 * One hypervisor of a KVM provider entry: how to reach it (SSH, then libvirt's unix socket), which
 * storage pool and bridge its VMs use, and how its VMs are defined. Bound from configuration as it
 * is by the backends whose hosts have no settings of their own, and the checked core of those that
 * do.
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
 *     uefiLoader: /usr/share/OVMF/OVMF_CODE_4M.fd       # for UEFI guests; this is the default
 *     uefiVarsTemplate: /usr/share/OVMF/OVMF_VARS_4M.fd # for UEFI guests; this is the default
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
 * @param uefiLoader       the UEFI firmware code on the host, for guests that boot with UEFI
 * @param uefiVarsTemplate the UEFI variables template on the host, copied per UEFI guest
 */
public record HostSettings(String name, String address, Integer port, String user, String socket, String pool,
                           String bridge, String domainType, String cpuMode, String uefiLoader,
                           String uefiVarsTemplate) {

    /** The SSH port unless configured. */
    public static final int DEFAULT_PORT = 22;
    /** The SSH user unless configured. */
    public static final String DEFAULT_USER = "root";
    /** Where libvirtd listens on most distributions. */
    public static final String DEFAULT_SOCKET = "/var/run/libvirt/libvirt-sock";
    /** The storage pool libvirt installs by default. */
    public static final String DEFAULT_POOL = "default";
    /** Hardware virtualisation. */
    public static final String DOMAIN_TYPE_KVM = "kvm";
    /** Emulation: slower, but works where KVM is missing or limited (nested hosts, UEFI tests). */
    public static final String DOMAIN_TYPE_QEMU = "qemu";
    /** The non-secure-boot OVMF build of Debian and Ubuntu; secure-boot builds need SMM. */
    public static final String DEFAULT_UEFI_LOADER = UefiFirmware.DEFAULT_LOADER;
    /** The variables template that goes with {@link #DEFAULT_UEFI_LOADER}. */
    public static final String DEFAULT_UEFI_VARS_TEMPLATE = UefiFirmware.DEFAULT_NVRAM_TEMPLATE;

    /** Applies defaults and rejects values that cannot work, naming the setting to fix. */
    public HostSettings {
        name = ConfigChecks.requireName("name", name, "host-1");
        address = ConfigChecks.requireWord("address", address, "10.0.0.5 or hypervisor-1.example.org");
        port = port == null ? DEFAULT_PORT : port;
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " is not a TCP port; use 1 to 65535, usually 22");
        }
        user = ConfigChecks.wordOrDefault("user", user, DEFAULT_USER);
        socket = socket == null ? DEFAULT_SOCKET : ConfigChecks.requireAbsolutePath("socket", socket, DEFAULT_SOCKET);
        pool = pool == null ? DEFAULT_POOL : requirePoolName(pool);
        bridge = requireBridge(bridge);
        domainType = domainType == null
                ? DOMAIN_TYPE_KVM
                : ConfigChecks.parse("domainType", domainType, DomainType::parse).xmlName();
        if (cpuMode != null) {
            ConfigChecks.requireWord("cpuMode", cpuMode, "host-model, host-passthrough, default or a QEMU CPU model"
                    + " name such as Skylake-Client");
        }
        uefiLoader = uefiLoader == null
                ? DEFAULT_UEFI_LOADER
                : ConfigChecks.requireAbsolutePath("uefiLoader", uefiLoader, DEFAULT_UEFI_LOADER);
        uefiVarsTemplate = uefiVarsTemplate == null
                ? DEFAULT_UEFI_VARS_TEMPLATE
                : ConfigChecks.requireAbsolutePath("uefiVarsTemplate", uefiVarsTemplate, DEFAULT_UEFI_VARS_TEMPLATE);
    }

    /**
     * A host with every default and the three required settings, for tests and programmatic
     * configuration.
     */
    public static HostSettings of(String name, String address, String bridge) {
        return new HostSettings(name, address, null, null, null, null, bridge, null, null, null, null);
    }

    /**
     * How this host runs guests, as kvm-common's domain XML takes it: the domain type, the
     * configured CPU mode or the type's default, and the UEFI firmware paths (which only domains
     * defined with UEFI use).
     */
    public HostPlatform platform() {
        DomainType type = DomainType.parse(domainType);
        CpuMode cpu = cpuMode == null ? CpuMode.defaultFor(type) : CpuMode.parse(cpuMode);
        return new HostPlatform(type, cpu, new UefiFirmware(uefiLoader, uefiVarsTemplate));
    }

    /** How kvm-common reaches this host. */
    public HostEndpoint endpoint() {
        return new HostEndpoint(name, address, port, user, socket);
    }

    /** {@code user@address:port}, the way messages name the SSH destination. */
    public String destination() {
        return user + "@" + address + ":" + port;
    }

    private static String requirePoolName(String pool) {
        ConfigChecks.requireWord("pool", pool, DEFAULT_POOL);
        if (pool.contains("/")) {
            throw new IllegalArgumentException("pool: '" + pool + "' contains '/'; give the storage pool's name as"
                    + " 'virsh pool-list --all' shows it, not its path");
        }
        return pool;
    }

    private static String requireBridge(String bridge) {
        ConfigChecks.requireWord("bridge", bridge, "br0 (the Linux bridge on the host that VMs attach to)");
        // Linux interface names: at most 15 bytes, no '/' (the kernel's IFNAMSIZ rule).
        if (bridge.length() > 15 || bridge.contains("/")) {
            throw new IllegalArgumentException("bridge: '" + bridge + "' cannot be a Linux interface name; use at"
                    + " most 15 characters without '/', as 'ip link show type bridge' lists them");
        }
        return bridge;
    }
}
