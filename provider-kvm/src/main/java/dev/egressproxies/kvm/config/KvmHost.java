package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DomainType;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.UefiFirmware;

/**
 * One hypervisor of a {@code kvm} provider entry: how to reach it (SSH, then libvirt's unix socket),
 * which storage pool and bridge its VMs use, and how its VMs are defined.
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
    public static final String DEFAULT_UEFI_LOADER = UefiFirmware.DEFAULT_LOADER;
    /** The variables template that goes with {@link #DEFAULT_UEFI_LOADER}. */
    public static final String DEFAULT_UEFI_VARS_TEMPLATE = UefiFirmware.DEFAULT_NVRAM_TEMPLATE;

    /** Applies defaults and rejects values that cannot work, naming the setting to fix. */
    public KvmHost {
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
        firmware = firmware == null
                ? FIRMWARE_BIOS
                : ConfigChecks.requireOneOf("firmware", firmware, FIRMWARE_BIOS, FIRMWARE_UEFI);
        boolean uefi = FIRMWARE_UEFI.equals(firmware);
        uefiLoader = uefiPath("uefiLoader", uefiLoader, DEFAULT_UEFI_LOADER, uefi);
        uefiVarsTemplate = uefiPath("uefiVarsTemplate", uefiVarsTemplate, DEFAULT_UEFI_VARS_TEMPLATE, uefi);
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
     * How this host runs guests, as kvm-common's domain XML takes it: the domain type, the
     * configured CPU mode or the type's default, and the UEFI firmware paths.
     */
    public HostPlatform platform() {
        DomainType type = DomainType.parse(domainType);
        CpuMode cpu = cpuMode == null ? CpuMode.defaultFor(type) : CpuMode.parse(cpuMode);
        // A BIOS host has no firmware paths; the defaults stand in and go into no domain, because
        // only domains defined with UEFI get a loader.
        UefiFirmware firmware = uefi() ? new UefiFirmware(uefiLoader, uefiVarsTemplate) : UefiFirmware.defaults();
        return new HostPlatform(type, cpu, firmware);
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

    private static String uefiPath(String component, String path, String fallback, boolean uefi) {
        if (!uefi) {
            if (path != null) {
                throw new IllegalArgumentException(component + ": only used with firmware: uefi; set firmware: uefi"
                        + " or remove " + component);
            }
            return null;
        }
        return path == null ? fallback : ConfigChecks.requireAbsolutePath(component, path, fallback);
    }
}
