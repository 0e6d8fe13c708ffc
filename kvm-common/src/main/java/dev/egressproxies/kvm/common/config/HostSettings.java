package dev.egressproxies.kvm.common.config;

import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.xml.CpuMode;
import dev.egressproxies.kvm.common.xml.DomainType;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.UefiFirmware;

/**
 * One hypervisor of a KVM provider entry, bound from configuration; only {@code name} (the zone),
 * {@code address} and {@code bridge} are required. The SSH login ({@code user}, {@code port}) must
 * be allowed to use libvirt's {@code socket}. {@code address} may be a {@code Host} alias of the
 * ssh_config, which then fills {@code port}, {@code user} and {@code proxyJump} where they are
 * unset (null); without it they default to 22, root and none.
 */
public record HostSettings(String name, String address, Integer port, String user, String socket, String pool,
                           String bridge, String domainType, String cpuMode, String uefiLoader,
                           String uefiVarsTemplate, String proxyJump) {

    public static final int DEFAULT_PORT = 22;
    public static final String DEFAULT_USER = "root";
    public static final String DEFAULT_SOCKET = "/var/run/libvirt/libvirt-sock";
    public static final String DEFAULT_POOL = "default";
    public static final String DOMAIN_TYPE_KVM = "kvm";
    /** Emulation: slower, but works where KVM is missing or limited (nested hosts, UEFI). */
    public static final String DOMAIN_TYPE_QEMU = "qemu";
    /** The non-secure-boot OVMF build of Debian and Ubuntu; secure-boot builds need SMM. */
    public static final String DEFAULT_UEFI_LOADER = UefiFirmware.DEFAULT_LOADER;
    public static final String DEFAULT_UEFI_VARS_TEMPLATE = UefiFirmware.DEFAULT_NVRAM_TEMPLATE;

    /** Applies defaults and rejects values that cannot work, naming the setting to fix. */
    public HostSettings {
        name = ConfigChecks.requireName("name", name, "host-1");
        address = ConfigChecks.requireWord("address", address, "10.0.0.5 or hypervisor-1.example.org");
        if (port != null && (port < 1 || port > 65535)) {
            throw new IllegalArgumentException("port: " + port + " is not a TCP port; use 1 to 65535, usually 22");
        }
        user = user == null ? null : ConfigChecks.wordOrDefault("user", user, DEFAULT_USER);
        if (proxyJump != null) {
            ConfigChecks.requireWord("proxyJump", proxyJump, "admin@bastion.example.org:22, a Host alias of ssh_config,"
                    + " several separated by commas, or none");
        }
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

    /** A host with the three required settings and every default. */
    public static HostSettings of(String name, String address, String bridge) {
        return new HostSettings(name, address, null, null, null, null, bridge, null, null, null, null, null);
    }

    /** How this host runs guests: domain type, CPU mode (or the type's default), UEFI firmware paths. */
    public HostPlatform platform() {
        DomainType type = DomainType.parse(domainType);
        CpuMode cpu = cpuMode == null ? CpuMode.defaultFor(type) : CpuMode.parse(cpuMode);
        return new HostPlatform(type, cpu, new UefiFirmware(uefiLoader, uefiVarsTemplate));
    }

    /** How kvm-common reaches this host, as written (ssh_config may say more at each dial). */
    public HostEndpoint endpoint() {
        return new HostEndpoint(name, address, port == null ? DEFAULT_PORT : port, user == null ? DEFAULT_USER : user,
                socket);
    }

    /**
     * {@code user@address:port}, the way messages name the SSH destination: what the entry writes,
     * the address alone when it leaves user and port to ssh_config.
     */
    public String destination() {
        return (user == null ? "" : user + "@") + address + (port == null ? "" : ":" + port);
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
