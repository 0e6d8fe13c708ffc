package dev.egressproxies.kvm.common.instance;

/**
 * The names of the per-instance volumes the engine keeps in a host's storage pool:
 * {@code ENTRY+NAME.qcow2} and {@code ENTRY+NAME.seed.iso}, after the provider entry that creates
 * the instance and the instance's name.
 *
 * <p>The entry is part of the name because entries share pools: delete removes these volumes by
 * name even when no domain exists (a create crashed between volumes and domain), and create reuses
 * an overlay it finds, so with instance names alone one entry would delete or boot from another's
 * volumes of the same instance name.
 *
 * <p>The names are unambiguous. Entry names match {@code [A-Za-z0-9][A-Za-z0-9._-]{0,62}} and hold
 * no '+', so the first '+' ends the entry; instance names are DNS labels (no '+' nor '.'), so what
 * follows is the name and a suffix, and two (entry, name) pairs never give one volume name, nor
 * does an overlay share a name with a seed. Nor do they meet a base volume or its marker: those
 * end in {@code .base.FORMAT} (plus a marker suffix) after their last '+', if any, which gives at
 * least two dots after the last '+', whereas an overlay has one and a seed has two with
 * {@code seed}, not {@code base}, between them. Names are at most 63 + 1 + 63 + 9 characters of
 * letters, digits, '.', '_', '-' and '+', so they are valid file names everywhere.
 *
 * <p>Domains defined before entries were recorded were made with volumes named after the instance
 * alone; {@link EntryScope} names those for their removal by hand.
 */
final class VolumeNames {
    private VolumeNames() {
    }

    /** The writable qcow2 overlay on the base image of instance {@code instanceName} of provider entry {@code entry}. */
    static String overlay(String entry, String instanceName) {
        return entry + "+" + instanceName + ".qcow2";
    }

    /** The NoCloud seed ISO of instance {@code instanceName} of provider entry {@code entry}. */
    static String seed(String entry, String instanceName) {
        return entry + "+" + instanceName + ".seed.iso";
    }
}
