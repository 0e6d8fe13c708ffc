package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.instance.ImageChoice;
import dev.egressproxies.kvm.common.xml.DiskFormat;

/**
 * The image a placement names, resolved: a catalogue entry, or an http(s) URL given directly with
 * the defaults (qcow2, UEFI).
 *
 * @param label   how messages and progress name it: the catalogue key, or the URL's redacted form
 * @param subject what leads error messages about it: {@code image 'KEY'} for a catalogue image,
 *                nothing for a URL image (the fetch pipeline's messages name its redacted URL already)
 * @param key    the catalogue key, or {@link BaseVolumeNames#URL_KEY} for a URL
 * @param volume the base volume's name
 * @param source what the fetch pipeline fetches; its URL must never be shown
 * @param uefi   whether its VMs boot with UEFI
 * @param onHost whether the hypervisor fetches it itself ({@code fetch: host})
 */
record Kvm2Image(String label, String subject, String key, String volume, ImageSource source, boolean uefi,
                 boolean onHost) implements ImageChoice {

    @Override
    public DiskFormat format() {
        return source.format();
    }

    /** The marker volume next to the base. */
    String marker() {
        return BaseVolumeNames.marker(volume);
    }

    /** Whether the catalogue pins the published file's sha256. */
    boolean pinned() {
        return source.sha256().isPresent();
    }

    @Override
    public String toString() {
        // The record's own form would print the source's URL; its redacted form is all that may show.
        return "Kvm2Image[" + label + ", volume " + volume + ", " + source + (onHost ? ", fetched on the host" : "")
                + "]";
    }
}
