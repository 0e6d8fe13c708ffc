package dev.egressproxies.kvm.common.image;

import java.util.Locale;

/**
 * Where an image is downloaded: on the machine that runs egressctl, which streams it into the
 * volume through libvirt, or on the hypervisor itself, which writes it into the volume's file.
 */
public enum FetchLocation {
    /** egressctl downloads, checks and uploads the image; the default. */
    CLIENT,
    /** The hypervisor downloads, decompresses and checks the image with its own tools (curl or wget, sha256sum). */
    HOST;

    /** The name a configuration uses for it: {@code client} or {@code host}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The location named {@code text}, in any case; IllegalArgumentException for another name. */
    public static FetchLocation parse(String text) {
        String name = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (FetchLocation location : values()) {
            if (location.configName().equals(name)) {
                return location;
            }
        }
        throw new IllegalArgumentException("fetch '" + text + "' is not one of client or host");
    }
}
