package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.config.MachineSize;

/**
 * A machine type of a {@code kvm} provider entry: the size of the VMs created with it, for
 * example {@code small: {vcpus: 1, memoryMiB: 512}}. Both settings are required; kvm-common's
 * {@link MachineSize} checks them.
 *
 * @param vcpus     the number of virtual CPUs
 * @param memoryMiB the memory in MiB
 */
public record MachineType(int vcpus, int memoryMiB) {
    /** The most virtual CPUs accepted; far above what an egress proxy needs, below libvirt's limits. */
    public static final int MAXIMUM_VCPUS = MachineSize.MAXIMUM_VCPUS;

    /** Rejects sizes that cannot boot. */
    public MachineType {
        new MachineSize(vcpus, memoryMiB);
    }

    /** The size, as kvm-common's instance engine takes it. */
    public MachineSize size() {
        return new MachineSize(vcpus, memoryMiB);
    }

    @Override
    public String toString() {
        return size().toString();
    }
}
