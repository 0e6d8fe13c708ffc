package dev.egressproxies.kvm.common.xml;

import java.util.Objects;

/** How a host runs guests: the host's settings that go into every domain defined on it. */
public record HostPlatform(DomainType domainType, CpuMode cpuMode, UefiFirmware uefi) {
    /** Requires every setting. */
    public HostPlatform {
        Objects.requireNonNull(domainType, "domainType");
        Objects.requireNonNull(cpuMode, "cpuMode");
        Objects.requireNonNull(uefi, "uefi");
    }

    /** The defaults for a domain type: its {@linkplain CpuMode#defaultFor default CPU}, Debian's OVMF paths. */
    public static HostPlatform defaultsFor(DomainType domainType) {
        return new HostPlatform(domainType, CpuMode.defaultFor(domainType), UefiFirmware.defaults());
    }
}
