package dev.egressproxies.kvm.common.xml;

import java.util.Locale;

/** The on-disk format of a storage volume. */
public enum DiskFormat {
    /** Plain bytes: seed images, markers, raw base images. */
    RAW,
    /** QEMU copy-on-write: cloud images and per-VM overlays. */
    QCOW2;

    /** The name libvirt and QEMU use. */
    public String xmlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The format named {@code raw} or {@code qcow2} in any case; IllegalArgumentException for anything else. */
    public static DiskFormat parse(String text) {
        return XmlDocuments.parseXmlName(DiskFormat.class, text, "disk format");
    }
}
