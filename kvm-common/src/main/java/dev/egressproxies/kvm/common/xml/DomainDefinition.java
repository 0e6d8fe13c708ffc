package dev.egressproxies.kvm.common.xml;

import java.util.Objects;

/**
 * Everything a domain of this platform is defined from, for {@link DomainXml}.
 *
 * @param name      the domain's name
 * @param memoryMiB its memory in MiB
 * @param vcpus     its number of virtual CPUs
 * @param platform  the settings of the host it is defined on
 * @param uefi      whether its image boots with UEFI (the host's firmware) rather than BIOS
 * @param diskPath  the host path of its qcow2 overlay, its boot disk
 * @param seedPath  the host path of its NoCloud seed image, attached as a read-only CD-ROM
 * @param bridge    the host bridge its network interface joins
 * @param metadata  what marks it as this platform's
 */
public record DomainDefinition(String name, long memoryMiB, int vcpus, HostPlatform platform, boolean uefi,
                               String diskPath, String seedPath, String bridge, InstanceMetadata metadata) {
    /** Requires every field, positive sizes and non-blank names and paths. */
    public DomainDefinition {
        requireText(name, "the domain name");
        requireText(diskPath, "the disk path");
        requireText(seedPath, "the seed image path");
        requireText(bridge, "the bridge name");
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(metadata, "metadata");
        if (memoryMiB <= 0) {
            throw new IllegalArgumentException("memory of domain " + name + " is " + memoryMiB
                    + " MiB; it must be positive");
        }
        if (vcpus <= 0) {
            throw new IllegalArgumentException("domain " + name + " has " + vcpus + " vCPUs; it needs at least one");
        }
    }

    private static void requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " is blank");
        }
    }
}
