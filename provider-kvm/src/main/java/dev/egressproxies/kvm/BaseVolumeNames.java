package dev.egressproxies.kvm;

/**
 * The names of the base image volumes this backend keeps in a host's storage pool:
 * {@code KEY.base.FORMAT} and its {@code KEY.base.FORMAT.complete} marker. They end in
 * {@code .base.FORMAT} (and the marker's suffix), so they never collide with an instance's overlay
 * or seed, {@code ENTRY+NAME.qcow2} and {@code ENTRY+NAME.seed.iso} (kvm-common's
 * {@code VolumeNames} says why).
 */
final class BaseVolumeNames {
    private BaseVolumeNames() {
    }

    /** The cached base image downloaded for the image {@code imageKey} in {@code format}. */
    static String base(String imageKey, String format) {
        return imageKey + ".base." + format;
    }

    /** The marker whose presence says that the base volume's upload finished. */
    static String baseComplete(String imageKey, String format) {
        return base(imageKey, format) + ".complete";
    }
}
