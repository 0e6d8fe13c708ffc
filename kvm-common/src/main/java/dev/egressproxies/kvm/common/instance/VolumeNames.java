package dev.egressproxies.kvm.common.instance;

/**
 * The names of the per-instance volumes the engine keeps in a host's storage pool. Instance names
 * are DNS labels (no dots), so {@code NAME.qcow2} and {@code NAME.seed.iso} never collide with each
 * other nor across instances; a backend names its base volumes with at least one more dot (or a
 * character a DNS label cannot hold), so they never collide with these either.
 */
final class VolumeNames {
    private VolumeNames() {
    }

    /** The instance's writable qcow2 overlay on the base image. */
    static String overlay(String instanceName) {
        return instanceName + ".qcow2";
    }

    /** The instance's NoCloud seed ISO. */
    static String seed(String instanceName) {
        return instanceName + ".seed.iso";
    }
}
