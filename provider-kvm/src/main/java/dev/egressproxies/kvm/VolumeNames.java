package dev.egressproxies.kvm;

/**
 * The names of the volumes this backend keeps in a host's storage pool. Instance names are DNS
 * labels (no dots), so {@code NAME.qcow2} and {@code NAME.seed.iso} never collide with each other,
 * with a base image's {@code KEY.base.FORMAT} or with its {@code KEY.base.FORMAT.complete}
 * marker, nor across instances.
 */
final class VolumeNames {
    private VolumeNames() {
    }

    /** The cached base image downloaded for the image {@code imageKey} in {@code format}. */
    static String base(String imageKey, String format) {
        return imageKey + ".base." + format;
    }

    /** The marker whose presence says that the base volume's upload finished. */
    static String baseComplete(String imageKey, String format) {
        return base(imageKey, format) + ".complete";
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
