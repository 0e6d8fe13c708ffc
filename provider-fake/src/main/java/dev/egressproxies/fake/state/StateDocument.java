package dev.egressproxies.fake.state;

import java.util.List;

/**
 * The content of a state file: a format version, so a future layout can be told apart, and the
 * instances.
 *
 * @param version   the format version, {@link StateFileCodec#VERSION} for this layout
 * @param instances every instance, managed or not
 */
record StateDocument(int version, List<StoredInstance> instances) {
}
