package dev.egressproxies.kvm.common.xml;

import java.util.Objects;

/** Everything a domain of this platform is defined from, for {@link DomainXml}. */
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
