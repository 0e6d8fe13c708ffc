package dev.egressproxies.kvm.common.libvirt;

/** A storage pool's state and space, in bytes. */
public record PoolInfo(boolean running, long capacityBytes, long allocatedBytes, long availableBytes) {
}
