package dev.egressproxies.kvm.common.testing;

/**
 * The names of an instance's volumes in a host's pool as the KVM engine names them, written out
 * here rather than taken from the engine so that tests pin the naming: {@code ENTRY+NAME.qcow2}
 * and {@code ENTRY+NAME.seed.iso}.
 */
public final class InstanceVolumes {
    private InstanceVolumes() {
    }

    /** The overlay of instance {@code name} created through provider entry {@code entry}. */
    public static String overlay(String entry, String name) {
        return entry + "+" + name + ".qcow2";
    }

    /** The seed ISO of instance {@code name} created through provider entry {@code entry}. */
    public static String seed(String entry, String name) {
        return entry + "+" + name + ".seed.iso";
    }

    /**
     * The volume's name without the entry it starts with: what follows the first '+' (entry names
     * hold none), or the whole name if it has none.
     */
    public static String withoutEntry(String volume) {
        return volume.substring(volume.indexOf('+') + 1);
    }
}
