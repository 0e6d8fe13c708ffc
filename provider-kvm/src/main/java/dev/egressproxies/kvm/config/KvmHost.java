package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.config.HostSettings;

/**
 * One hypervisor of a {@code kvm} provider entry: kvm-common's {@link HostSettings} (which checks
 * every setting but {@code firmware}), plus whether all its VMs boot with {@code bios} (default) or
 * {@code uefi}; the UEFI paths are set only with {@code uefi}.
 */
public record KvmHost(String name, String address, Integer port, String user, String socket, String pool,
                      String bridge, String domainType, String cpuMode, String firmware, String uefiLoader,
                      String uefiVarsTemplate, String proxyJump) {

    public static final String FIRMWARE_BIOS = "bios";
    public static final String FIRMWARE_UEFI = "uefi";

    /** Applies defaults and rejects values that cannot work, naming the setting to fix. */
    public KvmHost {
        HostSettings common = new HostSettings(name, address, port, user, socket, pool, bridge, domainType, cpuMode,
                uefiLoader, uefiVarsTemplate, proxyJump);
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

    /** A host with the three required settings and every default. */
    public static KvmHost of(String name, String address, String bridge) {
        return new KvmHost(name, address, null, null, null, null, bridge, null, null, null, null, null, null);
    }

    /** Whether VMs on this host boot with UEFI firmware. */
    public boolean uefi() {
        return FIRMWARE_UEFI.equals(firmware);
    }

    /** The shared settings; on a BIOS host the default firmware paths stand in and go into no domain. */
    public HostSettings settings() {
        return new HostSettings(name, address, port, user, socket, pool, bridge, domainType, cpuMode, uefiLoader,
                uefiVarsTemplate, proxyJump);
    }

    private static void requireUefiOnly(String component, String path, boolean uefi) {
        if (!uefi && path != null) {
            throw new IllegalArgumentException(component + ": only used with firmware: uefi; set firmware: uefi"
                    + " or remove " + component);
        }
    }
}
