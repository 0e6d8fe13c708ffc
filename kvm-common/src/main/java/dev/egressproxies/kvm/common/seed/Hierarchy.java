package dev.egressproxies.kvm.common.seed;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the two directory hierarchies the image carries over the same file data: the primary
 * one every ECMA-119 reader sees, and the Joliet one that keeps names as given.
 *
 * <p>Both are needed: ECMA-119 alone can only say {@code USER_DAT.;1}, which cloud-init would
 * not find; Joliet alone is not a valid ECMA-119 volume, which requires a primary volume
 * descriptor (8.4). Readers that know Joliet (the Linux kernel, libblkid, libarchive, libisofs)
 * prefer its names to the primary ones when they find its supplementary volume descriptor.
 */
enum Hierarchy {
    /** The plain ECMA-119 hierarchy, described by the primary volume descriptor (8.4). */
    PRIMARY(1, IdentifierText.SINGLE_BYTE, new byte[0]) {
        @Override
        String volumeIdentifier(IsoVolume volume) {
            return volume.primaryVolumeIdentifier();
        }

        @Override
        Map<String, byte[]> fileIdentifiers(List<String> names) {
            // Assign from sorted names, so which of two colliding names gets the number does not
            // depend on the caller's order; then order by identifier, as 9.3 asks.
            Map<String, String> assigned = PrimaryFileIdentifiers.assign(names.stream().sorted().toList());
            Map<String, byte[]> encoded = new LinkedHashMap<>();
            assigned.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue(FileIdentifierOrder.INSTANCE))
                    // Every file is version 1; the ";1" suffix is part of the identifier (7.5.1).
                    .forEach(entry -> encoded.put(entry.getKey(),
                            (entry.getValue() + ";1").getBytes(StandardCharsets.US_ASCII)));
            return encoded;
        }
    },

    /**
     * The Joliet hierarchy, described by a supplementary volume descriptor (8.5) whose escape
     * sequence {@code %/E} declares UCS-2 level 3, the level without restrictions on which
     * characters may appear.
     */
    JOLIET(2, IdentifierText.UCS2_BIG_ENDIAN, new byte[] {'%', '/', 'E'}) {
        @Override
        String volumeIdentifier(IsoVolume volume) {
            return volume.label();
        }

        @Override
        Map<String, byte[]> fileIdentifiers(List<String> names) {
            // Names go in as given, without the ";1" version: Joliet readers strip it anyway,
            // genisoimage leaves it out too, and without it a name can use all 64 characters.
            Map<String, byte[]> encoded = new LinkedHashMap<>();
            names.stream().sorted(FileIdentifierOrder.INSTANCE)
                    .forEach(name -> encoded.put(name, name.getBytes(StandardCharsets.UTF_16BE)));
            return encoded;
        }
    };

    private final int volumeDescriptorType;
    private final IdentifierText identifierText;
    private final byte[] escapeSequences;

    Hierarchy(int volumeDescriptorType, IdentifierText identifierText, byte[] escapeSequences) {
        this.volumeDescriptorType = volumeDescriptorType;
        this.identifierText = identifierText;
        this.escapeSequences = escapeSequences;
    }

    /** Returns the volume descriptor type: 1 primary, 2 supplementary (ECMA-119 8.1.1). */
    int volumeDescriptorType() {
        return volumeDescriptorType;
    }

    /** Returns how the descriptor's text fields are encoded. */
    IdentifierText identifierText() {
        return identifierText;
    }

    /** Returns the escape sequences field content (8.5.6); empty for the primary descriptor. */
    byte[] escapeSequences() {
        return escapeSequences.clone();
    }

    /** Returns the volume identifier this hierarchy's descriptor records. */
    abstract String volumeIdentifier(IsoVolume volume);

    /**
     * Returns each file name's identifier bytes in this hierarchy, in the order ECMA-119 9.3
     * prescribes for directory records; the result does not depend on the order of
     * {@code names}.
     *
     * @param names distinct valid {@link IsoFile} names
     */
    abstract Map<String, byte[]> fileIdentifiers(List<String> names);
}
