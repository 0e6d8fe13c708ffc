package dev.egressproxies.kvm.xml;

import java.util.Objects;

/**
 * What a VM's libvirt domain is made of, independent of how the XML is written: a persistent
 * domain that boots from a qcow2 overlay, reads its NoCloud seed from a CD-ROM, joins a bridge and
 * has a guest agent channel.
 *
 * @param name             the domain name (the instance name)
 * @param metadata         the platform's metadata element's content
 * @param domainType       {@code kvm} or {@code qemu}
 * @param vcpus            the number of virtual CPUs
 * @param memoryMiB        the memory in MiB
 * @param cpuMode          {@code host-model}, {@code host-passthrough}, {@code default} (no
 *                         {@code cpu} element: QEMU's default model) or a QEMU CPU model name
 * @param uefiLoader       the UEFI firmware code path, or {@code null} to boot with BIOS
 * @param uefiVarsTemplate the UEFI variables template path; {@code null} exactly when
 *                         {@code uefiLoader} is
 * @param diskPath         the overlay volume's path on the host
 * @param seedPath         the seed ISO volume's path on the host
 * @param bridge           the Linux bridge the network interface joins
 */
public record DomainDefinition(String name, InstanceMetadata metadata, String domainType, int vcpus, int memoryMiB,
                               String cpuMode, String uefiLoader, String uefiVarsTemplate, String diskPath,
                               String seedPath, String bridge) {
    /** Requires every value that every domain has. */
    public DomainDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(domainType, "domainType");
        Objects.requireNonNull(cpuMode, "cpuMode");
        Objects.requireNonNull(diskPath, "diskPath");
        Objects.requireNonNull(seedPath, "seedPath");
        Objects.requireNonNull(bridge, "bridge");
        if ((uefiLoader == null) != (uefiVarsTemplate == null)) {
            throw new IllegalArgumentException("a UEFI domain needs both the loader and the variables template");
        }
    }
}
