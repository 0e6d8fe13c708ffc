package dev.egressproxies.kvm.common.config;

/** The size of one machine type's VMs, both required: {@code small: {vcpus: 1, memoryMiB: 512}}. */
public record MachineSize(int vcpus, int memoryMiB) {
    /** The most virtual CPUs accepted; far above what an egress proxy needs, below libvirt's limits. */
    public static final int MAXIMUM_VCPUS = 256;

    /** Rejects sizes that cannot boot. */
    public MachineSize {
        if (vcpus < 1 || vcpus > MAXIMUM_VCPUS) {
            throw new IllegalArgumentException("vcpus: " + vcpus + " is out of range; use 1 to " + MAXIMUM_VCPUS);
        }
        if (memoryMiB < 1) {
            throw new IllegalArgumentException("memoryMiB: " + memoryMiB + " is not positive; give the memory in"
                    + " MiB, for example 512");
        }
    }

    @Override
    public String toString() {
        return vcpus + (vcpus == 1 ? " vCPU, " : " vCPUs, ") + memoryMiB + " MiB";
    }
}
