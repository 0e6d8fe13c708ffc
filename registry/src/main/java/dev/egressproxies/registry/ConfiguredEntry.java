package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One configured provider entry whose name and type were read and found valid: where it sits in
 * the configuration, its name, the plugin its type selects, and its settings.
 *
 * @param index    the entry's position in the configured list
 * @param path     the entry's path from the configuration root, for example {@code providers[1]}
 * @param name     the entry's name
 * @param plugin   the plugin its type selects
 * @param settings every field of the entry except {@code name} and {@code type}
 */
record ConfiguredEntry(int index, String path, String name, Plugin plugin, ObjectNode settings) {

    /** How messages name the entry: {@code entry 'kvm-a' (type kvm)}. */
    String describe() {
        return ProblemList.describeEntry(name, plugin.type());
    }
}
